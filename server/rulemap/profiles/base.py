"""The profile interface: one loading model of one agent, read over the same workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rulemap.model import Explanation

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


class Profile(Protocol):
    name: str
    title: str
    description: str

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        """What the agent loads when working on `target` (None: at start-up) from `cwd`."""
        ...


def directory_chain(cwd: str) -> list[str]:
    """'' (the root), then each directory down to `cwd` ('.' or '' is the root)."""
    cwd = "" if cwd in (".", "") else cwd.strip("/")
    chain = [""]
    if cwd:
        parts = cwd.split("/")
        chain.extend("/".join(parts[: i + 1]) for i in range(len(parts)))
    return chain


def parent_dir(path: str) -> str:
    slash = path.rfind("/")
    return path[:slash] if slash > 0 else ""
