import pytest

from rulemap.globs import FileIndex, GlobError, compile_patterns, expand_braces, validate


def test_brace_expansion_nested_and_literal():
    assert sorted(expand_braces("a/{b,c{d,e}}/*.{ts,tsx}")) == sorted(
        ["a/b/*.ts", "a/b/*.tsx", "a/cd/*.ts", "a/cd/*.tsx", "a/ce/*.ts", "a/ce/*.tsx"]
    )
    assert expand_braces("a/{b}.md") == ["a/{b}.md"]


def test_brace_expansion_is_capped():
    with pytest.raises(GlobError):
        expand_braces("{a,b}" * 10)


@pytest.mark.parametrize(
    "pattern,path,expected",
    [
        ("*.py", "deep/down/x.py", True),  # slash-less matches at any depth
        ("src/*.ts", "src/a.ts", True),
        ("src/*.ts", "src/x/a.ts", False),  # * does not cross /
        ("src/**/*.ts", "src/x/y/a.ts", True),
        ("src/**/*.ts", "lib/src/a.ts", False),  # anchored
        ("/src/*.ts", "src/a.ts", True),
        ("docs/", "docs/a/b.md", True),
        ("*.PY", "a.py", False),  # case-sensitive
    ],
)
def test_gitignore_semantics(pattern, path, expected):
    assert compile_patterns([pattern]).match(path) is expected


def test_validate():
    assert validate("src/**") is None
    assert "empty" in validate("  ")
    assert validate("../x/*.ts")
    assert validate("src\\a.ts")
    assert validate("a[b")
    assert validate("***/x")


def test_file_index_candidates():
    index = FileIndex(["a/x.ts", "a/b/y.ts", "c/z.ts", "c/z.py", "top.ts"])
    assert index.candidates("", "a/**/*.ts") == ["a/b/y.ts", "a/x.ts"]
    assert sorted(index.candidates("", "*.py")) == ["c/z.py"]
    assert index.candidates("c", "*.ts") == ["c/z.ts"]
    index.add("a/new.ts")
    assert "a/new.ts" in index.candidates("", "a/*.ts")
    index.remove("a/new.ts")
    assert "a/new.ts" not in index
