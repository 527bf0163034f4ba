"""Indexed "did you mean" look-ups: close file names and directory names in bounded time.

A suggestion must never dominate a check. `difflib.get_close_matches` against every directory
of a 20,000-directory workspace, once per dead glob, took minutes; here each look-up touches only
names that share a deletion neighbourhood with the query (the symmetric-delete idea behind
SymSpell: two names within a small edit distance share a string obtained by deleting a few
characters from each). Building an index is linear in the total length of the names; a query
costs O(len(query)²) dictionary look-ups plus a similarity on at most `MAX_CANDIDATES` names,
whatever the size of the workspace.

difflib stays the judge of "close"; `close_matches` asks it only about the dozen choices
rapidfuzz's LCS ratio, computed in C++, rates best. With 2,000 dead globs, difflib's ratios over
every candidate were 2.3 s of a 4.8 s check.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulemap.globs import FileIndex

MAX_CANDIDATES = 32  # names judged per query
MAX_DELETE_QUERY = 24  # names longer than this are queried with single deletions only
MAX_INDEXED_LENGTH = 64  # longer names are indexed by themselves only (exact matches)
MAX_SCANNED = 4096  # directories looked at for one `ending_with`
MAX_FUZZY = 4  # close-name look-ups for one walk down the tree
MAX_RANKED = 8  # whole paths judged for one `near` (long paths are slow to rank)


def close_matches(query: str, choices: Iterable[str], n: int = 3,
                  cutoff: float = 0.6, judged: bool = True) -> list[str]:
    """Up to `n` of `choices` difflib rates at least `cutoff` (0–1) like `query`, best first.

    difflib judges at most `MAX_JUDGED` choices: those rapidfuzz's `fuzz.ratio` (2·LCS / total
    length, in C++) rates highest. It never rules out a choice difflib would keep (difflib's
    ratio counts the characters of matching blocks, a common subsequence, so it is never above
    the LCS ratio); the cap makes the cost of a query bounded whatever the choices.
    `judged=False`: rapidfuzz's ranking alone — for the many look-ups that only gather
    candidates (a walk down the tree), whose final answer difflib then judges."""
    # imported here: rapidfuzz is 47 modules (~26 ms), difflib 2 ms, and most checks suggest
    # nothing
    import difflib

    from rapidfuzz import fuzz, process

    ranked = process.extract(query, list(choices), scorer=fuzz.ratio, processor=None,
                             limit=None, score_cutoff=cutoff * 100 - _ROUNDING)
    if not ranked:
        return []
    ranked.sort(key=lambda hit: (-hit[1], hit[0]))  # not the input order: equal ones by name
    if not judged:
        return [hit[0] for hit in ranked[:n]]
    pool = [hit[0] for hit in ranked[:MAX_JUDGED]]
    return difflib.get_close_matches(query, pool, n=n, cutoff=cutoff)


MAX_JUDGED = 12  # choices difflib rates for one query


def similar(a: str, b: str, cutoff: float = 0.6) -> bool:
    """Whether difflib rates `a` and `b` at least `cutoff` alike (rapidfuzz rules most pairs
    out first, as in `close_matches`)."""
    import difflib

    from rapidfuzz import fuzz

    if not fuzz.ratio(a, b, score_cutoff=cutoff * 100 - _ROUNDING):
        return False
    return difflib.SequenceMatcher(None, a, b).ratio() >= cutoff


_ROUNDING = 1e-6  # a ratio of exactly the cutoff, computed in floats, still makes it


def lcs_ratio(a: str, b: str) -> float:
    """rapidfuzz's `fuzz.ratio` (2·LCS / total length, 0–100) without importing rapidfuzz (47
    modules, ~8 ms): for a check that compares a few strings per run (`drifted-copy`), where
    the import cost more than the comparisons. The longest common subsequence by the
    bit-parallel algorithm (Allison–Dix; Hyyrö): one big-integer step per character of `b`,
    each over `len(a)` bits in C — a few milliseconds for two 2,000-character paragraphs."""
    if not a and not b:
        return 100.0
    masks: dict[str, int] = {}
    for i, char in enumerate(a):
        masks[char] = masks.get(char, 0) | 1 << i
    full = (1 << len(a)) - 1
    row = full  # a set bit: no common subsequence ends at that position of `a` yet
    for char in b:
        matched = row & masks.get(char, 0)
        row = ((row + matched) | (row - matched)) & full
    common = len(a) - row.bit_count()
    return 200.0 * common / (len(a) + len(b))


def _deletes(name: str) -> set[str]:
    return {name[:i] + name[i + 1 :] for i in range(len(name))}


class NameIndex:
    """Short strings (file base names, directory names), looked up by edit-distance neighbours.

    Keys are lower-cased; `close(query)` returns the indexed names (as written) that difflib
    finds close to `query`, best first."""

    def __init__(self, names: Iterable[str]) -> None:
        # deletion key (by its hash: ints are a third of the memory of the strings, and a
        # collision only adds a candidate the similarity then rejects) → name, or names
        self._by_key: dict[int, str | list[str]] = {}
        self._names: dict[str, list[str]] = {}  # lower-cased name → names as written
        # sorted: which `MAX_CANDIDATES` neighbours a query gets depends on the order names
        # were added, and a suggestion must not change with the order a set was iterated in
        # (string hashes differ per process: the same check once said `a3/…`, once `a9/…`)
        for name in sorted(names):
            lower = name.lower()
            written = self._names.get(lower)
            if written is not None:
                if name not in written:
                    written.append(name)
                continue
            self._names[lower] = [name]
            keys = {lower} if len(lower) > MAX_INDEXED_LENGTH else {lower, *_deletes(lower)}
            for key in keys:
                hashed = hash(key)
                held = self._by_key.get(hashed)
                if held is None:
                    self._by_key[hashed] = lower
                elif isinstance(held, str):
                    self._by_key[hashed] = [held, lower]
                else:
                    held.append(lower)

    def __len__(self) -> int:
        return len(self._names)

    def neighbours(self, query: str) -> list[str]:
        """Indexed lower-cased names within about two edits of `query` (capped)."""
        lower = query.lower()
        keys = {lower, *_deletes(lower)}
        if len(lower) <= MAX_DELETE_QUERY:
            for once in list(keys - {lower}):
                keys |= _deletes(once)
        found: dict[str, None] = {}
        for key in sorted(keys, key=lambda k: (-len(k), k)):  # fewest deletions first
            held = self._by_key.get(hash(key), ())
            for name in (held,) if isinstance(held, str) else held:
                found[name] = None
                if len(found) >= MAX_CANDIDATES:
                    return list(found)
        return list(found)

    def close(self, query: str, n: int = 3, cutoff: float = 0.6,
              judged: bool = True) -> list[str]:
        """Up to `n` indexed names at least `cutoff` like `query`, best first."""
        pool = self.neighbours(query)
        lowered = close_matches(query.lower(), pool, n=n, cutoff=cutoff, judged=judged)
        return [written for lower in lowered for written in self._names[lower]][:n]


class DirectoryIndex:
    """Every directory of a file list, with look-ups by leaf name and by a fuzzy walk down.

    Directories are written `a/b/` (root-relative, with a trailing slash), as globs write
    literal prefixes."""

    def __init__(self, files: Iterable[str]) -> None:
        directories: set[str] = set()
        for path in files:
            slash = path.rfind("/")
            while slash > 0:
                parent = path[:slash]
                if parent in directories:
                    break
                directories.add(parent)
                slash = parent.rfind("/")
        self._children: dict[str, dict[str, str]] = {}  # parent ('' = root) → name → child
        self._by_leaf: dict[str, list[str]] = {}  # lower-cased leaf name → directories
        for directory in sorted(directories):
            parent, _, leaf = directory.rpartition("/")
            self._children.setdefault(parent, {})[leaf] = directory
            self._by_leaf.setdefault(leaf.lower(), []).append(directory)
        self._leaves = NameIndex(d.rpartition("/")[2] for d in directories)

    def __contains__(self, directory: object) -> bool:
        if not isinstance(directory, str):
            return False
        parent, _, leaf = directory.rstrip("/").rpartition("/")
        return leaf in self._children.get(parent, {})

    def ending_with(self, tail: str, limit: int = 16) -> list[str]:
        """Up to `limit` directories whose path ends with the segments of `tail` (`a/b/`),
        as `x/a/b/`: those named like the first segment, followed down by the others. The
        scan is capped (`MAX_SCANNED`), so a tail such as `src/lib/` in a workspace with
        20,000 `src` directories costs the same as any other."""
        segments = [s for s in tail.strip("/").split("/") if s]
        if not segments:
            return []
        found: list[str] = []
        for start in self._by_leaf.get(segments[0].lower(), ())[:MAX_SCANNED]:
            directory: str | None = start
            for segment in segments[1:]:
                directory = self._children.get(directory, {}).get(segment) if directory else None
            if directory is not None and directory.rpartition("/")[2] == segments[-1]:
                found.append(directory + "/")
                if len(found) >= limit:
                    break
        return found

    def near(self, prefix: str, limit: int = 3) -> list[str]:
        """Existing directories most like the missing `prefix` (`a/b/`), best first.

        Two kinds of candidates: a walk down the tree that follows each written segment, or
        the few children closest to it where it does not exist (typos anywhere in the path);
        and directories whose last name is the written last name or close to it (a directory
        moved or a level added or dropped), ranked by their similarity over the whole path."""
        segments = [s for s in prefix.strip("/").split("/") if s]
        if not segments:
            return []
        written = "/".join(segments)
        walked = [d for d in self._walk(segments) if d != written]
        best = close_matches(written, walked, n=limit, cutoff=0.6)
        if len(best) < limit:
            moved: dict[str, None] = {}
            for leaf in self._leaves.close(segments[-1], n=8, cutoff=0.6, judged=False):
                for directory in self._by_leaf.get(leaf.lower(), ())[:MAX_CANDIDATES]:
                    if directory != written and directory not in best:
                        moved[directory] = None
            # the similarity of whole paths is the slow part: rank the candidates by the names
            # they share with the written path first, and judge only the best few
            wanted = set(segments)
            pool = sorted(moved, key=lambda d: -len(wanted.intersection(d.split("/"))))
            best += close_matches(
                written, pool[:MAX_RANKED], n=limit - len(best), cutoff=0.6
            )
        return [b + "/" for b in best]

    def _walk(self, segments: list[str], beam: int = 3, limit: int = 3) -> list[str]:
        """Up to `limit` directories reached by following `segments` down the tree: the
        written name where it exists, else (or when that leads nowhere) one of the `beam`
        closest children. Depth first, exact names first; the close names of a level are
        looked up only when the walk comes back to it, at most `MAX_FUZZY` times a query, so
        a deep path with its typo near the top costs a few look-ups, not one per level."""
        found: list[str] = []
        fuzzy_left = MAX_FUZZY
        # (depth, directory, its options: None until needed)
        stack: list[tuple[int, str]] = [(0, "")]
        tried: dict[tuple[int, str], list[str] | None] = {}
        while stack and len(found) < limit:
            depth, directory = stack.pop()
            if depth == len(segments):
                found.append(directory)
                continue
            segment = segments[depth]
            children = self._children.get(directory, {})
            key = (depth, directory)
            if key not in tried:
                # first visit: the written name only; come back for close names after it
                tried[key] = None
                stack.append((depth, directory))
                if segment in children:
                    stack.append((depth + 1, children[segment]))
                continue
            if tried[key] is not None or fuzzy_left <= 0:
                continue
            fuzzy_left -= 1
            close = [n for n in self._close_children(children, segment, beam) if n != segment]
            tried[key] = close
            stack.extend((depth + 1, children[name]) for name in reversed(close))
        return found

    def _close_children(self, children: dict[str, str], segment: str, beam: int) -> list[str]:
        if len(children) <= MAX_CANDIDATES:
            return close_matches(segment, children, n=beam, cutoff=0.6, judged=False)
        # a huge directory: ask the leaf index, then keep the names this directory has
        close = self._leaves.close(segment, n=MAX_CANDIDATES, cutoff=0.6, judged=False)
        return [name for name in close if name in children][:beam]


# Extensions that make a missing import target look like a file someone meant to import (a
# word like `@alice` or `@scope/pkg` is a mention, a decorator or an npm scope).
FILE_EXTENSIONS = frozenset({
    "md", "mdx", "mdc", "txt", "rst", "json", "jsonc", "yaml", "yml", "toml", "ini", "cfg",
    "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "rb", "go", "rs", "java", "kt", "cs", "swift",
    "sh", "sql", "html", "css", "scss", "xml", "lock", "env", "example", "sample",
})


def looks_like_file(
    files: FileIndex,
    importer: str,
    path: str,
    explicit: tuple[str, ...] = ("./", "../", "/", "~/"),
) -> bool:
    """Whether a missing `@path` was meant as a file: written relative or absolute (`explicit`
    prefixes, which differ by import dialect), a known extension, or a first directory that
    exists next to the importer."""
    if path.startswith(explicit):
        return True
    last = path.rstrip("/").rsplit("/", 1)[-1]
    if "." in last and last.rsplit(".", 1)[-1].lower() in FILE_EXTENSIONS:
        return True
    if "/" in path:
        first = path.split("/", 1)[0]
        base = posixpath.dirname(importer)
        directory = posixpath.join(base, first) if base else first
        return bool(files.under(directory + "/"))
    return False
