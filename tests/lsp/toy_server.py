"""`rulemap serve` with the toy agents of toy_profile.py registered (for tests that need an
agent loading something predictable): `python -m tests.lsp.toy_server` from the repository."""

from __future__ import annotations

import sys

from tests.lsp.toy_profile import register_toys, slow_toys

if __name__ == "__main__":
    register_toys()
    if "--slow" in sys.argv:  # the slow agents of the cancellation test
        from rulemap.profiles import register_profile

        for toy in slow_toys():
            register_profile(toy)
    from rulemap.__main__ import main

    sys.exit(main(["serve"]))
