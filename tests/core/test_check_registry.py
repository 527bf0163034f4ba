"""The check registry (rulemap.checks.registry) is the one list of check codes, and nothing
drifts from it:

- what the checks emit: every finding over the conformance fixtures and the demo, with each
  agent selected, has a registered code and a severity the registry allows (its default or a
  declared variant), names only an agent the code concerns, and carries a quick fix only when
  the registry says it has one; every emit site in the source (`Finding(` calls) agrees with the
  registry's severities and agents, both ways;
- what is derived from it: `fixes.SAFE_CODES`, SARIF's `tool.driver.rules`, and
  docs/checks.md (the table `scripts/update_checks_doc.py` writes, one `## code` section per
  code).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from rulemap import analysis, fixes
from rulemap.checks.registry import CHECKS, DOCS_URL, EVERY_AGENT, Check, codes_where
from rulemap.cli import commands
from rulemap.config import ConfigError
from rulemap.host.snapshot import workspace_of
from rulemap.model import SEVERITIES, Finding
from rulemap.profiles import PROFILES

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "server" / "rulemap"
CHECKS_DOC = REPO / "docs" / "checks.md"


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# the conformance runner builds a case's workspace (home, symlinks, generated files) as the CLI
# tests see it; the script writes docs/checks.md's table
conformance = _load(REPO / "tests" / "test_conformance.py", "conformance_runner")
update_checks_doc = _load(REPO / "scripts" / "update_checks_doc.py", "update_checks_doc")

# each agent's findings appear only when it is selected, and some only when it is the only one
# (an import no selected agent follows): the configuration's own selection, every agent, then
# each alone
SELECTIONS: list[tuple[str, ...] | None] = [None, tuple(PROFILES), *((p,) for p in PROFILES)]


# ----------------------------------------------------------------------------- what is emitted


def _problems(findings: list[Finding]) -> list[str]:
    out = []
    for f in findings:
        check = CHECKS.get(f.code)
        where = f"{f.path}:{f.span.start.line + 1}: {f.severity} {f.code}"
        if check is None:
            out.append(f"{where}: the code is not registered")
            continue
        if f.severity not in check.severities:
            out.append(f"{where}: the registry allows {sorted(check.severities)}; declare a "
                       f"Variant or emit the default")
        if f.profile is not None and not check.concerns(f.profile):
            out.append(f"{where}: emitted for {f.profile}, not among its agents {check.agents}")
        if f.fixes and check.fix == "none":
            out.append(f"{where}: carries a quick fix but the registry says fix='none'")
    return out


def _raw_findings(root: Path, selection: tuple[str, ...] | None) -> list[Finding]:
    """Every finding of `root` as the checks emit it: the configuration's `[severity]`
    overrides are dropped (the demo turns duplicate-load into a hint)."""
    ws = workspace_of(commands.open_host(str(root), profiles=selection).snapshot())
    ws.config = replace(ws.config, severity={})
    return analysis.check(ws)


@pytest.fixture
def no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("RULEMAP_CONFIG", raising=False)
    monkeypatch.delenv("RULEMAP_PROFILE", raising=False)
    return home


@pytest.mark.slow  # every conformance case, end to end
@pytest.mark.parametrize("case_dir", conformance.CASES, ids=lambda p: p.name)
def test_every_finding_of_a_conformance_case_is_registered_as_emitted(
    case_dir: Path, tmp_path: Path, no_user_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case, dirs = conformance.build(case_dir, tmp_path / "case")
    # the case's home/ is the home directory, and its user configuration file, as in the CLI's
    monkeypatch.setenv("HOME", str(dirs["home"]))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(dirs["home"] / ".config"))
    problems: list[str] = []
    for selection in SELECTIONS:
        try:
            findings = _raw_findings(dirs["workspace"], selection)
        except ConfigError:
            # a case about a bad configuration: the CLI stops with exit 2 before any check,
            # as the case itself expects; nothing is emitted, so nothing can drift
            assert case["expect"].get("exit_code") == 2, f"{case_dir.name}: unexpected ConfigError"
            return
        problems += [f"{selection or 'configured'}: {p}" for p in _problems(findings)]
    assert not problems, "\n".join(sorted(set(problems)))


@pytest.mark.parametrize("selection", SELECTIONS, ids=lambda s: ",".join(s) if s else "configured")
def test_every_finding_of_the_demo_is_registered_as_emitted(
    selection: tuple[str, ...] | None, no_user_config: Path
) -> None:
    findings = _raw_findings(REPO / "examples" / "demo", selection)
    assert findings  # the demo plants problems
    problems = _problems(findings)
    assert not problems, "\n".join(problems)


def test_a_drifted_finding_is_reported() -> None:
    from rulemap.model import Span

    at = Span.at(0, 0)
    assert _problems([Finding("a.md", at, "error", "broken-import", "m")]) == []
    assert _problems([Finding("a.md", at, "information", "broken-import", "m")]) == []
    drifted = [
        Finding("a.md", at, "hint", "broken-import", "m"),  # no such variant
        Finding("a.md", at, "warning", "no-such-code", "m"),
        Finding("a.md", at, "warning", "file-too-large", "m", profile="codex"),
    ]
    assert len(_problems(drifted)) == 3


# ----------------------------------------------------------------------------- the emit sites


def _owner(path: Path) -> str:
    """`checks` for a shared family (and for the findings every agent's files get, written
    once in `profiles/base.py`), else the profile whose module (`profiles/copilot.py`) or
    package (`profiles/claude_code/`) holds the emit site."""
    if PACKAGE / "checks" in path.parents or path == PACKAGE / "profiles" / "base.py":
        return "checks"
    for name, profile in PROFILES.items():
        home = Path(inspect.getfile(type(profile)))
        if home.parent != PACKAGE / "profiles":
            home = home.parent  # a package: every module in it is the profile's
        if path == home or home in path.parents:
            return name
    raise AssertionError(f"{path} emits a finding but is neither checks/ nor a profile's")


def _literal_severities(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = _literal_severities(node.body), _literal_severities(node.orelse)
        return None if body is None or orelse is None else [*body, *orelse]
    return None


def _emit_sites() -> list[tuple[str, int, str, str, list[str]]]:
    """(file, line, owner, code, severities) of every `Finding(...)` in the package."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "Finding"):
                continue
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            args = {**dict(zip(("path", "span", "severity", "code"), node.args, strict=False)),
                    **{k.arg: k.value for k in node.keywords if k.arg}}
            code, severity = args.get("code"), args.get("severity")
            assert isinstance(code, ast.Constant) and isinstance(code.value, str), (
                f"{where}: the code is not a literal; the registry test cannot see it")
            severities = _literal_severities(severity) if severity is not None else None
            assert severities is not None, (
                f"{where}: the severity is not a literal (or a conditional of literals)")
            out.append((where, node.lineno, _owner(path), code.value, severities))
    return out


EMIT_SITES = _emit_sites()


def test_every_emit_site_uses_a_registered_code_and_severity() -> None:
    problems = []
    for where, _, _, code, severities in EMIT_SITES:
        check = CHECKS.get(code)
        if check is None:
            problems.append(f"{where}: `{code}` is not registered")
            continue
        problems += [f"{where}: {code} as {s}, not in {sorted(check.severities)}"
                     for s in severities if s not in check.severities]
    assert not problems, "\n".join(problems)


def test_every_declared_severity_is_emitted_somewhere() -> None:
    """No stale variant: a severity the registry allows is one some emit site uses."""
    emitted: dict[str, set[str]] = {}
    for _, _, _, code, severities in EMIT_SITES:
        emitted.setdefault(code, set()).update(severities)
    for code, check in CHECKS.items():
        assert set(check.severities) == emitted.get(code, set()), code


def test_the_agents_of_a_code_are_where_it_is_emitted() -> None:
    """A code a shared family emits concerns every agent; any other code lists exactly the
    profiles that emit it."""
    owners: dict[str, set[str]] = {}
    for _, _, owner, code, _ in EMIT_SITES:
        owners.setdefault(code, set()).add(owner)
    for code, check in CHECKS.items():
        if "checks" in owners[code]:
            assert check.agents == EVERY_AGENT, (code, owners[code])
        else:
            assert check.agents != EVERY_AGENT and set(check.agents) == owners[code], (
                code, owners[code])
            assert set(check.agents) <= set(PROFILES)


# ----------------------------------------------------------------------------- the registry


def test_the_registry_is_typed_and_frozen() -> None:
    check = CHECKS["broken-import"]
    assert isinstance(check, Check)
    with pytest.raises(AttributeError):
        check.severity = "hint"  # type: ignore[misc]
    for code, check in CHECKS.items():
        assert check.code == code and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", code)
        assert check.severity in SEVERITIES and check.summary and "\n" not in check.summary
        assert check.fix in ("none", "safe", "unsafe")
        assert all(v.severity != check.severity and v.when for v in check.variants), code
        assert check.url == f"{DOCS_URL}#{check.anchor}"


def test_safe_fixes_come_from_the_registry() -> None:
    assert codes_where("safe") == fixes.SAFE_CODES
    assert {"suspicious-import", "instructions-shadowed"} == fixes.SAFE_CODES


def test_no_module_keeps_its_own_list_of_codes() -> None:
    """A set, list, tuple or dict literal naming two registered codes or more is a parallel
    list that drifts (as `fixes.SAFE_CODES` did): derive it from the registry instead. A
    profile's `check_codes` is its own declaration (held against its emit sites by
    test_the_agents_of_a_code_are_where_it_is_emitted)."""
    found = []
    registry = PACKAGE / "checks" / "registry.py"
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == registry:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declared = {
            id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            and [ast.unparse(t) for t in node.targets] == ["check_codes"]
        }
        for node in ast.walk(tree):
            if id(node) in declared:
                continue
            if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
                items: list[ast.expr | None] = list(node.elts)
            elif isinstance(node, ast.Dict):
                items = list(node.keys)
            else:
                continue
            codes = [i.value for i in items if isinstance(i, ast.Constant) and i.value in CHECKS]
            if len(codes) >= 2:
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {codes}")
    assert not found, "\n".join(found)


# ----------------------------------------------------------------------------- SARIF


def test_sarif_rules_are_the_registry(tmp_path: Path, no_user_config: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    from rulemap.cli.main import main

    (tmp_path / "AGENTS.md").write_text("See @docs/missing.md and @alice\n", encoding="utf-8")
    try:
        code = main(["check", str(tmp_path), "--format", "sarif"])
    finally:
        import gc

        gc.enable()  # main() turns the collector off for one-shot commands
    assert code == 1
    run = json.loads(capsys.readouterr().out)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    level = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}
    assert [r["id"] for r in rules] == list(CHECKS)
    for rule, check in zip(rules, CHECKS.values(), strict=True):
        assert rule == {
            "id": check.code,
            "shortDescription": {"text": check.summary},
            "helpUri": f"{DOCS_URL}#{check.anchor}",
            "defaultConfiguration": {"level": level[check.severity]},
        }
    # each result points at its rule, and keeps its own level (a variant's)
    levels = set()
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        levels.add((result["ruleId"], result["level"]))
    assert levels == {("broken-import", "error"), ("broken-import", "note")}


# ----------------------------------------------------------------------------- docs/checks.md


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces
    to `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_table_in_docs_checks_md_is_the_registry() -> None:
    written = update_checks_doc.written(CHECKS_DOC.read_text(encoding="utf-8"))
    assert written is not None, "docs/checks.md lost its <!-- checks:table --> markers"
    assert written == update_checks_doc.table(), (
        f"docs/checks.md's table of checks differs from the registry: run "
        f"`{update_checks_doc.COMMAND}`"
    )


def test_every_code_has_its_section_in_docs_checks_md() -> None:
    headings = re.findall(r"^## (.+)$", CHECKS_DOC.read_text(encoding="utf-8"), re.M)
    anchors = {_slug(h) for h in headings}
    for code, check in CHECKS.items():
        assert f"{code}" in headings, f"docs/checks.md has no `## {code}` section"
        assert check.anchor in anchors, (code, check.anchor)
    # and no section documents a code that is gone
    stale = [h for h in headings if re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", h) and h not in CHECKS]
    assert not stale, f"docs/checks.md documents unregistered codes: {stale}"


def test_a_stale_table_is_found_and_refreshed() -> None:
    doc = "intro\n<!-- checks:table -->\n| old |\n<!-- /checks:table -->\n## broken-import\n"
    fresh = update_checks_doc.refreshed(doc)
    assert update_checks_doc.written(fresh) == update_checks_doc.table()
    assert fresh.startswith("intro\n<!-- checks:table -->\n| code |")
    assert fresh.endswith("<!-- /checks:table -->\n## broken-import\n")
    assert update_checks_doc.refreshed(fresh) == fresh
    with pytest.raises(SystemExit):
        update_checks_doc.refreshed("no markers\n")


def test_the_extensions_severity_setting_knows_every_code() -> None:
    """VS Code's settings editor completes `rulemap.severity` from package.json's properties:
    one per registered code, in the registry's order, each taking every level."""
    text = update_checks_doc.PACKAGE.read_text(encoding="utf-8")
    assert update_checks_doc.package_with_codes(text) == text, (
        f"client-vscode/package.json's rulemap.severity differs from the registry; run "
        f"`{update_checks_doc.COMMAND}`"
    )
    severity = json.loads(text)["contributes"]["configuration"]["properties"]["rulemap.severity"]
    assert list(severity["properties"]) == list(CHECKS)
    levels = severity["additionalProperties"]["enum"]
    assert all(p["enum"] == levels for p in severity["properties"].values())
    assert set(levels) == {"error", "warning", "information", "hint", "off"}


# ------------------------------------------------ a family whose only code is off does not run


def test_each_one_code_family_emits_only_its_code(
    tmp_path: Path, no_user_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`checks.ONE_CODE` skips a family when its code is off: that is only right when the
    family emits nothing else (over the demo and every conformance case, every agent)."""
    from rulemap import checks
    from rulemap.profiles.base import selected

    roots = [REPO / "examples" / "demo"]
    for n, case_dir in enumerate(conformance.CASES):
        case, dirs = conformance.build(case_dir, tmp_path / f"case{n}")
        if case["expect"].get("exit_code") != 2:
            roots.append(dirs["workspace"])
    emitted: dict[str, set[str]] = {}
    for root in roots:
        ws = workspace_of(commands.open_host(str(root), profiles=tuple(PROFILES)).snapshot())
        analysis.select_profiles(ws)
        assert selected(ws)
        for family, code in checks.ONE_CODE.items():
            emitted.setdefault(code, set()).update(f.code for f in family(ws))
    assert all(found <= {code} for code, found in emitted.items()), emitted
    silent = [code for code, found in emitted.items() if not found]
    assert not silent, f"{silent}: emitted nothing, so the test proves nothing of them"


def test_a_family_whose_code_is_off_does_not_run() -> None:
    from core_helpers import make_ws

    from rulemap import checks

    files = {"AGENTS.md": "Run `npm run tets` and read `src/gone.ts`.\n",
             "package.json": '{"scripts": {"test": "vitest"}}', "src/a.ts": "x"}
    on = make_ws(files)
    assert checks.STALE_COMMAND in checks.running(on, checks.GRAPH_WIDE)
    assert {"stale-command", "stale-reference"} <= {f.code for f in analysis.check(on)}
    off = make_ws(files, severity={"stale-command": "off", "stale-reference": "off"})
    running = (*checks.running(off, checks.PER_DOCUMENT), *checks.running(off, checks.GRAPH_WIDE))
    assert checks.STALE_COMMAND not in running
    assert checks.STALE_REFERENCE_DOCUMENT not in running
    assert checks.STALE_REFERENCE_GRAPH not in running
    assert checks.IMPORT_GRAPH in running  # a family of several codes always runs
    assert not {"stale-command", "stale-reference"} & {f.code for f in analysis.check(off)}
    assert checks.document_findings(off, "AGENTS.md") == []
