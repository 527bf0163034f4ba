"""`rulemap serve` with the toy agents of toy_profile.py registered (for tests that need an
agent loading something predictable): `python -m tests.lsp.toy_server` from the repository."""

from __future__ import annotations

import sys

from tests.lsp.toy_profile import register_toys

if __name__ == "__main__":
    register_toys()
    from rulemap.cli.main import main

    sys.exit(main(["serve"]))
