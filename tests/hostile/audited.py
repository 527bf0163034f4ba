"""Run the rulemap CLI with an audit hook that records every file the process opens.

    python tests/hostile/audited.py LOG -- rulemap-args...

Python raises the `open` audit event for `open()`, `os.open()` and everything built on them, so
the log holds every path the process opened for reading or writing, whatever module did it.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    log_path, argv = sys.argv[1], sys.argv[3:]
    opened: list[str] = []

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            opened.append(os.fsdecode(args[0]))  # type: ignore[arg-type]

    sys.addaudithook(hook)
    from rulemap.cli.main import main as rulemap_main

    try:
        code = rulemap_main(argv)
    finally:
        with open(log_path, "w", encoding="utf-8") as log:
            log.write("\n".join(opened))
    return code


if __name__ == "__main__":
    sys.exit(main())
