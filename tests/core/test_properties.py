"""Property tests: the scanner and the frontmatter parser never crash, keep ranges inside the
text, and never find imports inside code."""

from functools import partial

from hypothesis import given, settings
from hypothesis import strategies as st

from rulemap import documents
from rulemap.profiles.cogitator.settings import IMPORTS, SYNTAX
from rulemap.text import markdown

# the scanner and the parser read the default model's syntax (`@path` imports, `paths` globs)
scan = partial(markdown.scan, imports=IMPORTS)
parse_document = partial(documents.parse_document, syntax=SYNTAX)

ALPHABET = st.sampled_from(
    list("@ab/.`~-<>!\n\t \\:,[]{}*#😀中\r\"'") + ["```", "~~~", "<!--", "-->", "---\n"]
)
texts = st.lists(ALPHABET, max_size=80).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_scanner_never_crashes_and_ranges_are_inside(text):
    result = scan(text)
    lines = result.lines
    for ref in result.imports:
        assert 0 <= ref.span.start.line < len(lines)
        line = lines[ref.span.start.line]
        assert 0 <= ref.span.start.col < ref.span.end.col <= len(line)
        assert line[ref.span.start.col] == "@"
        assert text[ref.offset] == "@"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["@a.md", "x", " ", "\n", "`", "y@b.md", "\n\n"]), max_size=30).map(
        "".join
    )
)
def test_imports_never_inside_fences_or_spans(body):
    text = f"```\n{body.replace('```', '')}\n```\n`{body.replace('`', '').replace(chr(10), ' ')}`\n"
    assert scan(text).imports == []


@settings(max_examples=300, deadline=None)
@given(texts, texts)
def test_rule_parser_never_crashes(front, body):
    doc = parse_document(".claude/rules/r.md", f"---\n{front}\n---\n{body}", is_rule=True)
    assert doc.frontmatter.present
    for glob in doc.globs or []:
        assert glob.span.start.line < len(doc.lines)
    if doc.frontmatter.error_span:
        assert doc.frontmatter.error_span.start.line < len(doc.lines)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_decode_or_explain(data):
    from rulemap.text.decoding import decode

    text, why = decode(data)
    assert (why is None) or text == ""
