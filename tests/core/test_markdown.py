from functools import partial

from rulemap.profiles.cogitator.settings import IMPORTS
from rulemap.text import markdown

# the scanner finds the imports of the syntax it is given: here the default model's `@path`
scan = partial(markdown.scan, imports=IMPORTS)


def paths(text: str) -> list[str]:
    return [i.path for i in scan(text).imports]


def test_import_at_line_start_and_after_whitespace():
    assert paths("@a.md and see @b.md\n\t@c.md") == ["a.md", "b.md", "c.md"]


def test_mid_word_at_is_no_import():
    assert paths("mail user@example.com or x@y.md") == []


def test_path_runs_to_next_whitespace_so_punctuation_is_part_of_it():
    assert paths("See @docs/a.md, then") == ["docs/a.md,"]


def test_a_token_in_link_text_ends_at_the_closing_bracket():
    # `[Name @handle](url)`: the link's text is what the agent's lexer scans (biome's
    # CONTRIBUTING.md lists maintainers so); the URL is never part of the path
    refs = scan("- [Arend @arendjr](https://github.com/arendjr)\n[see @docs/a.md](x)").imports
    assert [(r.path, r.span.end.col - r.span.start.col) for r in refs] == [
        ("arendjr", 8), ("docs/a.md", 10)]
    assert paths("@a](b) @c]d") == ["a", "c]d"]


def test_escaped_space():
    refs = scan(r"@my\ notes.md next").imports
    assert [(r.raw, r.path) for r in refs] == [(r"my\ notes.md", "my notes.md")]


def test_code_spans_and_fences_hide_imports():
    text = "`@a.md` ``x @b.md`` @c.md\n```\n@d.md\n```\n~~~~\n@e.md\n~~~\n@f.md\n~~~~\n@g.md\n"
    assert paths(text) == ["c.md", "g.md"]


def test_unclosed_fence_runs_to_end():
    assert paths("```\n@a.md\n") == []


def test_unmatched_backtick_is_literal():
    assert paths("a ` @b.md") == ["b.md"]


def test_html_comments_hide_imports_and_block_comments_are_recorded():
    result = scan("x\n<!-- note @a.md\nmore -->\ntext <!-- @b.md --> @c.md\n")
    assert [i.path for i in result.imports] == ["c.md"]
    assert result.comment_lines == {1, 2}


def test_lone_at_is_no_import():
    assert paths("@ alone\n@") == []


def test_spans_are_code_point_columns():
    ref = scan("😀 中 @a.md").imports[0]
    assert (ref.span.start.line, ref.span.start.col, ref.span.end.col) == (0, 4, 9)


def test_crlf_lines():
    refs = scan("one\r\n@a.md\r\n").imports
    assert refs[0].span.start.line == 1 and refs[0].path == "a.md"


def test_suppression_directives():
    result = scan(
        "<!-- rulemap-disable-next-line broken-import -->\n\n@x.md\n"
        "<!-- rulemap-disable unmatched-glob, budget-overflow -->\n"
    )
    assert result.suppressions.suppressed("broken-import", 2)
    assert not result.suppressions.suppressed("broken-import", 3)
    assert result.suppressions.suppressed("budget-overflow", 0)
    assert not result.suppressions.suppressed("import-cycle", 0)


def test_bare_disable_suppresses_everything():
    assert scan("<!-- rulemap-disable -->").suppressions.suppressed("anything", 9)
