"""`rulemap serve` with the toy agent registered: `python -m tests.toy_agent.server` from the
repository (PYTHONPATH: the repository and server/)."""

from __future__ import annotations

import sys

from tests.toy_agent import register

if __name__ == "__main__":
    register()
    from rulemap.__main__ import main

    sys.exit(main(["serve"]))
