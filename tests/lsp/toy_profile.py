"""Toy agents for the side-by-side tests: they load something predictable, whatever the real
profiles do meanwhile.

A toy agent reads `<name>` files (default `TOY.md`) in every directory from the root down to
the target's, root first, after a user-level `~/.toy/<name>` when `--home` is given; then its
budget: `bytes` shared (the crossing file is cut at the byte, later ones left out) or `tokens`
per file (each cut at `limit` tokens of 4 characters, marked `truncated`). Explanations are
cached in `ws.derived` like a real profile's, and `computed` counts the cache misses.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal

from rulemap.model import Budget, Explanation, Finding, LoadedFile
from rulemap.profiles.base import Option, Profile, directory_chain, join, parent_dir
from rulemap.text.decoding import decode

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


class ToyProfile(Profile):
    options: tuple[Option, ...] = ()

    def __init__(
        self,
        name: str = "toy",
        unit: Literal["bytes", "tokens", "chars"] = "bytes",
        limit: int = 20,
        file_name: str = "TOY.md",
        title: str = "Toy agent",
        delay: float = 0.0,
    ) -> None:
        self.name = name
        self.title = title
        self.description = f"{file_name} root to target, {limit} {unit}"
        self.unit = unit
        self.limit = limit
        self.file_name = file_name
        # the server watches the content of these (a profile's declared files)
        self.watched_globs = (f"**/{file_name}",)
        self.own_glob_dialect = False
        self.follows_imports = False
        self.delay = delay  # seconds each uncached explanation takes (a slow agent)
        self.computed = 0

    def detect(self, ws: Workspace) -> bool:
        return False

    def reads(self, ws: Workspace, key: str) -> bool:
        return key.rsplit("/", 1)[-1] == self.file_name

    def findings(self, ws: Workspace) -> list[Finding]:
        return []

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        cache_key = ("explain", self.name, target, cwd)
        cached: Explanation | None = ws.derived.get(cache_key)
        if cached is not None:
            return cached
        self.computed += 1
        if self.delay:
            time.sleep(self.delay)
        start = parent_dir(target) if target is not None else cwd
        keys = [join(d, self.file_name) for d in directory_chain(start)]
        texts: list[tuple[str, str, str]] = []  # (key, reason, text)
        home = ws.home_reader
        if home is not None:
            user = f"{home.root}/.toy/{self.file_name}"
            if home.exists(user):
                text, _why = decode(home.read_bytes(user))
                texts.append((user, "user", text or ""))
        texts.extend((k, "project", ws.document(k).text) for k in keys if k in ws.files)
        files: list[LoadedFile] = []
        left_out: list[str] = []
        used = 0
        for key, reason, text in texts:
            if self.unit == "tokens":
                tokens = -(-len(text) // 4)
                truncated = tokens > self.limit
                kept = text[: self.limit * 4] if truncated else text
                files.append(LoadedFile(key, reason, None, 0, len(kept), text=kept,  # type: ignore[arg-type]
                                        tokens=min(tokens, self.limit), truncated=truncated))
                continue
            size = len(text.encode("utf-8"))
            if used >= self.limit:
                left_out.append(key)
                continue
            if self.unit == "bytes" and used + size > self.limit:
                kept = text.encode("utf-8")[: self.limit - used].decode("utf-8", "ignore")
                files.append(LoadedFile(key, reason, None, 0, len(kept), cut=True, text=kept,  # type: ignore[arg-type]
                                        bytes=self.limit - used))
                used = self.limit
                continue
            used += size
            files.append(LoadedFile(key, reason, None, 0, len(text), text=text,  # type: ignore[arg-type]
                                    bytes=size if self.unit == "bytes" else None))
        kind: Literal["shared", "per-file"] = "per-file" if self.unit == "tokens" else "shared"
        explanation = Explanation(
            self.name, ws.root, "." if cwd in ("", ".") else cwd, target, 0, files, left_out,
            [], None, budget=Budget(kind, self.unit, self.limit),
        )
        ws.derived.put(cache_key, explanation, reads=keys)
        return explanation


def toys() -> list[ToyProfile]:
    """`toy` (20 bytes shared), `toy-tokens` (3 tokens per file, in `TOKENS.md`)."""
    return [
        ToyProfile(),
        ToyProfile("toy-tokens", "tokens", 3, "TOKENS.md", "Toy tokens agent"),
    ]


def register_toys() -> list[ToyProfile]:
    from rulemap.profiles import register_profile

    made = toys()
    for toy in made:
        register_profile(toy)
    return made


def slow_toys(count: int = 6, delay: float = 0.5) -> list[ToyProfile]:
    """`slow-1` … `slow-<count>`: each takes `delay` seconds per uncached explanation (a long
    `rulemap/compare` to cancel)."""
    return [
        ToyProfile(f"slow-{n}", "bytes", 20, "TOY.md", f"Slow agent {n}", delay=delay)
        for n in range(1, count + 1)
    ]
