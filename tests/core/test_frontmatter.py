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
