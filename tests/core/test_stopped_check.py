"""A whole check stopped between two steps (`run_checks_split`'s `between`: the language
server stops the check after a walk when an edit comes, host/opening.py) leaves the workspace
as good as unchecked: checked again, it finds what a fresh workspace finds, whichever step it
was stopped at. And `linted_by_kind`, what the server asks while it has not parsed every
document, never says linted of a document the check does not lint."""

from __future__ import annotations

import pytest
from core_helpers import make_ws

from rulemap import analysis, checks
from rulemap.host import AnalysisHost
from rulemap.host.cancel import Cancelled, CancelToken
from rulemap.host.opening import open_folder

TREE: dict[str, str | bytes] = {
    "AGENTS.md": "# root\n\nSee @docs/a.md and @docs/gone.md\n\nRun `npm run nowhere`.\n\n"
                 "A paragraph both instruction files repeat, word for word, long enough to "
                 "count as a copy.\n",
    "CLAUDE.md": "# claude\n\n@AGENTS.md\n\nA paragraph both instruction files repeat, word "
                 "for word, long enough to count as a copy.\n",
    "docs/a.md": "# a\n\nSee @b.md\n",
    "docs/b.md": "# b\n\nSee @a.md\n",
    ".claude/rules/ts.md": '---\npaths: ["src/**/*.ts", "nowhere/**"]\n---\nTS.\n',
    ".cursor/rules/x.mdc": "---\nglobs: src/**\nalwaysApply: false\n---\nX.\n",
    "src/a.ts": "",
    "package.json": '{"scripts": {"build": "tsc"}}',
}


class _Stop(Exception):
    pass


def _checked(ws: object) -> list[tuple[str, str, str]]:
    analysis.select_profiles(ws)  # type: ignore[arg-type]
    found = checks.run_checks_split(ws)  # type: ignore[arg-type]
    return [(f.path, f.code, f.message) for f in found.all]


def _steps() -> int:
    ws = make_ws(TREE)
    analysis.select_profiles(ws)
    calls = [0]

    def count() -> None:
        calls[0] += 1

    checks.run_checks_split(ws, count)
    return calls[0]


def test_a_check_stopped_at_any_step_leaves_nothing_half_made() -> None:
    fresh = _checked(make_ws(TREE))
    codes = {code for _, code, _ in fresh}
    assert {"broken-import", "import-cycle", "duplicate-text", "stale-command"} <= codes
    steps = _steps()
    assert steps >= len(checks.GRAPH_WIDE) + len(checks.PER_DOCUMENT)  # and one per agent
    for stop_at in range(steps):
        ws = make_ws(TREE)
        analysis.select_profiles(ws)
        calls = [0]

        def between(calls: list[int] = calls, stop_at: int = stop_at) -> None:
            if calls[0] == stop_at:
                raise _Stop
            calls[0] += 1

        with pytest.raises(_Stop):
            checks.run_checks_split(ws, between)
        assert _checked(ws) == fresh, f"stopped at step {stop_at}"


def test_a_stopped_token_hands_the_host_over_unchecked() -> None:
    """host/opening.py: a cancelled `stop` ends the walk's check at its next document; the
    host is still handed over, and answers as an unchecked one."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        for key, text in TREE.items():
            (root / key).parent.mkdir(parents=True, exist_ok=True)
            (root / key).write_text(text if isinstance(text, str) else text.decode())
        stop = CancelToken()
        batches: list[int] = []

        def early(host: AnalysisHost, found: list[object]) -> None:
            batches.append(len(found))
            stop.cancel()

        opened = open_folder(str(root), {}, {}, "/nonexistent-home", (), True, None,
                             lambda h, f: early(h, f), stop)
        assert opened.host is not None and opened.checked is None
        assert len(batches) <= 1
        with pytest.raises(Cancelled):
            stop.check()
        assert "AGENTS.md" in opened.host.snapshot().lint_documents()
        whole = open_folder(str(root), {}, {}, "/nonexistent-home", (), True)
        assert whole.checked is not None


def test_linted_by_kind_never_says_linted_of_what_the_check_does_not_lint() -> None:
    ws = make_ws(TREE, symlinks={"GEMINI.md": "AGENTS.md"})
    host = AnalysisHost(ws)
    snap = host.snapshot()
    lint = set(snap.lint_documents())
    by_kind = {key for key in [*ws.files, "GEMINI.md"] if snap.linted_by_kind(key)}
    assert by_kind <= lint
    assert {"AGENTS.md", "CLAUDE.md", ".claude/rules/ts.md"} <= by_kind
    assert "docs/a.md" in lint and "docs/a.md" not in by_kind  # linted because imported
    assert "src/a.ts" not in by_kind
