"""A toy agent defined only here — one package, one registry line — to prove that an agent
takes part in everything Rulemap does (detect, watch, explain, check, hover, compare, diff,
replay) through the `Profile` protocol alone, with nothing about it in the engine.

The toy agent reads `TOY.txt` (not Markdown) in every directory from the workspace root down
to the target's directory, root first. The files share one budget of `maxBytes` bytes
(`[profiles.toy] maxBytes`, default 64): the file that crosses it is cut at the byte, the later
ones are left out. It is detected wherever a `TOY.txt` exists, has no imports, and says
`budget-overflow` (a code it declares) for each `TOY.txt` its budget cuts or leaves out.

Its run model (`replay`): the start-up load is root→cwd; a step that reads or edits a file
brings the `TOY.txt` files between the root and that file's directory not loaded yet, the run
sharing the one byte budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rulemap.derived import Key
from rulemap.model import Budget, Explanation, Finding, LoadedFile, LoadStatus, Span
from rulemap.profiles.base import (
    Option,
    Profile,
    cached_explanation,
    directory_chain,
    join,
    options_of,
    parent_dir,
    shallowest,
)

if TYPE_CHECKING:
    from rulemap.profiles.steps import SessionReplay, ToolStep
    from rulemap.workspace import Workspace

NAME = "toy"
FILE = "TOY.txt"
GLOB = f"**/{FILE}"
MAX_BYTES = 64
SETTING = "maxBytes"


class ToyAgent(Profile):
    name = NAME
    title = "Toy agent"
    description = f"{FILE} in each directory from the root down to the target's, " \
                  f"{MAX_BYTES} bytes shared"
    options: tuple[Option, ...] = (
        Option(SETTING, (int,), MAX_BYTES,
               f"bytes of {FILE} files the toy agent reads in all, root first"),
    )
    follows_imports = False
    watched_globs = (GLOB,)
    check_codes = ("budget-overflow",)

    # ----- helpers ----------------------------------------------------------------------

    def limit(self, ws: Workspace) -> int:
        return int(options_of(ws, self)[SETTING])

    def budget(self, ws: Workspace) -> Budget:
        return Budget("shared", "bytes", self.limit(ws), SETTING)

    @staticmethod
    def own_files(ws: Workspace) -> list[str]:
        return sorted(k for k in ws.files.with_suffix(".txt") if k.rsplit("/", 1)[-1] == FILE)

    @staticmethod
    def chain_keys(directory: str) -> list[str]:
        return [join(d, FILE) for d in directory_chain(directory)]

    def take(
        self, ws: Workspace, keys: Sequence[str], used: int, limit: int
    ) -> tuple[list[LoadedFile], list[str], list[str], int]:
        """The files of `keys` that exist, under the budget with `used` bytes already spent:
        (loaded, cut, left out, used after)."""
        files: list[LoadedFile] = []
        cut: list[str] = []
        left_out: list[str] = []
        for key in keys:
            if key not in ws.files:
                continue
            data = ws.document(key).text.encode("utf-8")
            if used >= limit:
                left_out.append(key)
                continue
            if used + len(data) > limit:
                kept = data[: limit - used].decode("utf-8", "ignore")
                files.append(LoadedFile(key, "project", None, 0, len(kept), cut=True, text=kept,
                                        bytes=limit - used))
                cut.append(key)
                used = limit
                continue
            text = data.decode("utf-8")
            files.append(LoadedFile(key, "project", None, 0, len(text), text=text,
                                    bytes=len(data)))
            used += len(data)
        return files, cut, left_out, used

    @staticmethod
    def notice(limit: int, cut: Sequence[str], left_out: Sequence[str]) -> str | None:
        if not cut and not left_out:
            return None
        parts = [f"[toy: {limit} bytes read."]
        if cut:
            parts.append(f"Cut: {', '.join(cut)}.")
        if left_out:
            parts.append(f"Left out: {', '.join(left_out)}.")
        return " ".join(parts) + "]"

    # ----- the protocol -----------------------------------------------------------------

    def detected_by(self, ws: Workspace) -> str | None:
        return shallowest(self.own_files(ws))

    def reads(self, ws: Workspace, key: str) -> bool:
        return not key.startswith("/") and key.rsplit("/", 1)[-1] == FILE

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        cwd = "" if cwd in ("", ".") else cwd.strip("/")
        start = parent_dir(target) if target is not None else cwd
        limit = self.limit(ws)

        def compute() -> tuple[Explanation, list[str]]:
            keys = self.chain_keys(start)
            files, cut, left_out, _used = self.take(ws, keys, 0, limit)
            return Explanation(
                self.name, ws.root, cwd or ".", target, 0, files, left_out, [],
                self.notice(limit, cut, left_out), budget=self.budget(ws),
            ), keys

        # a plain Key, not a module-level KeyFamily: pytest may import this package twice
        # (as `toy_agent` and `tests.toy_agent`), and a family name may be declared once
        key = Key[Explanation](("toy-agent:explain", start, cwd, target, limit))
        return cached_explanation(ws, key, compute)

    def findings(self, ws: Workspace) -> list[Finding]:
        """budget-overflow on each TOY.txt that the budget cuts or leaves out, for the
        deepest load that holds it."""
        limit = self.limit(ws)
        out: dict[str, Finding] = {}
        for key in self.own_files(ws):
            directory = parent_dir(key)
            load = self.explain(ws, None, directory)
            where = f"`{directory}/`" if directory else "the root"
            for entry in load.files:
                if entry.cut and entry.path not in out:
                    out[entry.path] = self._finding(
                        ws, entry.path, f"{entry.path} is cut at {limit} bytes ({SETTING}) "
                        f"when working in {where}: {entry.bytes} of its bytes are read")
            for path in load.left_out:
                if path not in out:
                    out[path] = self._finding(
                        ws, path, f"{path} is left out: {SETTING} ({limit} bytes) is used up "
                        f"before it when working in {where}")
        return [out[k] for k in sorted(out)]

    @staticmethod
    def _finding(ws: Workspace, path: str, message: str) -> Finding:
        first = ws.document(path).text.split("\n", 1)[0]
        return Finding(path, Span.at(0, 0, len(first)), "warning", "budget-overflow", message)

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        if not self.reads(ws, key):
            return LoadStatus(False, why_not=f"{self.title} reads only {FILE}")
        directory = parent_dir(key)
        count = len(ws.files.under(directory + "/")) if directory else len(ws.files)
        return LoadStatus(True, count)

    def load_groups(self, ws: Workspace, cwd: str) -> list[tuple[Explanation, list[str]]]:
        """Files with the same TOY.txt files above them load the same."""
        groups: dict[tuple[str, ...], list[str]] = {}
        for path in ws.files:
            chain = tuple(k for k in self.chain_keys(parent_dir(path)) if k in ws.files)
            groups.setdefault(chain, []).append(path)
        return [(self.explain(ws, files[0], cwd), files) for files in groups.values()]

    def replay(self, ws: Workspace, steps: Sequence[ToolStep], cwd: str) -> SessionReplay:
        from rulemap.profiles.steps import SessionReplay, SessionStep, directory_of

        cwd = "" if cwd in ("", ".") else cwd.strip("/")
        limit = self.limit(ws)
        seen: set[str] = set()
        used = 0
        out: list[SessionStep] = []
        for index, (kind, paths) in enumerate(
            [("start-up", ("./" if not cwd else cwd + "/",)), *((s.kind, s.paths) for s in steps)]
        ):
            keys: list[str] = []
            for path in paths:
                directory, _is_dir = directory_of(path)
                for key in self.chain_keys(directory):
                    if key not in seen:
                        seen.add(key)
                        keys.append(key)
            files, cut, left_out, used = self.take(ws, keys, used, limit)
            out.append(SessionStep(
                index, kind, () if index == 0 else tuple(paths), tuple(files), tuple(left_out),
                tuple(cut), used, max(limit - used, 0), self.notice(limit, cut, left_out),
            ))
        return SessionReplay(self.name, self.title, ws.root, cwd or ".", self.budget(ws),
                             tuple(out))


def register() -> ToyAgent:
    """The one registry line."""
    from rulemap.profiles import register_profile

    agent = ToyAgent()
    register_profile(agent)
    return agent
