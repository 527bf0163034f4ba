"""Files an agent never reads where they are: the shared part of `Profile.misplaced` (each
agent says where it looks in its own findings module). Its findings are cached per agent and
the options they depend on, less the files the agent loads all the same under another name;
`load_status` (`not_read_why`) and `rulemap why` (`misplaced_why`) give their words."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Protocol

from rulemap.derived import KeyFamily
from rulemap.model import Explanation, Finding

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


class Profile(Protocol):
    """What this module asks of an agent's profile (`profiles.base.Profile` has it; named
    here so that the interface, which uses these helpers, is not imported back)."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    def misplaced(self, ws: Workspace) -> list[Finding]: ...
    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation: ...

# A profile's misplaced files: `MISPLACED.key(profile.name, …the options they depend on)`.
MISPLACED: Final = KeyFamily[list[Finding]]("misplaced")


def cached_misplaced(ws: Workspace, profile: Profile, inputs: tuple[object, ...],
                     compute: Callable[[], list[Finding]]) -> list[Finding]:
    """`compute()`'s misplaced-file findings (kept until a file is created or deleted, or
    `inputs`, the options they depend on, differ) less those the agent loads anyway."""
    key = MISPLACED.key(profile.name, *inputs)
    cached = ws.derived.get(key)
    if cached is None:
        cached = ws.derived.put(key, compute(), reads=())
    if not cached:
        return cached
    # a file whose text the agent loads at start-up all the same (through a symlink to it, an
    # import of it) is not out of its way
    start = profile.explain(ws, None, ws.config.cwd)
    real = {ws.identity(f.path) for f in start.files if not f.path.startswith("/")}
    return [f for f in cached if ws.identity(f.path) not in real]


def misplaced_why(ws: Workspace, profile: Profile, key: str) -> str | None:
    """`key`'s misplaced-file message when it is one of `profile`'s misplaced files."""
    return next((f.message for f in profile.misplaced(ws) if f.path == key), None)


def not_read_why(ws: Workspace, profile: Profile, key: str) -> str:
    """Why `profile` does not read `key`: its misplaced-file words, else that it does not."""
    return misplaced_why(ws, profile, key) or f"{profile.title} does not read it"


# Shell start-up files at a home directory's top: a tree holding one is a home directory kept
# in git (dotfiles), where `.gemini/` and `.codex/` are the user's own directories.
HOME_MARKERS: Final = (".bashrc", ".zshrc", ".bash_profile", ".zprofile", ".zshenv", ".profile")


def home_marker(ws: Workspace) -> str | None:
    """The shell start-up file at the workspace's top that makes it look like a home
    directory (a dotfiles repository), or None."""
    return next((m for m in HOME_MARKERS if m in ws.files), None)
