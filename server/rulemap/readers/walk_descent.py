"""How the walk (readers/local.py) goes down a directory: a descriptor held for its
subdirectories, and the chain of real paths above it.

Each directory deep in a tree is opened from its parent's descriptor: one name for the kernel to
resolve, not the whole path. 400 levels deep, resolving every directory's full path made the
walk grow with the square of the depth; so did copying the set of real paths above each
directory. Both measured in benchmarks/README.md ("The deep tree's walk")."""

from __future__ import annotations

import os

# the real paths above a directory: its parent's real path and the parent's own chain, ending
# in a start's set (a link back up to one of them is a loop)
Above = tuple[str, "Above"] | frozenset[str]

_BY_DESCRIPTOR = (
    hasattr(os, "O_DIRECTORY") and os.open in os.supports_dir_fd and os.scandir in os.supports_fd
)
_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
DEEP = 32  # a path this many directories deep is opened as a descriptor, for its subdirectories
MAX_HELD = 64  # descriptors a walk keeps open at once; past it, a directory opens by path


class Held:
    """A listed directory's descriptor, kept until its `waiting` subdirectories are opened."""

    __slots__ = ("fd", "waiting")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.waiting = 0


def is_above(real: str, above: Above) -> bool:
    while isinstance(above, tuple):
        if above[0] == real:
            return True
        above = above[1]
    return real in above


def open_directory(directory: str, parent: Held | None) -> int | None:
    """A descriptor of `directory` (None where directories are listed by path), opened from
    its parent's when that is held. Follows a symlink, as listing by path does."""
    if parent is not None:
        return os.open(directory.rpartition("/")[2], _DIRECTORY_FLAGS, dir_fd=parent.fd)
    return os.open(directory, _DIRECTORY_FLAGS) if _BY_DESCRIPTOR else None


def release(parent: Held | None, held: set[Held]) -> None:
    """One subdirectory of `parent` is done with its descriptor: the last one closes it."""
    if parent is not None:
        parent.waiting -= 1
        if parent.waiting == 0:
            held.discard(parent)
            os.close(parent.fd)

