"""`RulesOfFile`: which path-scoped rules match each workspace file, indexed by distinct
pattern rather than by rule.

2,000 rules over 22,000 files match 2.0 M (file, rule) pairs but only 85 k (file, pattern)
pairs: most rules write the same few patterns (`**/*.ts` in hundreds of them). So a file is
stored as its *combination* of pattern ids (one tuple shared by every file with the same
combination), a rule set as an integer bit mask (bit n: the n-th scoped rule, in rule order),
and a file's rule tuple is put together only when someone asks for that file (or group of
files). Grouping files by the rules they load (the budget check) compares masks, never
tuples of hundreds of names; an upper bound of what a group's rules weigh is summed over its
handful of patterns (`pattern_weights`), not over its hundreds of rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator


class RulesOfFile:
    """Workspace file → the scoped rules matching it, in rule order.

    Built from each distinct pattern's shared match list (`runs`, never copied) and the rule
    numbers that write each pattern; a rule edit patches single files (`patch`) as masks."""

    def __init__(self, rules: list[str], runs: list[list[str]],
                 writers: list[list[int]]) -> None:
        self.rules: list[str] = list(rules)  # rule number → rule, in rule order
        self.order: dict[str, int] = {rule: n for n, rule in enumerate(rules)}
        self.writers: list[tuple[int, ...]] = [tuple(w) for w in writers]  # pattern → rules
        self.pattern_masks: list[int] = [_mask_of(w) for w in writers]
        self.pattern_pairs = sum(map(len, runs))  # (file, pattern) pairs
        lists: dict[str, list[int]] = {}
        for number, run in enumerate(runs):
            for path in run:
                found = lists.get(path)
                if found is None:
                    lists[path] = [number]
                else:
                    found.append(number)
        shared: dict[tuple[int, ...], tuple[int, ...]] = {}
        self.combo_of: dict[str, tuple[int, ...]] = {}
        for path, numbers in lists.items():
            combo = tuple(numbers)
            self.combo_of[path] = shared.setdefault(combo, combo)
        self.mask_of_combo: dict[tuple[int, ...], int] = {}
        # one combination giving each mask (no pattern: no rule)
        self.combo_of_mask: dict[int, tuple[int, ...]] = {0: ()}
        masks = self.pattern_masks
        for combo in shared:
            mask = 0
            for number in combo:
                mask |= masks[number]
            self.mask_of_combo[combo] = mask
            self.combo_of_mask.setdefault(mask, combo)
        self.patched: dict[str, int] = {}  # file → mask, for files a rule edit moved
        self._tuples: dict[int, tuple[str, ...]] = {0: ()}

    # ----- questions --------------------------------------------------------------------------

    def mask(self, path: str) -> int:
        """The rules matching `path`, as a bit mask (0: none)."""
        mask = self.patched.get(path)
        if mask is not None:
            return mask
        combo = self.combo_of.get(path)
        return self.mask_of_combo[combo] if combo is not None else 0

    def rules_of(self, mask: int) -> tuple[str, ...]:
        """The rules of a mask, in rule order (one tuple per mask, built when first asked)."""
        found = self._tuples.get(mask)
        if found is None:
            rules = self.rules
            found = self._tuples[mask] = tuple(rules[n] for n in _bits(mask))
        return found

    def get(self, path: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        mask = self.mask(path)
        return self.rules_of(mask) if mask else default

    def __getitem__(self, path: str) -> tuple[str, ...]:
        mask = self.mask(path)
        if not mask:
            raise KeyError(path)
        return self.rules_of(mask)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and bool(self.mask(path))

    def files(self) -> Iterator[str]:
        """Every file some scoped rule matches."""
        for path in self.combo_of:
            if path not in self.patched and self.mask_of_combo[self.combo_of[path]]:
                yield path
        for path, mask in self.patched.items():
            if mask:
                yield path

    def as_dict(self) -> dict[str, tuple[str, ...]]:
        """The whole index as file → rules (for tests and comparisons: a check never builds
        it)."""
        return {path: self.rules_of(self.mask(path)) for path in sorted(self.files())}

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RulesOfFile):
            return self.as_dict() == other.as_dict()
        if isinstance(other, dict):
            return self.as_dict() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable: patched in place

    def bit(self, rule: str) -> int:
        """A rule's bit (a rule the index has not seen gets the next number)."""
        number = self.order.get(rule)
        if number is None:
            number = self.order[rule] = len(self.rules)
            self.rules.append(rule)
        return 1 << number

    def pattern_weights(self, weight: Callable[[str], int]) -> list[int]:
        """Per pattern, the sum of `weight` over the rules that write it. Summed over a
        combination's patterns this bounds, from above, the weight of its rules (a rule
        that writes two of the patterns counts twice): `bound`."""
        rules = self.rules
        return [sum(weight(rules[n]) for n in writers) for writers in self.writers]

    def bound(self, mask: int, weights: list[int]) -> int | None:
        """An upper bound of the weight of `mask`'s rules from its patterns (None: no
        combination of patterns gives this mask, as after a rule edit)."""
        combo = self.combo_of_mask.get(mask)
        if combo is None:
            return None
        return sum(weights[n] for n in combo)

    def pairs(self) -> tuple[int, int]:
        """(file, rule) and (file, pattern) pairs: what matching rule by rule would cost, and
        what this index costs. Counted from the combinations, without listing rules."""
        per_combo: dict[tuple[int, ...], int] = {}
        for combo in self.combo_of.values():
            per_combo[combo] = per_combo.get(combo, 0) + 1
        rule_pairs = sum(self.mask_of_combo[c].bit_count() * n for c, n in per_combo.items())
        for path, mask in self.patched.items():
            known = self.combo_of.get(path)
            before = self.mask_of_combo[known] if known is not None else 0
            rule_pairs += mask.bit_count() - before.bit_count()
        return rule_pairs, self.pattern_pairs

    # ----- updates ----------------------------------------------------------------------------

    def patch(self, rule: str, gained: Iterable[str], lost: Iterable[str]) -> None:
        """Add `rule` to the files it gained, drop it from those it lost (a glob edit)."""
        bit = self.bit(rule)
        for path in lost:
            mask = self.mask(path)
            if mask & bit:
                self.patched[path] = mask & ~bit
        for path in gained:
            self.patched[path] = self.mask(path) | bit


def _mask_of(numbers: Iterable[int]) -> int:
    mask = 0
    for number in numbers:
        mask |= 1 << number
    return mask


def _bits(mask: int) -> Iterator[int]:
    """The numbers of the set bits, lowest first (a step per set bit, not per bit)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
