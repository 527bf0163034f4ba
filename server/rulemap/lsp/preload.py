"""What the editor's views import on their first use, imported once the folders are indexed.

The feature providers (hovers, lenses, links), "who loads it" and "who sees this paragraph"
(`reach_lens`, `host.reaching`), the reverse requests (`reverse`) are imported inside
functions, so that the server starts — and publishes from its start cache — without them.
Imported on the first hover instead, "who sees this paragraph" took ~15 ms more than the next
one. tests/core/test_startup_imports.py parses every view's function-level imports and fails
when one of them is not here (or imported by one that is).
"""

from __future__ import annotations

import importlib

VIEW_MODULES = (
    "rulemap.lsp.features", "rulemap.lsp.reach_lens", "rulemap.host.reaching",
    "rulemap.host.aliasing", "rulemap.lsp.reverse",
)


def preload_views() -> None:
    for name in VIEW_MODULES:
        importlib.import_module(name)
