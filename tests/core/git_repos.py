"""Real temporary git repositories for the tests of `--ref`, `diff` and `session --ref`: one
`git` runner with a fixed identity and dates and no user or system configuration, and a writer
of working-tree files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    """`git ARGS` in `repo` (main as the first branch); its stdout, stripped; raises on failure."""
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True, check=True,
    )
    return done.stdout.strip()


def write(repo: Path, files: dict[str, str | None]) -> None:
    """Write each file (replacing a symlink rather than writing through it); None deletes."""
    for name, text in files.items():
        path = repo / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        path.write_text(text)
