"""Lean start-up: each command imports only what it needs.

Every run of `rulemap` pays for its imports before it does anything (a 20,000-file check spent
~160 ms importing). Each test runs one command in a fresh interpreter and lists the modules it
imported (`sys.modules` when the command is done): a heavy module creeping into a command's
imports, say a top-level `import rich` in a module `check` imports, fails here. Module lists,
not import times: times are too noisy on a shared machine to assert.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# run `rulemap ARGV...` (rulemap.cli.main.main, what `python -m rulemap` runs) and write its
# exit code, then the names of the modules imported, one a line, to $RULEMAP_MODULES_OUT
# (the probe imports nothing itself: `json` in the list is the command's)
PROBE = """\
import os, sys
from rulemap.cli.main import main
code = None
try:
    code = main(sys.argv[1:])
except SystemExit as exc:  # --help, --version, a usage error
    code = exc.code
finally:
    with open(os.environ["RULEMAP_MODULES_OUT"], "w", encoding="utf-8") as out:
        out.write("\\n".join([str(code), *sorted(sys.modules)]))
"""

# the language server and what only it needs
SERVER = ("pygls", "lsprotocol", "cattrs", "asyncio", "watchdog", "rulemap.lsp")
# terminal tables (explain, compare, session, verify print them)
RICH = ("rich",)
# the other commands' engines and CLI modules
OTHER_COMMANDS = (
    "rulemap.verify", "rulemap.diff", "rulemap.session", "rulemap.compare",
    "rulemap.graph_export", "rulemap.cli.session", "rulemap.cli.verify", "rulemap.cli.diff",
    "rulemap.cli.diff_markdown", "rulemap.cli.compare_table", "rulemap.cli.explain_table",
)
# git is read only for --ref / diff (the server's asyncio imports subprocess itself)
GIT_READERS = ("rulemap.readers.git", "rulemap.readers.git_process")
GIT = (*GIT_READERS, "subprocess")
# the engine: the agents' profiles, the checks, and what they parse with
ENGINE = (
    "rulemap.profiles", "rulemap.checks", "rulemap.workspace", "rulemap.analysis",
    "rulemap.host", "rulemap.config", "rulemap.model", "yaml", "pathspec", "tomllib",
)


def imported(args: list[str], cwd: Path) -> tuple[int, set[str]]:
    """`rulemap args` run in a fresh interpreter from `cwd`: its exit code and every module it
    imported."""
    out = cwd / "modules.json"
    env = {k: v for k, v in os.environ.items() if k not in ("RULEMAP_CONFIG", "COLUMNS")}
    env["XDG_CONFIG_HOME"] = str(cwd / ".no-user-config")
    env["PYTHONPATH"] = str(REPO / "server")
    env["RULEMAP_MODULES_OUT"] = str(out)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=120, check=False,
    )
    assert out.exists(), done.stderr
    code, *modules = out.read_text(encoding="utf-8").split("\n")
    return int(code), set(modules)


def modules_after(code: str, tmp_path: Path) -> set[str]:
    """Every module imported once `code` ran in a fresh interpreter (the engine on its path)."""
    out = tmp_path / "modules.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO / "server"), "RULEMAP_MODULES_OUT": str(out)}
    probe = (f"import os, sys\n{code}\n"
             "open(os.environ['RULEMAP_MODULES_OUT'], 'w').write('\\n'.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return set(out.read_text(encoding="utf-8").split("\n"))


def loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    """The modules of `modules` that are one of `packages` or inside one."""
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("# Project\n\nSee @docs/style.md and @docs/missing.md\n")
    (root / "CLAUDE.md").write_text("@AGENTS.md\n")
    (root / "docs").mkdir()
    (root / "docs" / "style.md").write_text("Use tabs.\n")
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".claude" / "rules" / "api.md").write_text(
        "---\npaths: [\"src/api/**\"]\n---\nValidate input.\n"
    )
    return root


def test_check_json_imports_neither_the_server_nor_rich_nor_other_commands(tree: Path) -> None:
    code, modules = imported(["check", str(tree), "--format", "json"], tree.parent)
    assert code == 1  # the broken import is an error: the check really ran
    assert "rulemap.checks" in modules and "rulemap.cli.formats" in modules
    assert loaded(modules, SERVER + RICH + OTHER_COMMANDS + GIT) == []
    # the other formats' writers: text (its wrapping), the fixer
    assert loaded(modules, ("rulemap.cli.check_text", "rulemap.cli.fix")) == []


def test_check_text_imports_no_server_and_no_rich(tree: Path) -> None:
    code, modules = imported(["check", str(tree)], tree.parent)
    assert code == 1
    assert "rulemap.cli.check_text" in modules
    assert loaded(modules, SERVER + RICH + OTHER_COMMANDS + GIT) == []


def test_explain_json_imports_no_table_and_no_server(tree: Path) -> None:
    code, modules = imported(["explain", "--root", str(tree), "--json"], tree.parent)
    assert code == 0
    assert loaded(modules, SERVER + RICH + GIT) == []
    assert loaded(modules, ("rulemap.cli.explain_table", "rulemap.cli.session",
                            "rulemap.cli.verify", "rulemap.cli.diff", "rulemap.verify")) == []


def test_version_imports_no_engine(tmp_path: Path) -> None:
    code, modules = imported(["--version"], tmp_path)
    assert code == 0
    assert loaded(modules, ENGINE + SERVER + RICH + OTHER_COMMANDS + GIT) == []
    assert loaded(modules, ("rulemap.cli.commands", "rulemap.cli.formats", "json")) == []


def test_parsing_serve_imports_no_engine_and_no_cli(tmp_path: Path) -> None:
    """What `rulemap serve` imports before the server's own modules: its parser only, picked
    by name (rulemap/__main__.py) — nothing of the CLI, the engine or the server (the server
    then imports the engine it needs, never the CLI's formatters or rich)."""
    probe = (
        "import sys\n"
        "from rulemap.lsp.command_line import build_parser\n"
        "assert build_parser().parse_args(['serve', '--stdio']).command == 'serve'\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO / "server"))
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    modules = set(done.stdout.split())
    assert "rulemap.lsp.command_line" in modules  # the probe ran
    server = tuple(m for m in SERVER if m != "rulemap.lsp")
    assert loaded(modules, ENGINE + server + RICH + OTHER_COMMANDS + GIT) == []
    assert loaded(modules, ("rulemap.cli", "rulemap.lsp.server")) == []


def test_the_server_imports_no_cli_and_no_rich(tmp_path: Path) -> None:
    probe = "import sys, rulemap.lsp.server\nprint('\\n'.join(sorted(sys.modules)))\n"
    env = dict(os.environ, PYTHONPATH=str(REPO / "server"))
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    modules = set(done.stdout.split())
    assert "pygls" in modules
    assert loaded(modules, RICH + ("rulemap.cli",) + OTHER_COMMANDS + GIT_READERS) == []


@pytest.mark.parametrize("args", [["--help"], ["check", "--help"]])
def test_help_imports_no_other_command(args: list[str], tmp_path: Path) -> None:
    """Help names the agents, so it asks the registry (the engine); but no other command's
    modules, and nothing of the server."""
    code, modules = imported(args, tmp_path)
    assert code == 0
    assert loaded(modules, SERVER + RICH + OTHER_COMMANDS + GIT) == []
    assert loaded(modules, ("rulemap.cli.commands", "rulemap.cli.formats")) == []


def test_a_check_with_nothing_to_suggest_imports_no_fuzzy_matcher(tree: Path) -> None:
    # rapidfuzz (47 modules) is for "did you mean" only: a clean workspace never needs it
    (tree / "AGENTS.md").write_text("# Project\n\nSee @docs/style.md\n")
    (tree / "src" / "api").mkdir(parents=True)
    (tree / "src" / "api" / "routes.ts").write_text("export {}\n")  # the rule's glob matches
    code, modules = imported(["check", str(tree), "--format", "json"], tree.parent)
    assert code == 0
    assert loaded(modules, ("rapidfuzz",)) == []


def test_a_json_check_of_a_broken_import_imports_no_fuzzy_matcher(tree: Path) -> None:
    # the closest existing path is a did-you-mean: a program reading JSON does not pay for it
    (tree / "AGENTS.md").write_text("# Project\n\nSee @docs/styel.md\n")
    code, modules = imported(["check", str(tree), "--format", "json"], tree.parent)
    assert code == 1  # the broken import is an error
    assert loaded(modules, ("rapidfuzz",)) == []
    code, modules = imported(["check", str(tree), "--format", "json", "--suggest"], tree.parent)
    assert code == 1 and loaded(modules, ("rapidfuzz",)) != []  # asked for: worked out


def test_the_language_server_starts_without_the_engine(tmp_path: Path) -> None:
    """`rulemap serve` publishes from its start cache before a folder is indexed: importing the
    server must not import the profiles, the checks, the workspace or the analysis (they
    come with the first indexing, or the first request that needs them)."""
    modules = modules_after("import rulemap.lsp.server", tmp_path)
    assert "rulemap.lsp.server" in modules and "pygls" in modules  # the probe ran
    heavy = ("rulemap.profiles", "rulemap.checks", "rulemap.workspace", "rulemap.analysis",
             "rulemap.host.snapshot", "rulemap.documents", "yaml",
             # the walk's reader and its glob engine come after the cached diagnostics
             "rulemap.readers.local", "pathspec")
    assert loaded(modules, heavy) == []


def test_every_request_of_the_server_names_a_function_that_exists() -> None:
    """The server imports a request's module when it is first asked (`custom_handler`): a
    misspelt module or function would only fail then, so resolve them all here."""
    from rulemap.lsp.requests import CUSTOM, custom_handler

    for method in CUSTOM:
        assert callable(custom_handler(method)), method


def test_the_servers_own_settings_are_read_without_the_engine(tmp_path: Path) -> None:
    """A client's settings naming only what the server itself reads (the debounce, the hover,
    a grant) are parsed before the start cache publishes, without importing the engine; a
    setting of the engine's is still checked by it."""
    out = tmp_path / "modules.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO / "server"), "RULEMAP_MODULES_OUT": str(out)}
    probe = (
        "import os, sys\nfrom rulemap.lsp.settings import parse_settings\n"
        "settings, errors = parse_settings({'diagnostics': {'debounceMs': 0}, 'hover': "
        "{'sourceFiles': 'firstLine'}, 'trace': {'server': 'off'}, 'maxChars': None})\n"
        "assert not errors and settings.debounce_ms == 0, errors\n"
        "open(os.environ['RULEMAP_MODULES_OUT'], 'w').write('\\n'.join(sorted(sys.modules)))\n"
        "_, errors = parse_settings({'maxChars': 'big', 'profile': 'nobody', 'maxchars': 1})\n"
        "assert len(errors) == 3 and 'maxChars' in errors[0] and 'nobody' in errors[1] "
        "and 'did you mean `maxChars`' in errors[2], errors\n")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    modules = set(out.read_text(encoding="utf-8").split("\n"))
    assert "rulemap.lsp.settings" in modules  # the probe ran
    assert loaded(modules, ("rulemap.analysis", "rulemap.profiles", "rulemap.host.catalog",
                            "rulemap.checks")) == []


def _view_imports() -> set[str]:
    """The modules the editor's views import inside a function (on their first use): the
    view modules' own functions and the server's `@server.feature` handlers."""
    lsp = REPO / "server" / "rulemap" / "lsp"
    found: set[str] = set()
    sources = [lsp / "reach_lens.py", lsp / "reverse.py", *sorted((lsp / "features").glob("*.py"))]
    for path in [*sources, lsp / "server.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if path.name == "server.py" and not any(
                "server.feature" in ast.unparse(d) for d in fn.decorator_list
            ):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found.add(node.module)
                elif isinstance(node, ast.Import):
                    found.update(alias.name for alias in node.names)
    return found


def test_the_views_import_nothing_on_their_first_use(tmp_path: Path) -> None:
    """A module a hover, a lens or a reverse view imports inside a function is imported by
    the server's preload (`lsp/preload.py`, once the folders are indexed), not by the user's
    first hover: "who sees this paragraph" importing `rulemap.unseen` on the first hover made
    it ~15 ms slower than the next one."""
    wanted = _view_imports()
    assert {"rulemap.host.reaching", "rulemap.lsp.reach_lens"} <= wanted  # parsed
    modules = modules_after("from rulemap.lsp.preload import preload_views\npreload_views()",
                            tmp_path)
    # the file watcher is the server's fallback when the client watches nothing (imported
    # then, at start, not on a view's first use)
    assert sorted(wanted - modules - {"rulemap.lsp.watch"}) == []


# ----- a check imports what the workspace and the selected agents use ------------------------

# what only `rulemap session` and `rulemap verify` read: every agent's session-log and
# load-log parsers, and their shared shapes
LOG_READERS = ("rulemap.profiles.load_log", "rulemap.profiles.transcript")
# each agent's own code, as the registry's lines name it (copilot is a module with helpers)
AGENT_PACKAGES = ("rulemap.profiles.cogitator", "rulemap.profiles.mastra",
                  "rulemap.profiles.claude_code", "rulemap.profiles.codex",
                  "rulemap.profiles.gemini", "rulemap.profiles.copilot",
                  "rulemap.profiles.copilot_files", "rulemap.profiles.copilot_globs",
                  "rulemap.profiles.copilot_groups", "rulemap.profiles.cursor")
# the families that emit one code each (checks.ONE_CODE), by the module that runs them
ONE_CODE_MODULES = {
    "duplicate-text": "rulemap.checks.duplicate_text",
    "drifted-copy": "rulemap.checks.drifted_copy",
    "stale-reference": "rulemap.checks.stale_reference",
    "stale-command": "rulemap.checks.stale_command",
    "name-case": "rulemap.checks.name_case",
}


def cold_check(root: Path) -> tuple[int, set[str]]:
    """`rulemap check ROOT --no-cache --format json`: a hit of the result cache would import
    no engine at all, and prove nothing."""
    return imported(["check", str(root), "--no-cache", "--format", "json"], root.parent)


def log_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in LOG_READERS or (
        m.startswith("rulemap.profiles.")
        and m.rsplit(".", 1)[-1] in ("load_log", "transcript", "session")))


def test_a_check_imports_no_session_or_load_log_parser(tree: Path) -> None:
    code, modules = cold_check(tree)
    assert code == 1 and "rulemap.profiles.claude_code.profile" in modules  # it ran
    assert log_modules(modules) == []


def test_a_profiles_log_formats_are_imported_when_read(tmp_path: Path) -> None:
    # the other side of the test above: the formats are there, imported on first read
    modules = modules_after(
        "from rulemap.profiles import PROFILES\n"
        "assert PROFILES['claude-code'].load_log_format is not None\n"
        "assert PROFILES['mastra'].transcript_format is not None\n", tmp_path)
    assert {"rulemap.profiles.claude_code.load_log", "rulemap.profiles.mastra.transcript",
            *LOG_READERS} <= modules


def test_a_one_agent_check_imports_no_other_agents_findings_or_loads(tmp_path: Path) -> None:
    """Detection and the shared checks ask every agent whether it reads a file (its profile);
    what an agent finds, and how it explains a load, are imported only for an agent that is
    selected."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "CLAUDE.md").write_text("# Project\n\nUse tabs.\n")
    code, modules = cold_check(root)
    assert code == 0
    # the agents selected: the default model and Claude Code, whose findings ran
    assert {"rulemap.profiles.claude_code.findings",
            "rulemap.profiles.cogitator.budget_check"} <= modules
    others = [f"rulemap.profiles.{agent}.{part}"
              for agent in ("codex", "gemini", "cursor", "mastra")
              for part in ("findings", "load", "checks")]
    assert sorted(m for m in others if m in modules) == []
    assert log_modules(modules) == []


def test_yaml_is_imported_by_a_frontmatter_only(tree: Path) -> None:
    code, modules = cold_check(tree)  # .claude/rules/api.md has frontmatter
    assert code == 1 and loaded(modules, ("yaml",)) != []
    (tree / ".claude" / "rules" / "api.md").unlink()
    code, modules = cold_check(tree)
    assert code == 1 and "rulemap.text.frontmatter" in modules  # the files were parsed
    assert loaded(modules, ("yaml",)) == []


def test_pathspec_is_imported_by_a_glob_only(tree: Path) -> None:
    # `src/api/**` is matched by its literal prefix (the file index's range, no regex)
    code, modules = cold_check(tree)
    assert code == 1 and "rulemap.globs" in modules
    assert loaded(modules, ("pathspec",)) == []
    # a character class is translated (and checked) by pathspec
    (tree / ".claude" / "rules" / "api.md").write_text(
        "---\npaths: [\"src/[a]pi/**\"]\n---\nValidate input.\n")
    code, modules = cold_check(tree)
    assert code == 1 and loaded(modules, ("pathspec",)) != []
    (tree / ".claude" / "rules" / "api.md").write_text("Validate input.\n")  # no globs
    code, modules = cold_check(tree)
    assert code == 1 and "rulemap.globs" in modules
    assert loaded(modules, ("pathspec",)) == []


def test_tomllib_is_imported_by_a_configuration_file_only(tree: Path) -> None:
    code, modules = cold_check(tree)
    assert code == 1 and "tomllib" not in modules
    (tree / "rulemap.toml").write_text('[severity]\nbroken-import = "warning"\n')
    code, modules = cold_check(tree)
    assert code == 0 and "tomllib" in modules  # read: the error is a warning now


def test_a_check_whose_code_is_off_is_not_imported(tree: Path) -> None:
    code, modules = cold_check(tree)
    assert code == 1
    assert sorted(m for m in ONE_CODE_MODULES.values() if m not in modules) == []
    off = "".join(f'{code} = "off"\n' for code in ONE_CODE_MODULES)
    (tree / "rulemap.toml").write_text(f"[severity]\n{off}")
    code, modules = cold_check(tree)
    assert code == 1 and "rulemap.checks.imports" in modules  # the other families ran
    assert sorted(m for m in ONE_CODE_MODULES.values() if m in modules) == []


def test_the_one_code_modules_are_the_registrys() -> None:
    from rulemap import checks

    names = {family.name.split(".")[0]: code  # type: ignore[attr-defined]
             for family, code in checks.ONE_CODE.items()}
    assert {f"rulemap.checks.{name}": code for name, code in names.items()} == {
        module: code for code, module in ONE_CODE_MODULES.items()}


def test_check_help_imports_no_agent(tmp_path: Path) -> None:
    """`check --help` names the agents (the registry's names) and the default; it makes no
    profile."""
    code, modules = imported(["check", "--help"], tmp_path)
    assert code == 0 and "rulemap.profiles" in modules
    assert loaded(modules, AGENT_PACKAGES) == []


def test_every_registry_line_names_its_profile() -> None:
    from rulemap.profiles import BUILT_IN, PROFILES

    assert tuple(BUILT_IN) == tuple(PROFILES)[:len(BUILT_IN)]
    for name, agent in BUILT_IN.items():
        assert agent.profile().name == name
        assert type(PROFILES[name]).__module__.startswith(
            tuple(p + "." for p in AGENT_PACKAGES) + AGENT_PACKAGES), name
        if agent.facts is None:
            continue
        # its light facts: the same agent's, a class its profile inherits (one answer)
        facts = agent.facts()
        assert facts.name == name and isinstance(PROFILES[name], type(facts)), name
        assert type(facts).__module__ != type(PROFILES[name]).__module__, name


# the agents' profile modules (their loaders, findings and replay come with them), apart from
# their light facts (`<agent>/names.py`, `copilot_names.py`, and the helpers those use)
PROFILE_MODULES = {
    "mastra": ("rulemap.profiles.mastra.profile",),
    "gemini": ("rulemap.profiles.gemini.profile", "rulemap.profiles.gemini.paths"),
    "cursor": ("rulemap.profiles.cursor.profile", "rulemap.profiles.cursor.rules",
               "rulemap.profiles.cursor.agents_md"),
    "copilot": ("rulemap.profiles.copilot", "rulemap.profiles.copilot_globs",
                "rulemap.profiles.copilot_groups"),
}


def test_the_light_facts_answer_without_the_profiles(tree: Path) -> None:
    """Detection, `reads`, own links and options answered by the light facts alone: right,
    and with no profile module of those agents imported."""
    (tree / ".cursor" / "rules").mkdir(parents=True)
    (tree / ".cursor" / "rules" / "a.mdc").write_text("See [x](mdc:docs/gone.md)\n")
    (tree / "GEMINI.md").write_text("# Gemini\n")
    out = tree.parent / "answers.txt"
    modules = modules_after(
        "from rulemap.analysis import open_workspace\n"
        "from rulemap.profiles import PROFILES\n"
        f"ws = open_workspace({str(tree)!r})\n"
        "f = {n: PROFILES.facts_of(n) for n in ('gemini', 'cursor', 'copilot', 'mastra')}\n"
        "answers = [f[n].detected_by(ws) for n in f]\n"
        "answers.append([n for n in f if f[n].reads(ws, 'AGENTS.md')])\n"
        "answers.append([r.path for r, _ in f['cursor'].own_links(ws, "
        "'.cursor/rules/a.mdc')])\n"
        "answers.append(f['gemini'].names_opened(ws))\n"
        f"open({str(out)!r}, 'w').write(repr(answers))\n", tree.parent)
    assert eval(out.read_text()) == [  # noqa: S307 (our own probe's repr)
        "GEMINI.md", ".cursor/rules/a.mdc", None, None,
        ["cursor", "copilot", "mastra"], ["docs/gone.md"], ("GEMINI.md",)]
    # (the `mdc:` link was read: by Cursor's link reader, without its profile)
    assert sorted(m for ms in PROFILE_MODULES.values() for m in ms if m in modules) == [
        "rulemap.profiles.cursor.agents_md"]


def test_a_check_makes_only_the_selected_agents_profiles(tree: Path) -> None:
    """Detection, `drifted-copy`, `stale-reference`, `name-case` and the default options ask
    every agent Rulemap knows (`PROFILES.facts`): a check of an AGENTS.md + CLAUDE.md
    workspace asks Gemini, Cursor, Copilot and Mastra their light facts and imports none of
    their profiles; an agent whose files are there is made."""
    code, modules = cold_check(tree)
    assert code == 1 and "rulemap.profiles.claude_code.profile" in modules  # it ran
    # asked, by their light facts
    assert {"rulemap.profiles.mastra.names", "rulemap.profiles.gemini.names",
            "rulemap.profiles.cursor.names", "rulemap.profiles.copilot_names"} <= modules
    assert sorted(m for ms in PROFILE_MODULES.values() for m in ms if m in modules) == []
    # nor Copilot's and Cursor's rule-header reader: their facts look files up by name only
    assert "rulemap.profiles.rule_files" not in modules
    (tree / "GEMINI.md").write_text("# Gemini\n")
    (tree / ".cursor" / "rules").mkdir(parents=True)
    (tree / ".cursor" / "rules" / "a.mdc").write_text("---\nalwaysApply: true\n---\nx\n")
    code, modules = cold_check(tree)
    assert code == 1
    assert {"rulemap.profiles.gemini.profile", "rulemap.profiles.cursor.profile"} <= modules
    assert sorted(m for agent in ("mastra", "copilot") for m in PROFILE_MODULES[agent]
                  if m in modules) == []


# what matches rules or resolves a session step: imported by the first rule or step, not by
# making a profile
RULE_MATCHERS = ("rulemap.profiles.claude_code.rules", "rulemap.profiles.copilot_globs",
                 "rulemap.profiles.copilot_groups", "rulemap.profiles.gemini.imports",
                 "rulemap.profiles.mastra.inject", "rulemap.profiles.steps")


def test_a_check_without_rules_imports_no_rule_matcher(tree: Path) -> None:
    code, modules = cold_check(tree)  # .claude/rules/api.md: Claude Code matches it
    assert code == 1 and "rulemap.profiles.claude_code.rules" in modules
    (tree / ".claude" / "rules" / "api.md").unlink()
    code, modules = cold_check(tree)
    assert code == 1  # the broken import: the check ran
    assert {"rulemap.profiles.mastra.names", "rulemap.profiles.copilot_names",
            "rulemap.profiles.gemini.names"} <= modules  # asked, for detection and reads
    assert sorted(m for m in RULE_MATCHERS if m in modules) == []


def test_the_task_file_parsers_are_imported_by_a_command_only(tree: Path) -> None:
    code, modules = cold_check(tree)
    assert code == 1 and "rulemap.checks.stale_command" in modules  # it ran
    assert "rulemap.checks.manifests" not in modules
    (tree / "docs" / "style.md").write_text("Use tabs. Run `npm run build` first.\n")
    code, modules = cold_check(tree)
    assert code == 1 and "rulemap.checks.manifests" in modules


OPENED = """\
from rulemap.analysis import open_workspace
from rulemap.profiles import PROFILES
ws = open_workspace(ROOT)
made = sorted(PROFILES._made)
gemini = dict(ws.profile_options['gemini'])
print(repr((made, list(ws.profile_options), sorted(PROFILES._made), gemini)))
"""


def _opened(root: Path) -> tuple[list[str], list[str], list[str], dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    done = subprocess.run([sys.executable, "-c", OPENED.replace("ROOT", repr(str(root)))],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    made, names, after, gemini = eval(done.stdout)  # noqa: S307 (our own probe's repr)
    return made, names, after, gemini


def test_opening_a_workspace_makes_the_profiles_its_configuration_sets_only(
        tree: Path) -> None:
    from rulemap.profiles import BUILT_IN, PROFILES, parse_options

    defaults = parse_options(PROFILES["gemini"], {}, "configuration")
    made, names, after, gemini = _opened(tree)
    # the default model gives the layout; every other agent's options are its defaults,
    # made when asked for (listing them makes none; Gemini's come from its light facts)
    assert made == ["cogitator"]
    assert names == list(PROFILES)
    assert after == ["cogitator"] and gemini == defaults
    (tree / "rulemap.toml").write_text('[profiles.codex]\nproject_doc_max_bytes = 100\n')
    made, names, _, _ = _opened(tree)
    assert made == ["codex", "cogitator"]
    assert names == ["codex", *(n for n in PROFILES if n != "codex")]
    # a top-level key may be any agent's option: every agent is asked, by its light facts
    # where they live apart from its profile
    (tree / "rulemap.toml").write_text("maxChars = 1000\n")
    made, names, _, _ = _opened(tree)
    assert names == list(PROFILES)
    assert made == sorted(n for n, agent in BUILT_IN.items() if agent.facts is None)


def test_a_one_shot_check_imports_no_replica_log(tree: Path) -> None:
    """The worker's replica and its log of changes are the editor's (a host made with
    `replicated=True`); a check from the command line keeps none."""
    code, modules = cold_check(tree)
    assert code == 1 and "rulemap.host.analysis_host" in modules
    assert "rulemap.host.replica" not in modules
    modules = modules_after(
        "from rulemap.analysis import open_workspace\n"
        "from rulemap.host.analysis_host import AnalysisHost\n"
        f"AnalysisHost(open_workspace({str(tree)!r}), replicated=True)\n", tree.parent)
    assert "rulemap.host.replica" in modules


def test_parsing_the_command_line_imports_no_shutil(tree: Path) -> None:
    """argparse makes a help formatter for every argument added, and its default width
    imports shutil (with bz2 and lzma) to ask the terminal: the CLI's formatter asks it
    itself (`usage._terminal_columns`)."""
    code, modules = cold_check(tree)
    assert code == 1 and "argparse" in modules
    assert loaded(modules, ("shutil", "bz2", "lzma")) == []
