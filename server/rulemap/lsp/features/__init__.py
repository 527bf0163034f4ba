"""Editor features of the language server: pure functions over a `rulemap.host.Snapshot`
(the engine's plain answers, in one agent's terms) that return lsprotocol types: they convert
and present, the engine decides. Positions in and out are in the negotiated encoding
("utf-16" | "utf-8" | "utf-32"); keys are workspace keys (root-relative POSIX paths). None of
them raises: a key that is not a document, a position past the end or an unreadable file gives
None / [].
"""

from rulemap.lsp.features.code_actions import code_actions
from rulemap.lsp.features.code_lens import SHOW_REFERENCES, code_lenses
from rulemap.lsp.features.completion import completion
from rulemap.lsp.features.hover import hover
from rulemap.lsp.features.inlay_hints import inlay_hints
from rulemap.lsp.features.links import definition, document_links
from rulemap.lsp.features.references import references
from rulemap.lsp.features.rename import merged_edits, will_rename_files
from rulemap.lsp.features.symbols import document_symbols, workspace_symbols

__all__ = [
    "SHOW_REFERENCES",
    "code_actions",
    "code_lenses",
    "completion",
    "definition",
    "document_links",
    "document_symbols",
    "hover",
    "inlay_hints",
    "merged_edits",
    "references",
    "will_rename_files",
    "workspace_symbols",
]
