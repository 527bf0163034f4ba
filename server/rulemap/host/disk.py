"""The questions about the user's machine an edge asks before (or beside) the engine.

The CLI finds a root and checks the paths it is given; the language server tells which of a
watcher's paths are directories and where the user's home is. The answers come from
`readers/` — the only place that touches the disk — handed to the edges here so that `cli/`
and `lsp/` import nothing past `rulemap.host` and `rulemap.model`. Light: no engine module.
"""

from __future__ import annotations

from rulemap.readers.base import MAX_FILE_BYTES, ReadError, in_skipped_dir, is_within
from rulemap.readers.base import find_root as nearest_git_root
from rulemap.readers.host import (
    TextLines,
    exists,
    home_dir,
    is_dir,
    missing,
    open_text_lines,
    read_user_file,
    real_path,
)

__all__ = [
    "MAX_FILE_BYTES", "ReadError", "TextLines", "exists", "home_dir", "in_skipped_dir",
    "is_dir", "is_within", "missing", "nearest_git_root", "no_git_on_this_thread",
    "open_text_lines", "read_user_file", "real_path",
]


def no_git_on_this_thread() -> None:
    """Mark the calling thread as one that never runs git (the language server's event loop:
    git runs in its worker); `rulemap.readers.git_renames`, imported when called."""
    from rulemap.readers.git_renames import no_git_on_this_thread as mark

    mark()
