"""Rewrite tests/corpus/expected/<entry>.json from what `rulemap check` finds now.

usage: python tests/corpus/update_expected.py [ENTRY ...]   (default: every pinned entry)
       python tests/corpus/update_expected.py --profiles     (expected/profiles.json: every
                                                               entry, every profile's counts)

Only the `findings` and `exit_code` are rewritten; the hand-written `review` and `pending` notes
are kept. Review the diff (`git diff tests/corpus/expected`) as a maintainer of each repository
would before committing it, and update docs/corpus.md.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "server"))
sys.path.insert(0, str(HERE))

import test_corpus as tc  # noqa: E402


def dump(data: dict[str, object]) -> str:
    """One finding per line, so a diff shows exactly which finding changed."""
    head = {k: v for k, v in data.items() if k != "findings"}
    lines = json.dumps(head, ensure_ascii=False, indent=2)[:-2]
    rows = [json.dumps(f, ensure_ascii=False) for f in data["findings"]]  # type: ignore[attr-defined]
    body = ",\n".join(f"    {r}" for r in rows)
    if not rows:
        return f'{lines},\n  "findings": []\n}}\n'
    return f'{lines},\n  "findings": [\n{body}\n  ]\n}}\n'


def profiles_main() -> int:
    """Rewrite expected/profiles.json: per entry, per profile, its own findings by code."""
    materialize = tc._load_materialize()
    counts: dict[str, dict[str, dict[str, int]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for entry in tc.ENTRIES:
            dest = Path(tmp) / entry
            with contextlib.redirect_stdout(io.StringIO()):
                materialize.main([str(tc.CORPUS / entry), str(dest)])
            counts[entry] = {p: tc.profile_counts(dest, p) for p in tc.all_profiles()}
            print(entry, {p: sum(c.values()) for p, c in counts[entry].items()})
    old = json.loads(tc.PROFILE_PINS.read_text()) if tc.PROFILE_PINS.exists() else {}
    data = {
        "review": old.get("review", "TODO: review every profile's findings (docs/corpus.md)"),
        "counts": counts,
    }
    tc.PROFILE_PINS.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


def main(entries: list[str]) -> int:
    if entries == ["--profiles"]:
        return profiles_main()
    materialize = tc._load_materialize()
    with tempfile.TemporaryDirectory() as tmp:
        for entry in entries or tc.PINNED:
            dest = Path(tmp) / entry
            with contextlib.redirect_stdout(io.StringIO()):
                materialize.main([str(tc.CORPUS / entry), str(dest)])
            code, diagnostics = tc.findings(dest)
            path = tc.EXPECTED / f"{entry}.json"
            old = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
            data = {
                "entry": entry,
                "review": old.get("review", "TODO: review every finding (docs/corpus.md)"),
                **({"pending": old["pending"]} if old.get("pending") else {}),
                "exit_code": code,
                "findings": [
                    {"path": d["path"], "line": d["range"]["start"]["line"] + 1, "code": d["code"],
                     "severity": d["severity"]}
                    for d in diagnostics
                ],
            }
            if old.get("pending"):
                print(f"{entry}: has a pending note; findings left as they are")
                continue
            path.write_text(dump(data), encoding="utf-8")
            print(f"{entry}: {len(diagnostics)} findings")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
