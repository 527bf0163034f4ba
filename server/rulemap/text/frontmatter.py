"""YAML frontmatter, parsed safely and within bounds.

Only the standard YAML tags are constructed (SafeLoader), aliases are refused (an alias bomb
expands exponentially in whoever walks the result), and the block is size-limited. Node marks
give the position of every key and of every `paths` item for diagnostics.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulemap.model import Frontmatter, Pos, Span
from rulemap.text.lazy_pattern import lazy_pattern

if TYPE_CHECKING:
    import yaml
    from yaml.nodes import Node

# yaml (14 ms of imports) is imported by the first frontmatter parsed: a workspace without
# one never pays for it (tests/core/test_startup_imports.py)

MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_NESTING = 64
_CLOSE = lazy_pattern(r"^(---|\.\.\.)[ \t]*$")


@functools.cache
def _bounded_loader() -> Any:
    """The pure-Python loader that refuses aliases while composing (built on first use)."""
    import yaml

    class _BoundedLoader(yaml.SafeLoader):
        def compose_node(self, parent: Node | None, index: int) -> Node | None:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(
                    None, None, "YAML aliases are not allowed in frontmatter",
                    event.start_mark
                )
            return super().compose_node(parent, index)

    return _BoundedLoader


def _refuse_aliases(root: Node) -> None:
    """libyaml composes an alias as the same node object again: any node met twice is one."""
    import yaml
    from yaml.nodes import MappingNode, SequenceNode

    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            raise yaml.composer.ComposerError(
                None, None, "YAML aliases are not allowed in frontmatter", node.start_mark
            )
        seen.add(id(node))
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                stack.extend((key, value))


def _compose_and_construct(source: str) -> tuple[Node | None, object]:
    """Parse with libyaml when present (a C parser: 10x faster on every keystroke), else
    with the pure-Python loader that refuses aliases while composing."""
    import yaml

    c_loader = getattr(yaml, "CSafeLoader", None)
    if c_loader is not None:
        fast = c_loader(source)
        try:
            node = fast.get_single_node()
            if node is not None:
                _refuse_aliases(node)
            return node, fast.construct_document(node) if node is not None else None
        finally:
            fast.dispose()
    slow = _bounded_loader()(source)
    try:
        node = slow.get_single_node()
        return node, slow.construct_document(node) if node is not None else None
    finally:
        slow.dispose()


def frontmatter_end(lines: list[str]) -> int | None:
    """Index of the closing fence line, or None when the file has no frontmatter."""
    if not lines or lines[0].rstrip() != "---":
        return None
    for number in range(1, len(lines)):
        if _CLOSE.match(lines[number]):
            return number
    return None


def parse_frontmatter(lines: list[str], starts: list[int]) -> Frontmatter:
    end = frontmatter_end(lines)
    if end is None:
        return Frontmatter(present=False, data=None)
    block_span = Span(Pos(0, 0), Pos(end, len(lines[end])))
    body_offset = starts[end + 1] if end + 1 < len(starts) else starts[end] + len(lines[end])
    source = "\n".join(lines[1:end])
    result = Frontmatter(present=True, data=None, span=block_span, body_offset=body_offset)
    if len(source) > MAX_FRONTMATTER_CHARS:
        result.error = f"frontmatter is larger than {MAX_FRONTMATTER_CHARS // 1024} KiB"
        result.error_span = Span.at(0, 0, 3)
        return result
    if _max_bracket_depth(source) > MAX_NESTING:
        result.error = f"frontmatter is nested more than {MAX_NESTING} levels deep"
        result.error_span = Span.at(0, 0, 3)
        return result
    simple = _simple_block(lines, end)
    if simple is not None:
        result.data, result.key_spans, result.value_spans = simple
        return result
    import yaml
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    try:
        node, data = _compose_and_construct(source)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = 1 + (mark.line if mark else 0)
        col = mark.column if mark else 0
        line = min(line, end)
        result.error = _yaml_message(exc)
        result.error_span = Span(Pos(line, col), Pos(line, max(col + 1, len(lines[line]))))
        return result
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        result.error = (
            f"invalid YAML: {exc}"
            if not isinstance(exc, RecursionError)
            else ("frontmatter is nested too deeply")
        )
        result.error_span = Span.at(0, 0, 3)
        return result
    if data is None:
        data = {}
    if not isinstance(data, dict):
        result.error = "frontmatter must be a mapping of keys to values"
        result.error_span = Span(Pos(1, 0), Pos(1, len(lines[1]) if end > 1 else 0))
        return result
    result.data = {str(k): v for k, v in data.items()}
    if isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            result.key_spans[key] = _node_span(key_node)
            if isinstance(value_node, SequenceNode):
                result.value_spans[key] = [_node_span(item) for item in value_node.value]
            elif isinstance(value_node, ScalarNode):
                result.value_spans[key] = [_node_span(value_node)]
    return result


def _max_bracket_depth(source: str) -> int:
    """Flow-collection nesting depth (quotes ignored: an over-estimate is harmless here)."""
    openers = source.count("[") + source.count("{")
    if openers <= MAX_NESTING:
        return openers  # not the depth, but as far over or under the limit (a Python loop
        # over every character was 7 µs a rule)
    depth = deepest = 0
    for ch in source:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


def _node_span(node: Node) -> Span:
    start = node.start_mark
    end = node.end_mark
    return Span(Pos(start.line + 1, start.column), Pos(end.line + 1, end.column))


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    problem = exc.problem or exc.context or "invalid YAML"
    if "found character '*'" in problem or "expected alphabetic or numeric" in problem:
        return (
            f"invalid YAML: {problem} (a glob that starts with `*` must be quoted, "
            'e.g. `- "**/*.ts"`)'
        )
    if "aliases are not allowed" in problem:
        return problem
    return f"invalid YAML: {problem}"


# The common frontmatter, read without a YAML parser: one `key: scalar` or `key:` and its
# `- scalar` items per line, every scalar on one line (plain, or quoted without escapes). A
# rule's frontmatter is nearly always this; libyaml's node marks cost ~40 µs a rule (80 ms
# of a 2,000-rule check). Whatever else the block holds (comments, blank lines, flow or
# block scalars, anchors, tags, escapes, continuation lines, tabs, non-ASCII, a repeated
# key) goes to the YAML path. Plain scalars are resolved by YAML's own resolver and built
# by its own constructors, so a value reads as YAML reads it (`false`, `1`, `~`); the
# property test in tests/core/test_frontmatter.py holds both paths to the same result.
_KEY_LINE = lazy_pattern(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(\S.*?))? *")
_ITEM_LINE = lazy_pattern(r"( *)- +(\S.*?) *")
_QUOTED = lazy_pattern(r"\"[^\"\\]*\"|'[^']*'")
_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
_STR_TAG = "tag:yaml.org,2002:str"
_NOT_SIMPLE = object()


@functools.cache
def _scalar_reading() -> tuple[Any, Any, dict[str, Callable[[Any, Any], object]], Any]:
    """YAML's resolver, its safe constructor, the constructors of the implicit scalar tags
    and the scalar node class, made when the first frontmatter is read (yaml is imported
    by that parse, never at start-up)."""
    from yaml.constructor import SafeConstructor
    from yaml.nodes import ScalarNode
    from yaml.resolver import Resolver

    constructed = {
        f"tag:yaml.org,2002:{name}": SafeConstructor.yaml_constructors[
            f"tag:yaml.org,2002:{name}"]
        for name in ("bool", "int", "float", "null")
    }
    return Resolver(), SafeConstructor(), constructed, ScalarNode


def _implicit_tag(plain: str) -> str:
    """The tag YAML resolves a plain scalar to (`false` → bool, `1` → int, ...)."""
    resolver, _, _, scalar_node = _scalar_reading()
    tag: str = resolver.resolve(scalar_node, plain, (True, False))
    return tag


def _scalar(text: str) -> object:
    """The value of a one-line scalar as YAML reads it, or `_NOT_SIMPLE`."""
    if _QUOTED.fullmatch(text):
        return text[1:-1]
    if text[0] in _PLAIN_START or "#" in text or ": " in text or text.endswith(":"):
        return _NOT_SIMPLE
    tag = _implicit_tag(text)
    if tag == _STR_TAG:
        return text
    _, constructor, constructed, scalar_node = _scalar_reading()
    build = constructed.get(tag)
    return _NOT_SIMPLE if build is None else build(constructor, scalar_node(tag, text))


def _simple_block(
    lines: list[str], end: int
) -> tuple[dict[str, object], dict[str, Span], dict[str, list[Span]]] | None:
    """`parse_frontmatter`'s data, key spans and value spans for lines 1..end-1 when they
    have the common shape above, else None."""
    if end < 2:
        return None
    data: dict[str, object] = {}
    key_spans: dict[str, Span] = {}
    value_spans: dict[str, list[Span]] = {}
    number = 1
    while number < end:
        line = lines[number]
        if not (line.isascii() and line.isprintable()):
            return None
        keyed = _KEY_LINE.fullmatch(line)
        if keyed is None:
            return None
        key, text = keyed.group(1, 2)
        if key in data or _implicit_tag(key) != _STR_TAG:
            return None
        key_spans[key] = Span(Pos(number, 0), Pos(number, len(key)))
        number += 1
        if text is not None:
            value = _scalar(text)
            if value is _NOT_SIMPLE:
                return None
            data[key] = value
            col = keyed.start(2)
            value_spans[key] = [Span(Pos(number - 1, col), Pos(number - 1, col + len(text)))]
            continue
        items: list[object] = []
        spans: list[Span] = []
        indent: str | None = None
        while number < end:
            line = lines[number]
            if not (line.isascii() and line.isprintable()):
                return None
            item = _ITEM_LINE.fullmatch(line)
            if item is None:
                break
            if indent is None:
                indent = item.group(1)
            elif item.group(1) != indent:
                return None
            value = _scalar(item.group(2))
            if value is _NOT_SIMPLE:
                return None
            items.append(value)
            col = item.start(2)
            spans.append(Span(Pos(number, col), Pos(number, col + len(item.group(2)))))
            number += 1
        if not items:
            return None  # `key:` alone is null: its mark is libyaml's to give
        data[key] = items
        value_spans[key] = spans
    return data, key_spans, value_spans
