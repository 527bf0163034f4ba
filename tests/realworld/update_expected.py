"""Rewrite tests/realworld/expected/<entry>.json from what Rulemap says now.

usage: python tests/realworld/update_expected.py [ENTRY ...]   (default: every entry)

The exit code, the findings (profile, path, line, code, severity) and each profile's start-up
load are rewritten; the hand-written `review` note of an entry is kept. Judge every changed
finding as a user of that agent would and update docs/corpus.md ("Repositories in the
project's own test data") before committing the new pins.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "server"))
sys.path.insert(0, str(HERE))

import test_realworld as rw  # noqa: E402
from materialize import materialize  # noqa: E402


def dump(data: dict[str, object]) -> str:
    """One finding per line, so a diff shows exactly which finding changed."""
    head = {k: v for k, v in data.items() if k not in ("findings", "startup")}
    lines = json.dumps(head, ensure_ascii=False, indent=2)[:-2]
    findings = [json.dumps(f, ensure_ascii=False) for f in data["findings"]]  # type: ignore[attr-defined]
    startup = [
        f"    {json.dumps(p)}: {json.dumps(files, ensure_ascii=False)}"
        for p, files in data["startup"].items()  # type: ignore[attr-defined]
    ]
    body = ",\n".join(f"    {r}" for r in findings)
    found = f'"findings": [\n{body}\n  ]' if findings else '"findings": []'
    return f'{lines},\n  {found},\n  "startup": {{\n' + ",\n".join(startup) + "\n  }\n}\n"


def main(entries: list[str]) -> int:
    rw.EXPECTED.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for entry in entries or rw.ENTRIES:
            dest = Path(tmp) / entry
            materialize(rw.ENTRIES_DIR / entry, dest)
            now = rw.observe(dest)
            path = rw.EXPECTED / f"{entry}.json"
            old = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
            data = {
                "entry": entry,
                "review": old.get("review", "TODO: judge every finding (docs/corpus.md)"),
                **now,
            }
            path.write_text(dump(data), encoding="utf-8")
            print(f"{entry}: exit {now['exit_code']}, {len(now['findings'])} findings")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
