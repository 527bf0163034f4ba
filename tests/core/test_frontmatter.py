from functools import partial

from rulemap import documents
from rulemap.profiles.cogitator.settings import SYNTAX

# documents read as the default model reads them (`@path` imports, `paths` globs)
parse_document = partial(documents.parse_document, syntax=SYNTAX)


def rule(text: str):
    return parse_document(".claude/rules/r.md", text, is_rule=True)


def test_paths_list_and_spans():
    doc = rule('---\npaths:\n  - "src/**/*.ts"\n  - docs/**\n---\nbody\n')
    assert [g.pattern for g in doc.globs] == ["src/**/*.ts", "docs/**"]
    assert doc.globs[0].span.start.line == 2
    assert doc.brought == "body\n"


def test_comma_string_with_braces():
    doc = rule("---\npaths: 'src/*.{ts,tsx}, docs/**'\n---\nx\n")
    assert [g.pattern for g in doc.globs] == ["src/*.{ts,tsx}", "docs/**"]
    assert doc.globs[0].expanded == ["src/*.ts", "src/*.tsx"]
    line = doc.lines[1]
    span = doc.globs[1].span
    assert line[span.start.col : span.end.col] == "docs/**"


def test_no_paths_is_unconditional():
    doc = rule("---\ndescription: x\n---\nbody")
    assert doc.globs is None and doc.rule_skip is None


def test_unquoted_star_glob_is_invalid_yaml_and_skips_rule():
    doc = rule("---\npaths:\n  - **/*.ts\n---\nbody")
    assert doc.frontmatter.error and "quoted" in doc.frontmatter.error
    assert doc.rule_skip is not None
    assert doc.frontmatter.error_span.start.line == 2


def test_alias_bomb_is_refused():
    bomb = "---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n---\nbody"
    doc = rule(bomb)
    assert doc.frontmatter.error and "aliases" in doc.frontmatter.error


def test_arbitrary_tags_are_refused():
    doc = rule("---\npaths: !!python/object:os.system 'ls'\n---\n")
    assert doc.frontmatter.error


def test_wrong_paths_type_skips_rule():
    doc = rule("---\npaths: 3\n---\nbody")
    assert doc.rule_skip and "paths" in doc.rule_skip


def test_deeply_nested_yaml_does_not_crash():
    doc = rule("---\npaths: " + "[" * 5000 + "]" * 5000 + "\n---\n")
    assert doc.frontmatter.error or doc.rule_skip


def test_leading_hr_in_prose_file_is_not_frontmatter():
    doc = parse_document("AGENTS.md", "---\n@a.md: nope: [\n---\n@b.md\n", is_rule=False)
    assert [i.path for i in doc.imports] == ["a.md:", "b.md"]


# -- the common-shape fast path (text/frontmatter.py `_simple_block`) gives what YAML gives --

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rulemap.text import frontmatter as fm_module  # noqa: E402
from rulemap.text.positions import line_starts, split_lines  # noqa: E402

# scalars the fast path reads (each an edge of YAML's implicit types), then ones it refuses
_READ = st.sampled_from([
    "src/**/*.ts", "packages/*/src/{a,b}/**", "*.md", "true", "false", "False", "yes", "no",
    "on", "off", "~", "null", "1", "-1", "0x1f", "1_000", "1.5", ".inf", "1e3", "<<", "=",
    "a#b", "a  b", "'q'", '"q"', "''", '""', "-x", "a, b", "a,b", "Lib rule 1329", "1:2",
    "0o17", "017", "+1", "a]", "'a: #b'", '"!src/**"', "a:b", "a - b", ".", "...", "a'b",
])
_REFUSED = st.sampled_from([
    "2001-12-14", "a: b", "a:", "a #b", "#x", "'it''s'", '"a\\"b"', '"a\\tb"', "- x",
    "?x", ":x", "&a x", "*a", "!!str 1", "|", ">", "%x", "@x", "`x", "[a, b]", "{a: b}",
    "é", "a\tb", "**/*.ts", "!src/**",
])
_ODD = st.one_of(_REFUSED, st.text(alphabet="ab/*.{},!-:#'\" ~01", min_size=1, max_size=8))
_GOOD_KEYS = st.sampled_from(["paths", "globs", "applyTo", "description", "alwaysApply",
                              "a-b", "_k", "Yes1", "n"])
_KEYS = st.one_of(_GOOD_KEYS, st.sampled_from(["true", "null", "on", "1", "x y", "<<"]))


@st.composite
def _blocks(draw: st.DrawFn) -> str:
    """Mostly blocks of the common shape (each scalar an edge case of YAML's reading); in half
    of them, any key, separator, scalar or line may now and then be one the fast
    path refuses (so both its readings and its refusals are met)."""
    odd = draw(st.booleans())

    def pick(good: st.SearchStrategy[str], bad: st.SearchStrategy[str]) -> str:
        return draw(bad if odd and not draw(st.integers(0, 2)) else good)

    lines: list[str] = []
    for key in draw(st.lists(_GOOD_KEYS, min_size=1, max_size=4, unique=True)):
        key = pick(st.just(key), _KEYS)
        sep = pick(st.just(": "), st.sampled_from([" : ", ":", ":  "]))
        if draw(st.booleans()):
            lines.append(f"{key}{sep}{pick(_READ, _ODD)}{draw(st.sampled_from(['', ' ']))}")
        else:
            lines.append(f"{key}:{draw(st.sampled_from(['', ' ']))}")
            indent = draw(st.sampled_from(["", "  ", "    "]))
            for _ in range(draw(st.integers(0 if odd else 1, 3))):
                ind = pick(st.just(indent), st.just(indent + " "))
                dash = pick(st.sampled_from(["- ", "-  "]), st.just("-"))
                lines.append(f"{ind}{dash}{pick(_READ, _ODD)}")
    if odd and not draw(st.integers(0, 3)):
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(st.sampled_from(["", "# c", "  more", "\tx: y", "- z"])))
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


def _both(text: str, monkeypatch) -> tuple[object, object]:
    lines, starts = split_lines(text), line_starts(text)
    fast = fm_module.parse_frontmatter(lines, starts)
    with monkeypatch.context() as m:
        m.setattr(fm_module, "_simple_block", lambda lines, end: None)
        slow = fm_module.parse_frontmatter(lines, starts)
    return fast, slow


def _typed(value: object) -> object:
    """`True == 1` and `1.0 == 1`: compare types too (and nan by its repr)."""
    if isinstance(value, dict):
        return [(k, _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, repr(value))


@settings(max_examples=600, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_blocks())
def test_simple_frontmatter_reads_as_yaml_does(monkeypatch, text: str) -> None:
    fast, slow = _both(text, monkeypatch)
    assert _typed(fast.data) == _typed(slow.data)
    assert list(fast.key_spans.items()) == list(slow.key_spans.items())
    assert fast.value_spans == slow.value_spans
    assert (fast.error, fast.error_span) == (slow.error, slow.error_span)
    assert fast.span == slow.span and fast.body_offset == slow.body_offset


def test_common_rule_frontmatter_takes_the_fast_path() -> None:
    """Each agent's usual rule header has the shape `_simple_block` reads (else the fast path
    silently stops paying)."""
    for block in (
        'paths:\n  - "src/**"\n  - packages/*/src/*.ts',
        "description: Lib rule 1\nglobs: src/lib/**/*.ts,docs/**\nalwaysApply: false",
        'applyTo: "src/**/*.ts,docs/**"',
    ):
        lines = ["---", *block.split("\n"), "---"]
        assert fm_module._simple_block(lines, len(lines) - 1) is not None


def test_each_edge_scalar_reads_as_yaml_does(monkeypatch) -> None:
    """Every listed scalar, as a key's value and as a list item, beside a plain key (the
    property test meets the rarer ones only now and then)."""
    edges = [*_READ.elements, *_REFUSED.elements]
    for scalar in edges:
        for block in (f"a: x\npaths: {scalar}\nb: y", f"paths:\n  - {scalar}\n  - x\nb: y"):
            fast, slow = _both(f"---\n{block}\n---\n", monkeypatch)
            assert _typed(fast.data) == _typed(slow.data), block
            assert fast.key_spans == slow.key_spans and fast.value_spans == slow.value_spans
            assert (fast.error, fast.error_span) == (slow.error, slow.error_span), block
    for key in ("a", "paths"):  # a repeated key (the fast path leaves it to YAML)
        fast, slow = _both(f"---\n{key}: 1\nb: 2\n{key}: 3\n---\n", monkeypatch)
        assert _typed(fast.data) == _typed(slow.data)
        assert list(fast.key_spans.items()) == list(slow.key_spans.items())
