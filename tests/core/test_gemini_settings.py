"""Gemini CLI's own `context.fileName` (docs/profiles/gemini.md, "Gemini's settings files"):
the project's `.gemini/settings.json` in the cwd and the user's `~/.gemini/settings.json`,
JSON with comments, a string or a list, the names before `GEMINI.md` (which stays), the
project's over the user's; rulemap.toml's `fileNames` over both; the findings on them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rulemap.analysis import new_workspace, open_workspace
from rulemap.config import parse_config
from rulemap.host import AnalysisHost
from rulemap.host.cache.pickled_workspace import reshapes
from rulemap.host.file_events import classify_events
from rulemap.profiles import get_profile, is_agent_settings, validate_options
from rulemap.profiles.gemini.paths import names_of, settings_names
from rulemap.profiles.gemini.settings import parse_settings, strip_json_comments
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace

GEMINI = get_profile("gemini")
SETTINGS = ".gemini/settings.json"


def make(
    files: Mapping[str, str | bytes],
    home: Mapping[str, str] | None = None,
    toml: Mapping[str, Any] | None = None,
    **options: Any,
) -> Workspace:
    config = parse_config(toml, "/w/rulemap.toml") if toml is not None else None
    return new_workspace(
        MemoryReader("/w", files),
        config=config,
        profile_options=None if toml is not None else validate_options(
            {"gemini": options}, "test"),
        home_reader=MemoryReader("/h", home) if home is not None else None,
    )


def settings(value: object) -> str:
    return json.dumps({"context": {"fileName": value}}, indent=2) + "\n"


def rows(ws: Workspace, target: str | None = None) -> list[str]:
    return [f.path for f in GEMINI.explain(ws, target, ".").files]


def findings(ws: Workspace) -> list[tuple[str, int, str]]:
    return sorted((f.path, f.span.start.line, f.code) for f in GEMINI.findings(ws))


# ----- reading a settings file ----------------------------------------------------------------


def test_comments_are_blanked_as_strip_json_comments_does():
    text = '{\n  // a comment "x"\n  "a": "//not", /* b */ "c": "/*no*/"\n}\n'
    stripped = strip_json_comments(text)
    assert json.loads(stripped) == {"a": "//not", "c": "/*no*/"}
    assert stripped.count("\n") == text.count("\n") and len(stripped) == len(text)
    # an escaped quote does not end the string; \r\n ends a line comment
    assert json.loads(strip_json_comments('{"a": "x\\"//y"}')) == {"a": 'x"//y'}
    assert json.loads(strip_json_comments('{// c\r\n"a": 1}')) == {"a": 1}
    assert strip_json_comments("{} /* open") == "{}        "


def test_a_string_or_a_list():
    assert parse_settings(SETTINGS, "project", settings("AGENTS.md")).names == ("AGENTS.md",)
    assert parse_settings(SETTINGS, "project", settings(["A.md", " B.md ", "A.md"])).names == (
        "A.md", "B.md")
    assert parse_settings(SETTINGS, "project", '{"context": {}}').names is None
    # an empty string or list is set (it replaces the user's) but names nothing
    assert parse_settings(SETTINGS, "project", settings("")).names == ()
    assert parse_settings(SETTINGS, "project", settings([])).names == ()
    ws = make({SETTINGS: settings("")}, home={SETTINGS: settings(["AGENTS.md"])})
    assert names_of(ws, GEMINI) == ("GEMINI.md",)


def test_the_line_of_the_setting():
    text = '{\n  "context": {\n    // names\n    "fileName": ["AGENTS.md"]\n  }\n}\n'
    assert parse_settings(SETTINGS, "project", text).line == 3


def test_a_trailing_comma_or_nan_is_not_json():
    bad = parse_settings(SETTINGS, "project", '{\n  "context": {"fileName": ["A.md",]}\n}\n')
    assert bad.error is not None and bad.line == 1 and bad.names is None
    assert parse_settings(SETTINGS, "project", '{"a": NaN}').error is not None
    assert parse_settings(SETTINGS, "project", "[1]").error == "not a JSON object"
    assert parse_settings(SETTINGS, "project", '\ufeff{}').error is not None  # JSON.parse too


def test_a_value_of_the_wrong_type_is_unusable():
    got = parse_settings(SETTINGS, "project", settings(["A.md", 3]))
    assert got.names is None and got.invalid is not None and got.error is None


# ----- the names in force ---------------------------------------------------------------------


def test_the_default_is_gemini_md():
    ws = make({"GEMINI.md": "g", "AGENTS.md": "a"})
    assert names_of(ws, GEMINI) == ("GEMINI.md",)
    assert settings_names(ws, GEMINI).source == "default"
    assert rows(ws) == ["GEMINI.md"]


def test_project_setting_names_come_before_gemini_md_which_stays():
    ws = make({SETTINGS: settings(["AGENTS.md"]), "AGENTS.md": "a", "GEMINI.md": "g"})
    assert names_of(ws, GEMINI) == ("AGENTS.md", "GEMINI.md")
    assert rows(ws) == ["AGENTS.md", "GEMINI.md"]
    assert GEMINI.reads(ws, "pkg/AGENTS.md")


def test_a_string_setting():
    ws = make({SETTINGS: settings("CONTEXT.md"), "CONTEXT.md": "c"})
    assert names_of(ws, GEMINI) == ("CONTEXT.md", "GEMINI.md")
    assert rows(ws) == ["CONTEXT.md"]


def test_gemini_md_named_in_the_setting_keeps_its_place():
    ws = make({SETTINGS: settings(["GEMINI.md", "AGENTS.md"])})
    assert names_of(ws, GEMINI) == ("GEMINI.md", "AGENTS.md")


def test_user_setting_under_home():
    ws = make({"AGENTS.md": "a"}, home={SETTINGS: settings("AGENTS.md")})
    assert names_of(ws, GEMINI) == ("AGENTS.md", "GEMINI.md")
    assert rows(ws) == ["AGENTS.md"]
    assert names_of(make({"AGENTS.md": "a"}), GEMINI) == ("GEMINI.md",)  # no --home


def test_project_over_user_a_list_replaces_a_list():
    ws = make({SETTINGS: settings(["CONTEXT.md"])}, home={SETTINGS: settings(["AGENTS.md"])})
    assert names_of(ws, GEMINI) == ("CONTEXT.md", "GEMINI.md")
    # a project file that does not set it leaves the user's in force
    ws = make({SETTINGS: '{"ui": {}}'}, home={SETTINGS: settings(["AGENTS.md"])})
    assert names_of(ws, GEMINI) == ("AGENTS.md", "GEMINI.md")


def test_the_settings_of_the_configured_cwd():
    files = {"pkg/" + SETTINGS: settings("AGENTS.md"), SETTINGS: settings("ROOT.md")}
    ws = make(files, toml={"cwd": "pkg"})
    assert names_of(ws, GEMINI) == ("AGENTS.md", "GEMINI.md")


def test_rulemap_file_names_win_as_the_whole_list():
    ws = make({SETTINGS: settings(["AGENTS.md"])}, fileNames=["CONTEXT.md"])
    assert names_of(ws, GEMINI) == ("CONTEXT.md",)
    ws = make({SETTINGS: settings(["AGENTS.md"])},
              toml={"profiles": {"gemini": {"fileNames": ["GEMINI.md"]}}})
    assert names_of(ws, GEMINI) == ("GEMINI.md",)


def test_a_malformed_project_file_is_left_out_of_the_load_with_a_note():
    ws = make({SETTINGS: '{"context": {"fileName": "AGENTS.md",}}', "AGENTS.md": "a",
               "GEMINI.md": "g"}, home={SETTINGS: settings("CONTEXT.md")})
    assert names_of(ws, GEMINI) == ("CONTEXT.md", "GEMINI.md")  # the user's then
    notes = " ".join(GEMINI.explain(ws, None, ".").notes)
    assert "refuses to start" in notes and SETTINGS in notes


def test_the_explanation_says_where_the_names_come_from():
    ws = make({SETTINGS: settings(["AGENTS.md"]), "AGENTS.md": "a"})
    notes = " ".join(GEMINI.explain(ws, None, ".").notes)
    assert "`context.fileName` of .gemini/settings.json (line 3)" in notes
    assert "context file names" not in " ".join(GEMINI.explain(make({}), None, ".").notes)


def test_why_advises_the_first_configured_name():
    ws = make({SETTINGS: settings(["AGENTS.md"]), "src/a.ts": "x"})
    homes = GEMINI.homes(ws, "src/a.ts", ".")
    assert [h.path for h in homes] == ["AGENTS.md", "src/AGENTS.md"]
    assert [h.path for h in GEMINI.homes(make({"src/a.ts": "x"}), None, ".")] == ["GEMINI.md"]


# ----- detection ------------------------------------------------------------------------------


def test_detected_by_a_project_settings_file_that_sets_the_names():
    ws = make({SETTINGS: settings(["AGENTS.md"]), "AGENTS.md": "a"})
    assert GEMINI.detected_by(ws) == SETTINGS
    assert GEMINI.detection_reads(ws) == (SETTINGS,)
    # one that sets something else does not; a GEMINI.md does
    assert GEMINI.detected_by(make({SETTINGS: '{"ui": {}}', "AGENTS.md": "a"})) is None
    assert GEMINI.detected_by(make({SETTINGS: '{"ui": {}}', "a/GEMINI.md": "g"})) == (
        "a/GEMINI.md")


def test_the_users_settings_never_select_it():
    ws = make({"AGENTS.md": "a"}, home={SETTINGS: settings(["AGENTS.md"])})
    assert GEMINI.detected_by(ws) is None


def test_a_settings_file_gemini_cannot_use_selects_it():
    """Gemini refuses to start there: the check says so."""
    assert GEMINI.detected_by(make({SETTINGS: "{", "AGENTS.md": "a"})) == SETTINGS
    assert GEMINI.detected_by(make({SETTINGS: settings(5)})) == SETTINGS


# ----- findings -------------------------------------------------------------------------------


def test_malformed_project_settings_is_an_error_on_its_line():
    ws = make({SETTINGS: '{\n  "context": {"fileName": ["A.md",]}\n}\n', "GEMINI.md": "g"})
    [finding] = GEMINI.findings(ws)
    assert (finding.path, finding.span.start.line, finding.code, finding.severity) == (
        SETTINGS, 1, "invalid-agent-settings", "error")
    assert "refuses to start" in finding.message and "trailing commas" in finding.message


def test_a_value_of_the_wrong_type_is_an_error():
    ws = make({SETTINGS: settings(5), "GEMINI.md": "g"})
    assert findings(ws) == [(SETTINGS, 2, "invalid-agent-settings")]


def test_the_users_malformed_settings_say_nothing():
    assert findings(make({"GEMINI.md": "g"}, home={SETTINGS: "{"})) == []


def test_a_gemini_md_the_names_in_force_leave_out_is_never_read():
    toml = {"profiles": {"gemini": {"fileNames": ["AGENTS.md"]}}}
    ws = make({"AGENTS.md": "a", "GEMINI.md": "# G\n", "pkg/GEMINI.md": "p",
               "rulemap.toml": '[profiles.gemini]\nfileNames = ["AGENTS.md"]\n'}, toml=toml)
    got = [f for f in GEMINI.findings(ws) if f.code == "unread-context-file"]
    assert [(f.path, f.severity) for f in got] == [("GEMINI.md", "warning"),
                                                    ("pkg/GEMINI.md", "warning")]
    message = got[0].message
    assert "never read by Gemini CLI" in message and '"GEMINI.md"' in message
    assert "rulemap.toml (line 2)" in message and "into AGENTS.md" in message
    assert [(r.path, r.span.start.line) for r in got[0].related] == [("rulemap.toml", 1)]


def test_gemini_settings_never_leave_gemini_md_unread():
    ws = make({SETTINGS: settings(["AGENTS.md"]), "AGENTS.md": "a", "GEMINI.md": "g"})
    assert [f for f in GEMINI.findings(ws) if f.code == "unread-context-file"] == []


# ----- an edit of the settings file -----------------------------------------------------------


def test_a_settings_file_reshapes_like_the_configuration():
    assert is_agent_settings(SETTINGS) and is_agent_settings("pkg/" + SETTINGS)
    assert not is_agent_settings(".claude/settings.json")
    assert reshapes(["/w/.gemini/settings.json"]) and not reshapes(["/w/AGENTS.md"])


def test_a_name_with_a_directory_is_found_below_each_directory_of_the_walk():
    """memoryDiscovery.ts joins each name to each directory: `frontend/AGENTS.md` at the root
    loads at start-up, after the root's own names."""
    ws = make({SETTINGS: settings(["AGENTS.md", "frontend/AGENTS.md"]), "AGENTS.md": "a",
               "frontend/AGENTS.md": "f", "GEMINI.md": "g"})
    assert rows(ws) == ["AGENTS.md", "frontend/AGENTS.md", "GEMINI.md"]


def test_why_advises_no_name_with_a_directory():
    ws = make({SETTINGS: settings(["frontend/AGENTS.md", "CONTEXT.md"]), "src/a.ts": "x"})
    assert [h.path for h in GEMINI.homes(ws, "src/a.ts", ".")] == [
        "CONTEXT.md", "src/CONTEXT.md"]


def test_a_watched_event_on_the_settings_file_re_opens_the_folder(tmp_path: Path) -> None:
    """The editor's path: an event on `.gemini/settings.json` is a configuration change (the
    server re-opens the folder), and its content matters even when it is no document."""
    (tmp_path / ".gemini").mkdir()
    (tmp_path / SETTINGS).write_text(settings(["AGENTS.md"]))
    (tmp_path / "AGENTS.md").write_text("a\n")
    snap = AnalysisHost(open_workspace(str(tmp_path))).snapshot()
    batch = classify_events(snap, [("changed", str(tmp_path / SETTINGS))])
    assert batch.config_changed and batch.changed == {SETTINGS}
    assert snap.content_matters(SETTINGS)
    assert not classify_events(snap, [("changed", str(tmp_path / "AGENTS.md"))]).config_changed


def test_the_legacy_context_file_name_key_is_ignored_and_reported():
    """v0.25.0 (#16252) removed the migration of the flat settings: a top-level
    `contextFileName` is read by no current release, so Gemini reads GEMINI.md only."""
    text = '{\n  "autoAccept": true,\n  "contextFileName": "AGENTS.md"\n}\n'
    ws = make({SETTINGS: text, "AGENTS.md": "a", "GEMINI.md": "g"})
    assert names_of(ws, GEMINI) == ("GEMINI.md",)
    [finding] = [f for f in GEMINI.findings(ws) if f.code == "invalid-agent-settings"]
    assert (finding.path, finding.span.start.line, finding.severity) == (SETTINGS, 2, "warning")
    assert '"context": {"fileName": ["AGENTS.md"]}' in finding.message
    # naming the default changes nothing: nothing to say
    quiet = make({SETTINGS: '{"contextFileName": "GEMINI.md"}', "GEMINI.md": "g"})
    assert [f for f in GEMINI.findings(quiet) if f.code == "invalid-agent-settings"] == []
