"""What Gemini loads for `explain`: the global file, the git root down to the cwd, then either
what just-in-time loading adds when a file tool touches the target (`jitContext`, the default)
or the bounded scan below the cwd (the older eager load), each file followed by its imports
depth-first."""

from __future__ import annotations

import bisect
import posixpath
from collections import deque
from typing import TYPE_CHECKING, Final, Literal

from rulemap.derived import KeyFamily
from rulemap.globs import CompiledGlobs, compile_patterns
from rulemap.model import Budget, Explanation, LoadedFile, Skipped
from rulemap.profiles.base import directory_chain, join, options_of, parent_dir
from rulemap.profiles.gemini.imports import GeminiToken
from rulemap.profiles.gemini.paths import (
    IGNORE_FILE,
    JIT_TOOL_LIST,
    MAX_DEPTH,
    MAX_LISTED,
    Root,
    Target,
    file_exists,
    git_root,
    home_gemini,
    in_home,
    is_named_here,
    named_files,
    names_of,
    project_root,
    read_text,
    resolve,
    settings_names,
    tokens_of,
)
from rulemap.profiles.gemini.settings import names_notes, project_settings
from rulemap.records import record
from rulemap.workspace.letter_case import find_named

if TYPE_CHECKING:
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace


@record(frozen=True)
class _Scan:
    """What the bounded downward scan saw below one cwd."""

    scanned: int  # directories listed (the cwd included)
    cut: bool  # the bound stopped it with directories left
    found: tuple[str, ...]  # context files in scanned directories, sorted by path
    beyond: tuple[str, ...]  # context files below the cwd it never reached


_SCAN: Final = KeyFamily[_Scan]("gemini-scan")  # cwd, context file names, directory limit
Reason = Literal["user", "project", "nested"]


def _ignore_spec(ws: Workspace, cwd: str) -> tuple[str, CompiledGlobs | None]:
    """The cwd's `.geminiignore` (gitignore syntax, relative to the cwd), if it has patterns."""
    key = join(cwd, IGNORE_FILE)
    if not file_exists(ws, key):
        return key, None
    doc = ws.document(key)
    if doc.unreadable:
        return key, None
    patterns = [line.strip() for line in doc.lines
                if line.strip() and not line.lstrip().startswith("#")]
    return key, compile_patterns(patterns) if patterns else None


def _children(paths: list[str], directory: str) -> list[str]:
    """The subdirectories of `directory` that hold listed files, sorted: a bisection jumps over
    each subtree, so only the files directly in `directory` are looked at one by one."""
    prefix = f"{directory}/" if directory else ""
    out: list[str] = []
    lo = bisect.bisect_left(paths, prefix)
    while lo < len(paths) and paths[lo].startswith(prefix):
        rest = paths[lo][len(prefix):]
        slash = rest.find("/")
        if slash < 0:
            lo += 1
            continue
        child = prefix + rest[:slash]
        out.append(child)
        lo = bisect.bisect_left(paths, child + "0", lo)  # "0" sorts right after "/"
    return out


def downward_scan(ws: Workspace, cwd: str, names: tuple[str, ...], limit: int) -> tuple[_Scan, str]:
    """Breadth-first over the directories below `cwd` (the cwd first), at most `limit` of them,
    children in name order, leaving out what `.geminiignore` ignores (git-ignored files are not
    in the index). Cached until a file is created or deleted or `.geminiignore` changes."""
    ignore_key, spec = _ignore_spec(ws, cwd)
    cache_key = _SCAN.key(cwd, names, limit)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached, ignore_key
    cut_at = len(cwd) + 1 if cwd else 0

    def ignored(path: str, directory: bool) -> bool:
        return spec is not None and spec.match(path[cut_at:] + ("/" if directory else ""))

    paths = ws.files.under(f"{cwd}/" if cwd else "")
    queue: deque[str] = deque([cwd])
    scanned: list[str] = []
    while queue and len(scanned) < limit:
        directory = queue.popleft()
        scanned.append(directory)
        queue.extend(c for c in _children(paths, directory) if not ignored(c, True))
    seen = set(scanned)
    found: list[str] = []
    beyond: list[str] = []
    for path in named_files(ws, names):
        if cwd and not path.startswith(cwd + "/"):
            continue
        if path in ws.files and not ignored(path, False) and is_named_here(path, names):
            (found if parent_dir(path) in seen else beyond).append(path)
    result = _Scan(len(scanned), bool(queue), tuple(sorted(found)), tuple(sorted(beyond)))
    ws.derived.put(cache_key, result, reads=(ignore_key,))
    return result, ignore_key


class Loader:
    def __init__(self, ws: Workspace, profile: Profile) -> None:
        self.ws = ws
        self.profile = profile
        opts = options_of(ws, profile)
        self.names = names_of(ws, profile)
        self.jit: bool = opts["jitContext"]
        self.downward: bool = opts["downwardScan"] and not self.jit
        self.limit: int = opts["maxScanDirs"]
        self.files: list[LoadedFile] = []
        self.skipped: list[Skipped] = []
        self.notes: list[str] = []
        self.reads: set[str] = set()
        self.listed = 0
        self.capped = False
        self.seen: dict[str, str] = {}  # identity → the key it was loaded as

    def explain(self, target: str | None, cwd: str) -> tuple[Explanation, set[str]]:
        self.notes.extend(names_notes(settings_names(self.ws, self.profile)))
        self.reads.add(project_settings(self.ws))
        self.load_all(self.startup_tops(cwd))
        if self.jit and target is not None:
            before = len(self.files)
            self.load_all([(k, "nested") for k in self.jit_files(parent_dir(target), cwd)])
            if any(f.reason == "nested" for f in self.files[before:]):
                self.notes.append(f"`nested`: loaded just in time when {JIT_TOOL_LIST} "
                                  f"touches `{target}` (appended to the tool's output)")
        if self.capped:
            self.notes.append(f"the import tree has more than {MAX_LISTED} entries; Rulemap "
                              f"stops listing there (Gemini repeats a file for every chain)")
        explanation = Explanation(
            profile="gemini", root=self.ws.root, cwd=cwd or ".", target=target, max_chars=0,
            files=self.files, left_out=[], skipped=self.skipped, notice=None,
            requested_chars=sum(f.chars for f in self.files),
            budget=Budget("none", "chars", 0), notes=tuple(self.notes))
        return explanation, self.reads

    def startup_tops(self, cwd: str) -> list[tuple[str, Reason]]:
        """The context files of the start-up load, in order: the global one, the git root down
        to the cwd, then (the eager load) what the scan below the cwd finds."""
        ws = self.ws
        tops: list[tuple[str, Reason]] = []
        home = home_gemini(ws)
        if home is not None:
            assert ws.home_reader is not None
            for name in self.names:
                full = posixpath.join(home, name)
                if ws.home_reader.exists(full) and not ws.home_reader.is_dir(full):
                    tops.append((full, "user"))
        top_root = git_root(ws, cwd)
        chain = directory_chain(cwd)
        chain = chain[chain.index(top_root):] if top_root in chain else chain
        for directory in chain:
            for name in self.names:
                # fs.access(path.join(dir, name)): other letter case on macOS and Windows
                key = find_named(ws, directory, name)
                if key is not None and (key, "project") not in tops:
                    tops.append((key, "project"))
        where = f"`{top_root}`" if top_root else "the workspace root"
        self.notes.append(f"the walk up from the cwd stops at the git root, {where}")
        if self.downward:
            scan, ignore_key = downward_scan(ws, cwd, self.names, self.limit)
            self.reads.add(ignore_key)
            tops.extend((key, "nested") for key in scan.found)
            bound = f"{scan.scanned} director{'y' if scan.scanned == 1 else 'ies'}"
            self.notes.append(
                f"the scan below the cwd listed {bound} (maxScanDirs = {self.limit})"
                + (", and stopped there" if scan.cut else ""))
            for key in scan.beyond:
                self.skipped.append(Skipped(
                    key, f"below the cwd, past the scan's {self.limit}-directory bound "
                         f"(maxScanDirs); Gemini does not find it", "unreachable-rule"))
        elif self.jit:
            self.notes.append(f"context files below the cwd load just in time, when "
                              f"{JIT_TOOL_LIST} touches a path below them (jitContext)")
        return tops

    def load_all(self, tops: list[tuple[str, Reason]]) -> None:
        """Each context file once (by identity: `seen`, shared across calls), with its
        imports."""
        for key, reason in tops:
            identity = self.identity(key)
            if identity in self.seen:
                if self.seen[identity] != key:
                    self.skipped.append(Skipped(
                        key, f"the same file as `{self.seen[identity]}`, read once",
                        "duplicate-load"))
                continue
            self.seen[identity] = key
            self._load_top(key, reason)

    def identity(self, key: str) -> str:
        if key.startswith("/") and in_home(self.ws, key):
            assert self.ws.home_reader is not None
            return self.ws.home_reader.identity(key)
        return self.ws.identity(key)

    def jit_files(self, directory: str, cwd: str) -> list[str]:
        """What just-in-time loading finds for a path in `directory` (a file's own directory,
        or a directory a tool lists): the context files from the git root of the cwd (the
        ceiling) down to `directory`, root first; those of the start-up load come again and
        are dropped as already loaded (`load_all`). Nothing for a path outside the cwd,
        Gemini's trusted workspace directory."""
        inside = not cwd or directory == cwd or directory.startswith(cwd + "/")
        if not inside:
            self.notes.append(f"`{directory or '.'}` is not below the cwd (Gemini's workspace "
                              f"directory): no context files load just in time for it")
            return []
        ceiling = git_root(self.ws, cwd)
        out: list[str] = []
        for step in directory_chain(directory):
            if ceiling and step != ceiling and not step.startswith(ceiling + "/"):
                continue
            for name in self.names:
                key = find_named(self.ws, step, name)
                if key is not None and key not in out:
                    out.append(key)
        return out

    def _load_top(self, key: str, reason: Reason) -> None:
        text, why = read_text(self.ws, key)
        self.reads.add(key)
        if why:
            self.skipped.append(Skipped(key, f"unreadable: {why}", "unreadable-file"))
            return
        if not text.strip():
            self.skipped.append(Skipped(key, "empty: Gemini leaves it out", "empty-instructions"))
            return
        self.files.append(LoadedFile(key, reason, None, 0, len(text), text=text))
        if not self.capped:
            self._expand(key, project_root(self.ws, key))

    def _expand(self, top: str, root: Root) -> None:
        """The imports of `top`, depth-first, each right after its importer. A frame is (file,
        depth, the files on its chain, its tokens, the next token's index)."""
        ws = self.ws
        frames: list[list[object]] = [[top, 0, frozenset(), tokens_of(ws, top), 0]]
        while frames and not self.capped:
            frame = frames[-1]
            key, depth, on_chain, tokens, index = frame
            assert isinstance(key, str) and isinstance(depth, int)
            assert isinstance(on_chain, frozenset) and isinstance(tokens, list)
            assert isinstance(index, int)
            if index >= len(tokens):
                frames.pop()
                continue
            frame[4] = index + 1
            token: GeminiToken = tokens[index]
            if token.kind != "import":
                continue
            line = token.span.start.line
            if depth >= MAX_DEPTH:
                shown = resolve(ws, key, token, root).key
                self._skip(Skipped(
                    shown, f"`@{token.path}` in `{key}` (import depth {depth}) stays plain "
                           f"text: Gemini expands imports {MAX_DEPTH} levels deep",
                    "import-too-deep", key, line))
                continue
            found = resolve(ws, key, token, root)
            problem = self._problem(found, token, root, on_chain)
            if problem is not None:
                why, code = problem
                self._skip(Skipped(found.key, why, code, key, line))
                continue
            text, unreadable = read_text(ws, found.key)
            self.reads.add(found.key)
            if unreadable:
                self._skip(Skipped(found.key, f"unreadable: {unreadable}", "unreadable-file",
                                   key, line))
                continue
            self.files.append(LoadedFile(found.key, "import", key, depth + 1, len(text),
                                         import_line=line, text=text))
            self._count()
            frames.append([found.key, depth + 1, on_chain | {found.absolute},
                           tokens_of(ws, found.key), 0])

    def _skip(self, entry: Skipped) -> None:
        self.skipped.append(entry)
        self._count()

    def _count(self) -> None:
        """Entries of import trees listed so far (loaded or skipped): a lattice of diamonds
        doubles per level, so the listing stops at MAX_LISTED."""
        self.listed += 1
        if self.listed >= MAX_LISTED:
            self.capped = True

    @staticmethod
    def _problem(found: Target, token: GeminiToken, root: Root,
                 on_chain: frozenset[str]) -> tuple[str, str] | None:
        if found.status == "url":
            return ("Gemini refuses a URL after `@` and puts an `Import failed` comment in "
                    "its place", "suspicious-import")
        if found.status == "outside":
            where = f"`{root.key}`" if root.key else "the workspace root"
            return (f"outside the project root ({where}): Gemini refuses it and puts an "
                    f"`Import failed` comment in its place", "import-outside-workspace")
        if found.absolute in on_chain:
            return ("already on this import chain: Gemini stops the cycle here",
                    "import-cycle")
        if found.status == "missing":
            return (f"`@{token.path}` does not exist: Gemini puts an `Import failed` comment "
                    f"in its place", "broken-import")
        if found.status == "directory":
            return f"`@{token.path}` is a directory: imports name files", "broken-import"
        return None
