"""What the edges need to show the engine's text: printable names and position units.

The core counts columns in code points and keeps file names as the OS gives them (a name that
is not valid UTF-8 holds surrogates); an edge turns them into the client's position encoding
(UTF-16 or UTF-8) and into text a terminal, a URI or a JSON document can carry. These are the
engine's own functions (`text/positions.py`, `text/names.py`, `ranges.py`), handed to the edges
here so that `cli/` and `lsp/` import nothing past `rulemap.host` and `rulemap.model`. Light:
the language server imports them before the engine.
"""

from __future__ import annotations

from rulemap.ranges import encode_span
from rulemap.text.names import (
    ERROR_HANDLER,
    escape_unencodable,
    path_bytes,
    printable,
    printable_data,
    uri_path,
)
from rulemap.text.positions import Encoding, col_from_encoding, col_to_encoding

__all__ = [
    "ERROR_HANDLER", "Encoding", "col_from_encoding", "col_to_encoding", "encode_span",
    "escape_unencodable", "path_bytes", "printable", "printable_data", "uri_path",
]
