"""Trust: only the user widens what Rulemap reads (docs/security.md). A repository's own
`allowImportsFrom` is ignored and reported (`untrusted-config`); the user grants through their
configuration file, `--allow-imports-from` or the editor's user settings."""

import os

import pytest

from rulemap import analysis
from rulemap.analysis import new_workspace
from rulemap.config import (
    Config,
    ConfigError,
    load_config_text,
    load_user_config_text,
    parse_config,
    parse_user_config,
)
from rulemap.host.user_config import flag_grants, merge_grants, read_user_grants, user_config_path
from rulemap.readers import MemoryReader

SECRET_FILES = {"AGENTS.md": "# p\n@~/.ssh/id_rsa\n", "/home/u/.ssh/id_rsa": "PRIVATE KEY"}


def untrusted(ws):
    return [(f.path, f.span.start.line, f.span.start.col, f.span.end.col, f.severity)
            for f in analysis.check(ws) if f.code == "untrusted-config"]


# ----- parsing a repository's configuration ---------------------------------------------------


def test_repository_parse_never_fills_the_user_grant():
    config = parse_config({"allowImportsFrom": ["~", "/"], "maxChars": 10}, "rulemap.toml")
    assert config.allow_imports_from == ()
    assert config.top_level == {"maxChars": 10}
    assert [(i.key, i.value) for i in config.ignored] == [("allowImportsFrom", ["~", "/"])]


def test_repository_value_is_ignored_whatever_its_type():
    # ignored, so not validated: a wrong type is no configuration error either
    config = parse_config({"allowImportsFrom": "~"}, "rulemap.toml")
    assert config.allow_imports_from == () and config.ignored[0].value == "~"


def test_key_position_in_rulemap_toml():
    text = '# mine\nmaxChars = 100\n  allowImportsFrom = ["~"]\n'
    config = load_config_text("rulemap.toml", text, "/w/rulemap.toml")
    assert config is not None and config.allow_imports_from == ()
    [item] = config.ignored
    assert (item.file, item.line, item.start, item.end) == ("rulemap.toml", 2, 2, 18)


@pytest.mark.parametrize(
    ("text", "line", "start"),
    [
        ('[project]\nname = "x"\nallowImportsFrom = 1\n[tool.rulemap]\nallowImportsFrom = ["~"]\n',
         4, 0),
        ('[tool]\nrulemap.allowImportsFrom = ["~"]\n', 1, 8),
        ('[tool."rulemap"]\n"allowImportsFrom" = ["~"]\n', 1, 1),
        ('tool = {rulemap = {allowImportsFrom = ["~"]}}\n', 0, 19),  # inline: first mention
    ],
)
def test_key_position_in_pyproject(text, line, start):
    config = load_config_text("pyproject.toml", text, "/w/pyproject.toml")
    assert config is not None and config.allow_imports_from == ()
    [item] = config.ignored
    assert (item.file, item.line, item.start, item.end) == (
        "pyproject.toml", line, start, start + len("allowImportsFrom"))


# ----- the workspace ----------------------------------------------------------------------------


def test_repository_grant_is_ignored_and_reported():
    files = {**SECRET_FILES, "rulemap.toml": 'maxChars = 900\nallowImportsFrom = ["~"]\n'}
    ws = analysis.open_workspace("/w", reader=MemoryReader("/w", files), home="/home/u")
    e = analysis.explain(ws)
    assert [f.path for f in e.files] == ["AGENTS.md"]
    assert "PRIVATE KEY" not in e.render()
    assert "/home/u/.ssh/id_rsa" in [s.path for s in e.skipped]
    assert analysis.explain(ws).budget.limit == 900  # the rest of the file still applies
    assert untrusted(ws) == [("rulemap.toml", 1, 0, 16, "warning")]
    [finding] = [f for f in analysis.check(ws) if f.code == "untrusted-config"]
    assert "--allow-imports-from" in finding.message and "config.toml" in finding.message
    assert "rulemap.allowImportsFrom" in finding.message and '["~"]' in finding.message


def test_user_grant_loads_and_the_repository_one_is_still_reported():
    files = {**SECRET_FILES, "rulemap.toml": 'allowImportsFrom = ["/"]\n'}
    ws = analysis.open_workspace(
        "/w", reader=MemoryReader("/w", files), home="/home/u", allow_imports_from=["~/.ssh"]
    )
    assert [f.path for f in analysis.explain(ws).files] == ["AGENTS.md", "/home/u/.ssh/id_rsa"]
    assert ws.config.allow_imports_from == ("~/.ssh",)
    assert untrusted(ws) == [("rulemap.toml", 0, 0, 16, "warning")]


def test_folder_settings_overrides_cannot_grant():
    ws = analysis.open_workspace(
        "/w",
        reader=MemoryReader("/w", SECRET_FILES),
        overrides={"allowImportsFrom": ["~"], "maxChars": 50},
        home="/home/u",
        allow_imports_from=["~/elsewhere"],
    )
    assert ws.config.allow_imports_from == ("~/elsewhere",)
    assert analysis.explain(ws).budget.limit == 50
    assert [f.path for f in analysis.explain(ws).files] == ["AGENTS.md"]
    assert untrusted(ws) == []  # not from a file of the repository


def test_no_finding_without_the_key():
    files = {**SECRET_FILES, "rulemap.toml": "maxChars = 900\n"}
    ws = analysis.open_workspace("/w", reader=MemoryReader("/w", files), home="/home/u")
    assert untrusted(ws) == []


def test_severity_table_applies_like_everywhere():
    # Decision (docs/security.md): silencing the warning grants nothing, so [severity] may.
    files = {
        **SECRET_FILES,
        "rulemap.toml": 'allowImportsFrom = ["~"]\n[severity]\nuntrusted-config = "off"\n',
    }
    ws = analysis.open_workspace("/w", reader=MemoryReader("/w", files), home="/home/u")
    assert untrusted(ws) == []
    assert [f.path for f in analysis.explain(ws).files] == ["AGENTS.md"]


def test_core_config_field_is_the_grant():
    reader = MemoryReader("/w", SECRET_FILES)
    ws = new_workspace(reader, Config(allow_imports_from=("~/.ssh",)), home="/home/u")
    assert [f.path for f in analysis.explain(ws).files] == ["AGENTS.md", "/home/u/.ssh/id_rsa"]


# ----- the user's configuration file ------------------------------------------------------------


def test_user_config_parses_the_grant():
    assert load_user_config_text('allowImportsFrom = ["~/notes", "/srv/x", "~"]\n', "u") == (
        "~/notes", "/srv/x", "~")
    assert load_user_config_text("", "u") == ()


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"allowImportsFrom": ["relative/dir"]}, "absolute"),
        ({"allowImportsFrom": ["~bob/x"]}, "absolute"),
        ({"allowImportsFrom": "~"}, "list of strings"),
        ({"allowImportFrom": ["~"]}, "did you mean `allowImportsFrom`"),
        ({"maxChars": 5}, "holds only allowImportsFrom"),
    ],
)
def test_user_config_errors_name_the_file_and_key(data, needle):
    with pytest.raises(ConfigError) as info:
        parse_user_config(data, "/home/u/.config/rulemap/config.toml")
    assert needle in str(info.value) and "/home/u/.config/rulemap/config.toml" in str(info.value)


def test_user_config_invalid_toml():
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_user_config_text("allowImportsFrom = [", "u.toml")


def test_user_config_path_precedence(tmp_path):
    home = os.path.expanduser("~")
    assert user_config_path({}) == (os.path.join(home, ".config/rulemap/config.toml"), False)
    assert user_config_path({"XDG_CONFIG_HOME": "relative"})[0].startswith(home)
    xdg = str(tmp_path / "xdg")
    assert user_config_path({"XDG_CONFIG_HOME": xdg}) == (f"{xdg}/rulemap/config.toml", False)
    mine = str(tmp_path / "mine.toml")
    assert user_config_path({"XDG_CONFIG_HOME": xdg, "RULEMAP_CONFIG": mine}) == (mine, True)


def test_read_user_grants(tmp_path):
    xdg = tmp_path / "xdg"
    assert read_user_grants({"XDG_CONFIG_HOME": str(xdg)}) == ()  # no file: no grant
    (xdg / "rulemap").mkdir(parents=True)
    (xdg / "rulemap" / "config.toml").write_text('allowImportsFrom = ["~/notes"]\n')
    assert read_user_grants({"XDG_CONFIG_HOME": str(xdg)}) == ("~/notes",)
    with pytest.raises(ConfigError, match="RULEMAP_CONFIG"):
        read_user_grants({"RULEMAP_CONFIG": str(tmp_path / "missing.toml")})
    with pytest.raises(ConfigError, match="it is a directory"):
        read_user_grants({"RULEMAP_CONFIG": str(tmp_path)})
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):  # and no hang
        read_user_grants({"RULEMAP_CONFIG": str(fifo)})
    (tmp_path / "bad.toml").write_bytes(b"allowImportsFrom = ['\xff']\n")
    with pytest.raises(ConfigError, match="UTF-8"):
        read_user_grants({"RULEMAP_CONFIG": str(tmp_path / "bad.toml")})


def test_flag_grants(tmp_path):
    assert flag_grants(["~", "~/x", "/abs", "rel/dir"], cwd=str(tmp_path)) == (
        "~", "~/x", "/abs", str(tmp_path / "rel/dir"))
    assert flag_grants(None) == ()
    assert merge_grants(["~/a", "/b"], ["/b", "/c"]) == ("~/a", "/b", "/c")
