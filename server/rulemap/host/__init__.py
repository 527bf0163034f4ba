"""The edge API: what the CLI and the language server's features ask, as plain data.

`catalog` lists the agents and the check codes; `analysis_host` holds `AnalysisHost` (changes
in) and `snapshot` the `Snapshot` (questions out); `fixes` turns published findings into
edits; `cancel` stops long questions; the CLI's and the `rulemap/*` requests' questions are
its modules by domain (`checks`, `explaining`, `comparing`, `sessions`, `diffing`, `maps`, …).
The edges (`cli/`, `lsp/`) import from the package only here and the plain data of `rulemap.model`
(tests/core/test_edge_imports.py holds this).

The names below are imported when first asked for (PEP 562): the language server imports
`CancelToken` at start, and starts from its cache before the engine (`analysis_host` and
`snapshot` pull in the checks and every profile) is needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rulemap.host.analysis_host import AnalysisHost
    from rulemap.host.cancel import Cancelled, CancelToken
    from rulemap.host.snapshot import Snapshot

__all__ = ["AnalysisHost", "CancelToken", "Cancelled", "Snapshot"]

_MODULES = {"AnalysisHost": "analysis_host", "Snapshot": "snapshot", "CancelToken": "cancel",
            "Cancelled": "cancel"}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'rulemap.host' has no attribute {name!r}")
    return getattr(importlib.import_module(f"rulemap.host.{module}"), name)
