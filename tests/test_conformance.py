"""Conformance suite: one fixture workspace per sentence of the seed and per decision.

Each case lives in ``tests/conformance/cases/<name>/`` (format: ``tests/conformance/README.md``).
The expectations are written from the seed (``../shared/seeds/cogitator-project-instructions.md``),
``docs/semantics.md`` and the CLI contract -- never from what the implementation prints.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
CASES_DIR = Path(__file__).resolve().parent / "conformance" / "cases"

pytestmark = pytest.mark.slow  # every case through the CLI, end to end

EXPLAIN_KEYS = {
    "profile",
    "root",
    "cwd",
    "target",
    "maxChars",
    "totalChars",
    "files",
    "leftOut",
    "skipped",
    "budget",
}
# `agents` (the selection, each with why) and `answeredFor` (the agent that answered, why,
# and a note naming the agent to pick) say who the answer is for: host/selection.py; `platform`
# the platform assumed (`--platform`, else Linux: tests/conftest.py pins $RULEMAP_PLATFORM)
OPTIONAL_EXPLAIN_KEYS = {"notes", "selection", "answeredFor", "readAs", "platform"}
FILE_KEYS = {"path", "reason", "importedBy", "depth", "chars", "cut"}
# shown by profiles that have them (docs/protocol.md): step, tokens, truncated, cutLine, ...
OPTIONAL_FILE_KEYS = {"step", "tokens", "truncated", "cutLine", "bytes", "note"}
REASONS = {"project", "import", "rule", "nested", "scoped", "user", "requested"}
DIAG_KEYS = {"path", "range", "severity", "code", "message"}
OPTIONAL_DIAG_KEYS = {"profile"}
SEVERITIES = {"error", "warning", "information", "hint"}

CASES = sorted(p for p in CASES_DIR.iterdir() if (p / "case.toml").is_file())


# ----------------------------------------------------------------------------- setup


def _subst(text: str, env: dict[str, str]) -> str:
    for key, value in env.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _subst_any(value: Any, env: dict[str, str]) -> Any:
    if isinstance(value, str):
        return _subst(value, env)
    if isinstance(value, list):
        return [_subst_any(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _subst_any(v, env) for k, v in value.items()}
    return value


def _substitute_tree(top: Path, env: dict[str, str]) -> None:
    """Replace {{ROOT}}, {{HOME}}, {{OUTSIDE}} in the fixture's text files, bytes kept otherwise."""
    for path in top.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if b"{{" not in data:
            continue
        path.write_bytes(_subst(data.decode("utf-8"), env).encode("utf-8"))


def build(case_dir: Path, tmp_path: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    case = tomllib.loads((case_dir / "case.toml").read_text(encoding="utf-8"))
    base = tmp_path.resolve()
    dirs = {name: base / name for name in ("workspace", "home", "outside")}
    for name, dest in dirs.items():
        src = case_dir / name
        if src.is_dir():
            shutil.copytree(src, dest, symlinks=True)
        else:
            dest.mkdir()
    env = {
        "ROOT": str(dirs["workspace"]),
        "HOME": str(dirs["home"]),
        "OUTSIDE": str(dirs["outside"]),
    }
    for dest in dirs.values():
        _substitute_tree(dest, env)

    generated = case_dir / "generated.toml"
    if generated.is_file():
        # [[file]] path = "AGENTS.md" (relative to workspace/, or "home/..", "outside/.." via
        # `in`), and either hex = "00ff" or text = "exact text, no newline translation".
        for entry in tomllib.loads(generated.read_text(encoding="utf-8")).get("file", []):
            dest = dirs[entry.get("in", "workspace")] / entry["path"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            if "hex" in entry:
                dest.write_bytes(bytes.fromhex(entry["hex"]))
            elif "fill" in entry:  # fill = "a", size = 4200000: that many bytes of `fill`
                unit = entry["fill"].encode("utf-8")
                dest.write_bytes((unit * (entry["size"] // len(unit) + 1))[: entry["size"]])
            else:
                dest.write_bytes(entry["text"].encode("utf-8"))
        # [[chain]] dir = "chain", count = 3000, cycle = false: dir/f1.md imports f2.md ... the
        # last imports f1.md (cycle) or holds "end".
        for chain in tomllib.loads(generated.read_text(encoding="utf-8")).get("chain", []):
            folder = dirs["workspace"] / chain["dir"]
            folder.mkdir(parents=True, exist_ok=True)
            count = chain["count"]
            for i in range(1, count + 1):
                nxt = i + 1 if i < count else (1 if chain.get("cycle") else None)
                text = f"@f{nxt}.md\n" if nxt else "end\n"
                (folder / f"f{i}.md").write_text(text, encoding="utf-8")

    links = case_dir / "symlinks.txt"
    if links.is_file():
        # `link -> target`: link relative to workspace/, target written as-is (after {{...}}).
        for line in links.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            link, target = (part.strip() for part in line.split("->", 1))
            link_path = dirs["workspace"] / link
            link_path.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(_subst(target, env), link_path)

    if case.get("make_git"):
        (dirs["workspace"] / ".git").mkdir()
    return _subst_any(case, env), dirs


def run_cli(
    case: dict[str, Any], dirs: dict[str, Path]
) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    ws = dirs["workspace"]
    command = list(case["command"])
    as_json = case.get("json", True)
    if command[0] == "explain":
        args = list(command)
        if case.get("add_root", True):
            args += ["--root", str(ws)]
        if as_json:
            args.append("--json")
    elif command[0] == "check":
        args = ["check"]
        if case.get("add_root", True):
            args.append(str(ws))
        args += command[1:]
        if as_json:
            args += ["--format", "json"]
    else:
        args = command
    env = dict(os.environ)
    env["HOME"] = str(dirs["home"])
    env["USERPROFILE"] = str(dirs["home"])
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO / "server"), env.get("PYTHONPATH", "")) if p
    )
    env.pop("RULEMAP_PROFILE", None)
    # the user's configuration file comes from the case's home/ (.config/rulemap/config.toml),
    # never from the machine running the tests
    env.pop("RULEMAP_CONFIG", None)
    env["XDG_CONFIG_HOME"] = str(dirs["home"] / ".config")
    argv = [sys.executable, "-m", "rulemap", *args]
    proc = subprocess.run(
        argv,
        cwd=ws / case.get("run_in", "."),
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    return ["rulemap", *args], proc


# ----------------------------------------------------------------------------- reporting


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


class Report:
    def __init__(
        self,
        case_dir: Path,
        case: dict[str, Any],
        argv: list[str],
        proc: subprocess.CompletedProcess[str],
    ) -> None:
        self.head = (
            f"\nCASE {case_dir.name}\nSPEC {case.get('spec', '').strip()}\nCMD  {' '.join(argv)}\n"
        )
        self.proc = proc
        self.problems: list[str] = []

    def fail(self, what: str, expected: Any = None, actual: Any = None) -> None:
        text = f"- {what}"
        if expected is not None or actual is not None:
            exp, act = _dump(expected).splitlines(), _dump(actual).splitlines()
            diff = "\n".join(difflib.unified_diff(exp, act, "expected", "actual", lineterm=""))
            text += f"\n{diff}" if diff else f"\n  expected {expected!r}\n  actual   {actual!r}"
        self.problems.append(text)

    def check(self, cond: bool, what: str, expected: Any = None, actual: Any = None) -> None:
        if not cond:
            self.fail(what, expected, actual)

    def finish(self, output: Any = None) -> None:
        if self.problems:
            out = _dump(output) if output is not None else self.proc.stdout
            pytest.fail(
                self.head
                + "\n".join(self.problems)
                + f"\n--- exit code {self.proc.returncode}; stdout:\n{out[:6000]}"
                + f"\n--- stderr:\n{self.proc.stderr[-3000:]}",
                pytrace=False,
            )


# ----------------------------------------------------------------------------- explain


def _null(value: Any) -> Any:
    return None if value == "" else value


def check_explain(
    rep: Report, case: dict[str, Any], data: dict[str, Any], dirs: dict[str, Path]
) -> None:
    exp = case.get("expect", {})
    rep.check(
        EXPLAIN_KEYS <= set(data) <= EXPLAIN_KEYS | OPTIONAL_EXPLAIN_KEYS,
        "top-level keys of explain --json",
        sorted(EXPLAIN_KEYS),
        sorted(data),
    )
    files = data.get("files", [])
    for entry in files:
        rep.check(
            isinstance(entry, dict) and FILE_KEYS <= set(entry) <= FILE_KEYS | OPTIONAL_FILE_KEYS,
            f"keys of files entry {entry.get('path') if isinstance(entry, dict) else entry}",
            sorted(FILE_KEYS),
            sorted(entry) if isinstance(entry, dict) else entry,
        )
    if rep.problems:
        return
    for entry in files:
        rep.check(entry["reason"] in REASONS, f"reason of {entry['path']}", None, entry["reason"])
    # invariants of the contract
    total = sum(f["chars"] for f in files)
    rep.check(
        data["totalChars"] == total,
        "totalChars is the sum of files[].chars",
        total,
        data["totalChars"],
    )
    shared_chars = data["budget"]["kind"] == "shared" and data["budget"]["unit"] == "chars"
    rep.check(
        not shared_chars or data["totalChars"] <= data["maxChars"],
        "totalChars <= maxChars",
        data["maxChars"],
        data["totalChars"],
    )
    root = (dirs["workspace"] / exp.get("root", ".")).resolve()
    rep.check(Path(data["root"]).resolve() == root, "root (absolute)", str(root), data["root"])
    if data["budget"]["kind"] == "shared":
        rep.check(sum(1 for f in files if f["cut"]) <= 1, "at most one file is cut")

    if "files_count" in exp:
        rep.check(
            len(files) == exp["files_count"], "number of files", exp["files_count"], len(files)
        )
    if "files" in exp:
        expected = [[p, r, _null(i), d] for p, r, i, d in exp["files"]]
        actual = [[f["path"], f["reason"], f["importedBy"], f["depth"]] for f in files]
        rep.check(
            expected == actual,
            "files as [path, reason, importedBy, depth], in order",
            expected,
            actual,
        )
    if "chars" in exp:
        rep.check(
            exp["chars"] == [f["chars"] for f in files],
            "files[].chars",
            exp["chars"],
            [[f["path"], f["chars"]] for f in files],
        )
    if "cut" in exp:
        rep.check(
            exp["cut"] == [f["cut"] for f in files],
            "files[].cut",
            exp["cut"],
            [[f["path"], f["cut"]] for f in files],
        )
    # profile-specific per-file facts, parallel to files ("" in a list = absent/null)
    for key in sorted(OPTIONAL_FILE_KEYS):
        if key in exp:
            actual = [f.get(key) for f in files]
            rep.check(
                [_null(v) for v in exp[key]] == actual,
                f"files[].{key}",
                exp[key],
                [[f["path"], f.get(key)] for f in files],
            )
    if "budget" in exp:
        rep.check(exp["budget"] == data["budget"], "budget", exp["budget"], data["budget"])
    for text in exp.get("notes_contains", []):
        rep.check(
            any(text in n for n in data.get("notes", [])), f"a note contains {text!r}",
            text, data.get("notes"),
        )
    for key in ("totalChars", "maxChars", "cwd", "profile", "leftOut"):
        if key in exp:
            rep.check(exp[key] == data[key], key, exp[key], data[key])
    if "target" in exp:
        rep.check(
            _null(exp["target"]) == data["target"], "target", _null(exp["target"]), data["target"]
        )
    skipped = [s.get("path") for s in data["skipped"]]
    for s in data["skipped"]:
        rep.check(set(s) >= {"path", "why"}, "skipped entries have path and why", None, s)
    for path in exp.get("skipped_paths", []):
        rep.check(path in skipped, f"{path!r} listed in skipped", exp.get("skipped_paths"), skipped)
    if exp.get("skipped_exact"):
        rep.check(
            sorted(exp.get("skipped_paths", [])) == sorted(skipped),
            "skipped (exact list of paths)",
            sorted(exp.get("skipped_paths", [])),
            sorted(skipped),
        )


# ----------------------------------------------------------------------------- check


def _matches(want: dict[str, Any], diag: dict[str, Any]) -> bool:
    def one(key: str, actual: Any) -> bool:
        if key not in want:
            return True
        value = want[key]
        return actual in value if isinstance(value, list) else actual == value

    start, end = diag["range"]["start"], diag["range"]["end"]
    return (
        one("path", diag["path"])
        and one("code", diag["code"])
        and one("line", start["line"])
        and one("character", start["character"])
        and one("end_line", end["line"])
        and one("end_character", end["character"])
        and one("severity", diag["severity"])
        and one("profile", diag.get("profile"))
        and all(s in diag["message"] for s in want.get("message_contains", []))
    )


def check_check(rep: Report, case: dict[str, Any], data: dict[str, Any]) -> None:
    exp = case.get("expect", {})
    rep.check(
        set(data) == {"selection", "platform", "diagnostics"},
        "top-level keys of check --format json",
        ["diagnostics", "platform", "selection"],
        sorted(data),
    )
    diags = data.get("diagnostics", [])
    for d in diags:
        ok = (
            isinstance(d, dict)
            and DIAG_KEYS <= set(d) <= DIAG_KEYS | OPTIONAL_DIAG_KEYS
            and set(d["range"]) == {"start", "end"}
            and all(set(d["range"][k]) == {"line", "character"} for k in ("start", "end"))
        )
        rep.check(
            ok,
            "diagnostic shape {path, range{start,end{line,character}}, severity, code, message}",
            None,
            d,
        )
    if rep.problems:
        return
    for d in diags:
        rep.check(d["severity"] in SEVERITIES, "severity is an LSP severity", None, d)
    brief = [
        {
            "path": d["path"],
            "code": d["code"],
            "line": d["range"]["start"]["line"],
            "character": d["range"]["start"]["character"],
            "end_line": d["range"]["end"]["line"],
            "end_character": d["range"]["end"]["character"],
            "severity": d["severity"],
            "message": d["message"],
        }
        for d in diags
    ]
    wanted = exp.get("diagnostics", [])
    unused = list(range(len(diags)))
    for want in wanted:
        if "count" in want:
            n = sum(1 for d in diags if _matches(want, d))
            rep.check(n == want["count"], f"number of diagnostics like {want}", want["count"], n)
        hit = next((i for i in unused if _matches(want, diags[i])), None)
        if hit is None:
            rep.fail(f"missing diagnostic {want}", want, brief)
        else:
            unused.remove(hit)
    if exp.get("exact"):
        rep.check(not unused, "no other diagnostics (exact = true)", [], [brief[i] for i in unused])
    for never in exp.get("absent", []):
        hits = [b for b, d in zip(brief, diags, strict=True) if _matches(never, d)]
        rep.check(not hits, f"no diagnostic like {never}", [], hits)


# ----------------------------------------------------------------------------- the test


@pytest.mark.parametrize("case_dir", CASES, ids=[c.name for c in CASES])
def test_conformance(case_dir: Path, tmp_path: Path) -> None:
    case, dirs = build(case_dir, tmp_path)
    argv, proc = run_cli(case, dirs)
    rep = Report(case_dir, case, argv, proc)
    exp = case.get("expect", {})

    rep.check("Traceback (most recent call last)" not in proc.stderr, "no traceback on stderr")
    if "exit_code" in exp:
        rep.check(
            proc.returncode == exp["exit_code"], "exit code", exp["exit_code"], proc.returncode
        )
    elif case["command"][0] == "explain":
        rep.check(proc.returncode == 0, "exit code", 0, proc.returncode)
    for needle in exp.get("stderr_contains", []):
        rep.check(needle in proc.stderr, f"stderr contains {needle!r}", needle, proc.stderr)
    # Human output may be wrapped to the terminal width: compare with whitespace runs collapsed.
    flat = " ".join(proc.stdout.split())
    for needle in exp.get("stdout_contains", []):
        rep.check(
            " ".join(needle.split()) in flat, f"stdout contains {needle!r}", needle, proc.stdout
        )

    data = None
    if case.get("json", True) and exp.get("exit_code", 0) != 2:
        try:
            data = json.loads(proc.stdout)
        except json.JSONDecodeError as err:
            rep.fail(f"stdout is not JSON ({err})")
        else:
            if case["command"][0] == "explain":
                check_explain(rep, case, data, dirs)
            elif case["command"][0] == "check":
                check_check(rep, case, data)
    rep.finish(data)


def test_every_fixture_file_reaches_a_clone() -> None:
    """A fixture file git will not keep — a `.git` entry, or a path the fixture's own
    `.gitignore` ignores — passes here and fails on a fresh clone: such files belong in the
    case's generated.toml."""
    ignored = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "--others", "--ignored", "--exclude-standard",
         "--", str(CASES_DIR)],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    ignored = [p for p in ignored if "__pycache__" not in p]
    assert not ignored, f"git ignores these fixture files (move them to generated.toml): {ignored}"
    dot_git = [
        str(p.relative_to(CASES_DIR)) for p in CASES_DIR.rglob(".git") if p.exists()
    ]
    assert not dot_git, f"git cannot commit a `.git` entry (use generated.toml): {dot_git}"
