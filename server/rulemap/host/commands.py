"""How the command line opens the engine: an `AnalysisHost` over a root, read the way one
command reads it.

A command looks once and exits: its tree is read by a one-shot reader (`check --fix`, which
edits what it looked at, by one that asks the disk again and takes edited texts before they
are written), or from a git commit (`--ref`); `rulemap diff` wraps BASE's reader to switch it
to HEAD's (host/diffing.py), a cached check wraps it to record what it asked. The CLI names
none of these readers: it passes the options and gets a host back, then asks its questions of
the host's modules by domain (`checks`, `explaining`, `comparing`, `sessions`, `verifying`,
`diffing`, `graphs`, `maps`, `fixing`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from rulemap.host.analysis_host import AnalysisHost
from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.model import Finding
from rulemap.readers.base import is_within

if TYPE_CHECKING:
    from rulemap.analysis import ReaderFactory
    from rulemap.readers.git_process import GitRefError

__all__ = [
    "GitRefError", "ReaderWrap", "key_of", "look_once", "open_host",
    "ref_reader_factory", "untrusted_findings",
]


def __getattr__(name: str) -> object:
    # git (and `subprocess`) is imported only by the commands that read a commit
    if name == "GitRefError":
        from rulemap.readers.git_process import GitRefError

        return GitRefError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# a reader factory built around another, for the workspace at a root (`open_host`'s `wrap`)
ReaderWrap: TypeAlias = "Callable[[ReaderFactory, str], ReaderFactory]"


def open_host(
    root_dir: str,
    granted: tuple[str, ...],
    profiles: Sequence[str] | None,
    user_home: str | None,
    home: str | None,
    ref: str | None = None,
    editable: bool = False,
    wrap: ReaderWrap | Callable[..., Any] | None = None,
    cwd: str | None = None,
    platform: str | None = None,
) -> AnalysisHost:
    """The host over `root_dir` (absolute, a directory): `granted`, the directories the user
    lets imports read; `profiles`, the agents (None: the configuration's, else detected);
    `user_home`, where the agents' user-level files are read from (None: nowhere); `home`, the
    user's own home directory; `ref`, a git commit to read instead of the working tree (raises
    GitRefError when git cannot read it); `editable`, a reader that takes edited texts before
    they are written (`check --fix`); `wrap(factory, root)`, a reader factory around the one
    chosen; `cwd`, the agents' working directory (a key) in place of the configuration's
    (`check --cwd`); `platform`, the platform the agents run on over the configuration's
    (`--platform`). Raises ConfigError."""
    from rulemap import analysis

    if editable:
        from rulemap.host.fixing import overlaid

        wrap = overlaid
    if ref is None:
        # a command looks once and exits (`--fix` edits what it looked at: it asks the disk)
        factory: ReaderFactory = (
            analysis.local_reader if editable else analysis.one_shot_reader
        )
    else:
        factory = ref_reader_factory(root_dir, ref)
    if wrap is not None:
        factory = wrap(factory, root_dir)
    return AnalysisHost(analysis.open_workspace(
        root_dir, home=home, allow_imports_from=granted, profiles=profiles,
        user_home=user_home, reader_factory=factory,
        overrides={k: v for k, v in (("cwd", cwd), ("platform", platform))
                   if v is not None} or None,
    ))


def ref_reader_factory(root_dir: str, ref: str) -> ReaderFactory:
    """Readers for `--ref`: the workspace from the commit (listed once, whatever grants the
    second reader carries); the user's home directory (`--home`) stays theirs, on disk."""
    # git (and `subprocess`, ~12 ms) is imported only for `--ref`: a plain check never pays it
    from rulemap import analysis
    from rulemap.readers.base import WalkingReader
    from rulemap.readers.git import GitRefReader

    built: list[GitRefReader] = []

    def factory(root: str, allowed: tuple[str, ...]) -> WalkingReader:
        if root != root_dir:
            return analysis.local_reader(root, allowed)
        if not built:
            built.append(GitRefReader(root, ref, allowed))
            return built[0]
        return built[0].with_allowed(allowed)

    return factory


def look_once(host: AnalysisHost) -> None:
    """The host is asked once and dropped (a check that leaves no snapshot to resume from):
    its values need not say what they read."""
    workspace_of(host.snapshot()).look_once()


def key_of(snap: Snapshot, absolute: str) -> str:
    """The key of an absolute path: root-relative inside the root, else the path itself."""
    absolute = posixpath.normpath(absolute)
    root = snap.root
    if is_within(absolute, root) and absolute != root:
        return absolute[len(root) :].lstrip("/")
    return absolute


def untrusted_findings(snap: Snapshot) -> list[Finding]:
    """The `untrusted-config` findings (the repository's own grant, ignored), suppressions,
    severity overrides and `ignore` applied: for the commands that do not list findings."""
    from rulemap.checks import finalize, trust

    ws = workspace_of(snap)
    return finalize(ws, trust.check(ws))
