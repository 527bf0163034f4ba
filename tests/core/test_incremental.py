"""After any sequence of edits, the incremental graph answers exactly as a fresh one."""

import random

from core_helpers import make_ws

from rulemap import analysis
from rulemap.workspace import Workspace

GLOBS = ["src/**/*.ts", "src/a/*.ts", "*.py", "docs/**", "nothing/**", "src/b/**", "**/*.md"]
TARGETS = ["src/a/x.ts", "src/b/y.ts", "src/b/z.py", "tool.py", "docs/d.md", "pkg/AGENTS.md"]


def _rule(rng: random.Random) -> str:
    kind = rng.random()
    body = "rule body " * rng.randint(1, 40) + (
        "\nsee @../../docs/d.md\n" if rng.random() < 0.3 else "\n"
    )
    if kind < 0.2:
        return body  # unconditional
    globs = rng.sample(GLOBS, rng.randint(1, 3))
    return "---\npaths:\n" + "".join(f"  - '{g}'\n" for g in globs) + "---\n" + body


def _doc(rng: random.Random) -> str:
    imports = " ".join(
        f"@{rng.choice(['docs/d.md', 'docs/e.md', 'CLAUDE.md', 'gone.md'])}"
        for _ in range(rng.randint(0, 2))
    )
    return "text " * rng.randint(1, 300) + imports + "\n"


def _snapshot(ws: Workspace) -> tuple[object, ...]:
    findings = sorted((f.path, f.code, f.span, f.message) for f in analysis.check(ws))
    loads = [analysis.explain(ws, t).to_json() for t in TARGETS] + [analysis.explain(ws).to_json()]
    return (findings, loads)


def test_random_edits_match_a_fresh_workspace():
    rng = random.Random(7)
    files = {
        "AGENTS.md": _doc(rng),
        "CLAUDE.md": _doc(rng),
        "pkg/AGENTS.md": _doc(rng),
        "docs/d.md": "doc @e.md",
        "docs/e.md": "e",
        ".claude/rules/r1.md": _rule(rng),
        ".claude/rules/r2.md": _rule(rng),
        ".claude/rules/sub/r3.md": _rule(rng),
        "src/a/x.ts": "",
        "src/b/y.ts": "",
        "src/b/z.py": "",
        "tool.py": "",
    }
    ws = make_ws(files, maxChars=2500)
    analysis.check(ws)
    editable = [
        "AGENTS.md",
        "CLAUDE.md",
        "pkg/AGENTS.md",
        "docs/d.md",
        ".claude/rules/r1.md",
        ".claude/rules/r2.md",
        ".claude/rules/sub/r3.md",
    ]
    for step in range(150):
        key = rng.choice(editable)
        text = _rule(rng) if key.startswith(".claude/rules") else _doc(rng)
        ws.reader.files[ws.abs(key)] = text.encode()
        files[key] = text
        ws.update(changed=[key])
        if step % 3 == 0:
            fresh = make_ws(dict(files), maxChars=2500)
            assert _snapshot(ws) == _snapshot(fresh), f"differs after step {step} ({key})"
