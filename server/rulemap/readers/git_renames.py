"""Files git saw renamed in the recent history of the workspace (for `stale-reference`'s "moved
to X?"): one bounded `git log` per question, asked only when a stale reference is shown.

`git log -n RENAME_COMMITS --diff-filter=R -M --name-status --relative REV` in the root, with
git_listing's deadline (RULEMAP_GIT_TIMEOUT seconds, else 10 s) and environment (no prompt, no
lock, no fsmonitor, no lazy fetch). REV is HEAD for the working tree and the commit of a
`--ref` reader. No git, no repository, a timeout or any other failure: no renames, never an
error (the check then has only its same-name guess).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping

from rulemap.readers.git_listing import GitListingUnavailable, maybe_in_work_tree, run_git_bounded

# how far back a rename is looked for: a reference older than this many commits of renames is
# rarely fixed by the newest name, and the bound keeps the call short on a long history
RENAME_COMMITS = 200


_THREAD = threading.local()


def no_git_on_this_thread() -> None:
    """The calling thread never waits for git (the language server's event loop: a hover or a
    quick fix answers in milliseconds); renames come to it from a worker that asked."""
    _THREAD.no_git = True


def git_allowed_here() -> bool:
    return not getattr(_THREAD, "no_git", False)


def recent_renames(reader: object) -> Mapping[str, str]:
    """Root-relative old path → its newest name, over the last RENAME_COMMITS commits (a
    chain a → b → c gives a → c and b → c). Empty when the reader is not over a git work tree
    or commit, or git fails."""
    where = _repository(reader)
    if where is None or not git_allowed_here():
        return {}
    root, rev = where
    if not maybe_in_work_tree(root):
        return {}
    try:
        code, out = run_git_bounded(["log", "-n", str(RENAME_COMMITS), "--diff-filter=R", "-M",
                          "--name-status", "-z", "--format=", "--relative", rev, "--"], root)
    except GitListingUnavailable:
        return {}
    if code != 0:
        return {}
    return parse_renames(os.fsdecode(out))


def parse_renames(output: str) -> dict[str, str]:
    """`R100\\0old\\0new\\0…`, newest commit first → old → newest name. An old path renamed more
    than once keeps its newest rename; an older rename into a path renamed later follows it."""
    fields = [f.strip("\n") for f in output.split("\0")]
    renames: dict[str, str] = {}
    index = 0
    while index + 2 < len(fields):
        status = fields[index]
        if not status.startswith("R"):
            index += 1
            continue
        old, new = fields[index + 1], fields[index + 2]
        index += 3
        if old in renames:  # renamed again later (then re-created and renamed): newest wins
            continue
        renames[old] = renames.get(new, new)
    return renames


def _repository(reader: object) -> tuple[str, str] | None:
    """(root, revision) of the git history behind `reader` — through an editor's overlay or a
    diff's switch — or None for a reader over no repository (memory, a recording)."""
    seen = 0
    while seen < 8:
        seen += 1
        inner = getattr(reader, "base", None) or getattr(reader, "current", None)
        if inner is None or inner is reader:
            break
        reader = inner
    root = getattr(reader, "root", None)
    if not isinstance(root, str):
        return None
    commit = getattr(reader, "commit", None)
    if isinstance(commit, str) and commit:
        return root, commit
    from rulemap.readers.local import LocalReader

    return (root, "HEAD") if isinstance(reader, LocalReader) else None
