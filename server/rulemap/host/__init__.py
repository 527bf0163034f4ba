"""The edge API: what the CLI and the language server's features ask, as plain data.

`catalog` lists the agents and the check codes; `snapshot` holds `AnalysisHost` (changes in)
and `Snapshot` (questions out); `fixes` turns published findings into edits; `cancel` stops
long questions. The edges (`cli/`, `lsp/features/`) import from here, `rulemap.analysis` and
the plain data of `rulemap.model`; never from `workspace/`, `profiles/` or `checks/`
(tests/core/test_layers.py holds this).
"""

from rulemap.host.cancel import Cancelled, CancelToken
from rulemap.host.snapshot import AnalysisHost, Snapshot

__all__ = ["AnalysisHost", "CancelToken", "Cancelled", "Snapshot"]
