"""OpenAI Codex CLI (docs/profiles/codex.md): one instruction file per directory from the project
root down to cwd, a shared byte budget cut at the byte, no imports.

Project root: the nearest directory at or above cwd holding one of `project_root_markers`
(default `.git`, a directory or a file as in a worktree or submodule), inside the workspace; a
nested repository is its own root; no marker (or `project_root_markers = []`): cwd only. In each
directory from there down to cwd Codex reads the FIRST existing regular file (a symlink is
followed) of `AGENTS.override.md`, `AGENTS.md`, then `fallbackFilenames`: one file per directory
(an empty override still hides AGENTS.md). The files share `project_doc_max_bytes` (32 KiB),
root first: the file that crosses it is cut at the byte, with no marker, and deeper ones are
dropped. A file empty to Rust's `trim` is skipped (it uses no budget). The global
`~/.codex/AGENTS.override.md`, else `AGENTS.md` (the first non-empty one), trimmed, comes first
and is not counted. No `@imports`, no globs, no comment stripping: the bytes as they are.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from rulemap.derived import Key, KeyFamily
from rulemap.model import Budget, Explanation, Finding, LoadedFile, LoadStatus, Skipped
from rulemap.profiles.base import (
    EXPLAIN,
    Home,
    Option,
    Profile,
    ancestry,
    directory_chain,
    home_file,
    join,
    loaded_homes,
    options_of,
    parent_dir,
    shallowest,
)
from rulemap.profiles.codex.files import (
    AGENTS,
    GLOBAL_DIR,
    MAX_BYTES,
    OVERRIDE,
    ROOT_MARKERS,
    ROOT_MODES,
    RUST_WHITESPACE,
    CodexOptions,
    apply_budget,
    codex_text,
    file_bytes,
    has_marker,
    hidden_why,
    marker_above,
    name_index,
    remaining_after,
    unmarked_root,
)
from rulemap.profiles.deferred import Deferred
from rulemap.profiles.placement import cached_misplaced, misplaced_why
from rulemap.readers.base import ReadError, is_within
from rulemap.workspace.letter_case import find_named, named_as

if TYPE_CHECKING:
    from rulemap.profiles.load_log import LoadLogFormat
    from rulemap.workspace import Workspace

_OPTIONS: Final[Key[CodexOptions]] = KeyFamily[CodexOptions]("codex-options").key()
_FINDINGS: Final = KeyFamily[list[Finding]]("codex-findings")  # options


def _load_log_format() -> LoadLogFormat:
    from rulemap.profiles.codex.load_log import FORMAT

    return FORMAT


class CodexProfile(Profile):
    name = "codex"
    title = "OpenAI Codex CLI"
    description = (
        "Codex CLI: AGENTS.override.md / AGENTS.md (one per directory) from the project root "
        "down to cwd, sharing 32 KiB cut at the byte; no imports."
    )
    follows_imports = False  # `@path` reaches Codex as plain text
    startup_prefix = True  # it loads at start-up only: every target gets that load
    check_codes = ("budget-overflow", "instructions-shadowed", "import-not-followed",
                   "misplaced-file")
    watched_globs = ("**/AGENTS.md", "**/AGENTS.override.md")
    load_log_format = Deferred(_load_log_format)  # `codex debug prompt-input`
    options: tuple[Option, ...] = (
        Option(
            "project_doc_max_bytes", (int,), MAX_BYTES,
            "bytes of project instruction files Codex reads in all, root first (0: none)",
        ),
        Option(
            "fallbackFilenames", (list,), [],
            "file names tried after AGENTS.override.md and AGENTS.md in each directory "
            "(Codex's project_doc_fallback_filenames)",
        ),
        Option(
            "project_root_markers", (list,), list(ROOT_MARKERS),
            "names whose presence marks the project root (Codex's project_root_markers); "
            "[] reads cwd only",
        ),
        Option(
            "rootWithoutGit", (str,), "auto",
            'the project root when no marker exists between cwd and the workspace root: '
            '"auto" (the workspace root if a marker lies above it, else cwd), "cwd" (only '
            'cwd is read, as Codex does outside any project) or "workspace"',
            choices=ROOT_MODES,
        ),
    )

    # ----- options ----------------------------------------------------------------------

    def settings_of(self, ws: Workspace) -> CodexOptions:
        """The parsed `[profiles.codex]` options (fixed for the workspace's life)."""
        cached = ws.derived.get(_OPTIONS)
        if cached is None:
            cached = self._parse_options(ws)
            ws.derived.put(_OPTIONS, cached, reads=())
        return cached

    def _parse_options(self, ws: Workspace) -> CodexOptions:
        raw: dict[str, Any] = options_of(ws, self)
        problems: list[str] = []
        names = [OVERRIDE, AGENTS]
        for name in raw["fallbackFilenames"]:
            if not name or "/" in name or name in (".", ".."):
                problems.append(f"[profiles.codex] fallbackFilenames: `{name}` is not a file "
                                f"name; ignored")
            elif name not in names:
                names.append(name)
        markers: list[str] = []
        for marker in raw["project_root_markers"]:
            if not isinstance(marker, str) or not marker or marker.startswith("/"):
                problems.append(f"[profiles.codex] project_root_markers: `{marker}` is not a "
                                f"relative path; ignored")
            elif marker not in markers:
                markers.append(marker)
        mode = raw["rootWithoutGit"]
        if mode not in ROOT_MODES:
            problems.append(f'[profiles.codex] rootWithoutGit = "{mode}" is not one of '
                            f'{", ".join(ROOT_MODES)}; using "auto"')
            mode = "auto"
        return CodexOptions(int(raw["project_doc_max_bytes"]), tuple(names), tuple(markers),
                            mode, tuple(problems))

    # ----- the protocol -----------------------------------------------------------------

    def homes(self, ws: Workspace, target: str | None, cwd: str) -> tuple[Home, ...]:
        """What it loads (the same for every target), else AGENTS.md at the project root, the
        first directory it reads one file of."""
        cwd_dir = "" if cwd in ("", ".") else cwd.strip("/")
        root, _ = self.project_root(ws, cwd_dir, self.settings_of(ws))
        new = home_file(ws, join(root, "AGENTS.md"), "which it loads at start-up, for every "
                        "file")
        return (*loaded_homes(self.explain(ws, target, cwd), target), new)

    def detected_by(self, ws: Workspace) -> str | None:
        return shallowest(key for names in name_index(ws, (OVERRIDE, AGENTS)).values()
                          for name, key in names.items() if name in (OVERRIDE, AGENTS))

    def names_opened(self, ws: Workspace) -> tuple[str, ...]:
        # project_doc.rs: `symlink_metadata(dir.join(name))` for each candidate name
        return self.settings_of(ws).names

    def reads(self, ws: Workspace, key: str) -> bool:
        opts = self.settings_of(ws)
        directory, _, name = key.rpartition("/")
        if named_as(ws, name, opts.names) is None or key.startswith("/") or (
                "/.git/" in f"/{key}"):
            return False
        chosen, _ = self.choice(ws, directory, opts, probe=False)
        return chosen == key

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        """A file it reads loads for every target, but only on the walk from the project root
        down to the cwd: it reads its instruction files once, at start-up, never for a
        target (so a nested AGENTS.md below the cwd never loads there)."""
        misplaced = misplaced_why(ws, self, key)
        if misplaced is not None:
            return LoadStatus(False, why_not=misplaced)
        if not self.reads(ws, key):
            return LoadStatus(False, why_not=f"{self.title} does not read it")
        opts = self.settings_of(ws)
        cwd = "" if ws.config.cwd in ("", ".") else ws.config.cwd.strip("/")
        root, _ = self.project_root(ws, cwd, opts)
        directory = parent_dir(key)
        if directory in directory_chain(cwd) and (
                not root or directory == root or is_within(directory, root)):
            return LoadStatus(True, len(ws.files))
        where = directory or "."
        # as `rulemap reach` words it (reach.py), so both views say the same
        return LoadStatus(False, why_not=(
            f"not with {self.title} working in `{cwd or '.'}`: it loads at start-up when the "
            f"agent works in `{where}` (--cwd {where})"))

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        cwd_dir = "" if cwd in ("", ".") else cwd.strip("/")
        opts = self.settings_of(ws)
        home = ws.home_reader.root if ws.home_reader is not None else None
        key = EXPLAIN.key(self.name, cwd_dir, opts, home)
        base = ws.derived.get(key)
        if base is None:
            base, reads = self._start_up(ws, cwd_dir, opts)
            ws.derived.put(key, base, reads=reads)
        if target is None:
            return base
        where = parent_dir(target) or "."
        return replace(base, target=target, notes=(
            *base.notes,
            "Codex reads its instruction files once, at start-up, from the project root down "
            f"to cwd: the target adds nothing (for Codex started next to it, pass --cwd "
            f"{where})",
        ))

    def load_groups(self, ws: Workspace, cwd: str) -> list[tuple[Explanation, list[str]]]:
        """Every workspace file in one group: the target adds nothing (for `rulemap diff`)."""
        files = list(ws.files)
        return [(self.explain(ws, files[0], cwd), files)] if files else []

    def misplaced(self, ws: Workspace) -> list[Finding]:
        """A project's `.codex/AGENTS.md` (findings.py `misplaced`)."""
        cwd = "" if ws.config.cwd in ("", ".") else ws.config.cwd.strip("/")
        opts = self.settings_of(ws)
        from rulemap.profiles.codex import findings as codex_findings

        return cached_misplaced(ws, self, (opts, cwd),
                                lambda: codex_findings.misplaced(ws, opts, cwd))

    def findings(self, ws: Workspace) -> list[Finding]:
        opts = self.settings_of(ws)
        key = _FINDINGS.key(opts)
        cached = ws.derived.get(key)
        if cached is None:
            # what they read: the codex files (their bytes, their import tokens); which files
            # exist, and so which agents read them, changes only with a create or delete
            from rulemap.profiles.codex import findings as codex_findings

            found, reads = codex_findings.budget_and_shadow(ws, opts)
            cached = [*found, *codex_findings.not_followed(ws, opts)]
            ws.derived.put(key, cached, reads=reads)
        return cached

    # ----- where Codex looks ------------------------------------------------------------

    def project_root(self, ws: Workspace, cwd: str, opts: CodexOptions) -> tuple[str, bool]:
        """(the project root, whether a marker marks it). No markers: cwd, unmarked."""
        if not opts.root_markers:
            return cwd, False
        for directory in ancestry(cwd):
            if has_marker(ws, directory, opts.root_markers):
                return directory, True
        return unmarked_root(ws, opts, cwd), False

    def choice(
        self, ws: Workspace, directory: str, opts: CodexOptions, probe: bool = True
    ) -> tuple[str | None, list[str]]:
        """The file Codex reads in `directory` (None) and the ones it hides. `probe`: ask the
        reader (a load's few directories, walked or not); else the name index."""
        if probe:
            # one file, found by two names in other letter case, is still one
            present = list(dict.fromkeys(
                path for name in opts.names
                if (path := find_named(ws, directory, name)) is not None))
        else:
            found = name_index(ws, opts.names).get(directory, {})
            present = [found[n] for n in opts.names if n in found]
        if not present:
            return None, []
        return present[0], present[1:]

    # ----- the load ---------------------------------------------------------------------

    def _start_up(
        self, ws: Workspace, cwd: str, opts: CodexOptions
    ) -> tuple[Explanation, set[str]]:
        root, marked = self.project_root(ws, cwd, opts)
        chain = [d for d in directory_chain(cwd) if d == root or is_within(d, root) or not root]
        files: list[LoadedFile] = []
        skipped: list[Skipped] = []
        reads: set[str] = set()
        files.extend(self._global(ws))
        entries: list[tuple[str, bytes]] = []
        for directory in chain:
            chosen, hidden = self.choice(ws, directory, opts)
            for path in hidden:
                why = hidden_why(ws, chosen)
                skipped.append(Skipped(path, why, "instructions-shadowed"))
            if chosen is None:
                continue
            reads.add(chosen)
            data = file_bytes(ws, chosen)
            if isinstance(data, str):
                skipped.append(Skipped(chosen, f"unreadable: {data}", "unreadable-file"))
                continue
            entries.append((chosen, data))
        left_out: list[str] = []
        requested = 0
        remaining = opts.max_bytes
        for path, data in entries:
            requested += len(codex_text(data))
            verdict = apply_budget(data, remaining)
            remaining = remaining_after(remaining, data, verdict)
            if verdict.kept is None:
                left_out.append(path)
                continue
            if verdict.empty:
                why = "empty: Codex skips a file with only whitespace (Rust's trim)"
                if path.endswith("/" + OVERRIDE) or path == OVERRIDE:
                    why += " — yet, being first, it still hides AGENTS.md here"
                skipped.append(Skipped(path, why, "empty-instructions"))
                continue
            kept = data[: verdict.kept]
            text = codex_text(kept)
            files.append(LoadedFile(
                path, "project", None, 0, len(text), cut=verdict.cut, text=text,
                bytes=verdict.kept, cut_line=kept.count(b"\n") if verdict.cut else None))
        notes = [self._root_note(ws, root, marked, opts)]
        notes.append(
            f"project_doc_max_bytes = {opts.max_bytes:,} shared root first: the file that "
            "crosses it is cut at the byte with no marker, deeper files are dropped"
        )
        if ws.home_reader is None:
            notes.append("the global ~/.codex/AGENTS.md is not read: pass --home DIR")
        notes.extend(opts.problems)
        explanation = Explanation(
            profile=self.name,
            root=ws.root,
            cwd=cwd or ".",
            target=None,
            max_chars=opts.max_bytes,
            files=files,
            left_out=left_out,
            skipped=skipped,
            notice=None,  # Codex adds no marker where it cuts
            requested_chars=requested,
            budget=Budget("shared", "bytes", opts.max_bytes, "project_doc_max_bytes"),
            notes=tuple(notes),
        )
        return explanation, reads

    @staticmethod
    def _root_note(ws: Workspace, root: str, marked: bool, opts: CodexOptions) -> str:
        shown = f"`{root}`" if root else "the workspace root"
        names = ", ".join(opts.root_markers)
        if not opts.root_markers:
            return "project_root_markers = []: Codex reads cwd only"
        if marked:
            return (f"project root: {shown} (the nearest directory at or above cwd with "
                    f"{names})")
        above = marker_above(ws, opts.root_markers) if opts.root_without_git == "auto" else ""
        if above:
            return (f"no {names} at or above cwd in the workspace, but `{above}` holds one: "
                    f"Codex's project root lies above the workspace, whose root stands in for "
                    f"it (files above it are not read here)")
        if not root and opts.root_without_git == "workspace":
            return (f"no {names} at or above cwd in the workspace: the project root is taken "
                    f"to be {shown} (rootWithoutGit)")
        return (f"no {names} at or above cwd, in or above the workspace: Codex reads cwd only "
                f'(rootWithoutGit = "workspace" takes the workspace root instead)')

    @staticmethod
    def _global(ws: Workspace) -> list[LoadedFile]:
        """~/.codex/AGENTS.override.md, else ~/.codex/AGENTS.md: the first non-empty one,
        trimmed, whole and outside the budget (an empty global override falls through to
        AGENTS.md; only in project directories does an empty override hide AGENTS.md)."""
        reader = ws.home_reader
        if reader is None:
            return []
        for name in (OVERRIDE, AGENTS):
            path = f"{reader.root}/{GLOBAL_DIR}/{name}"
            if not reader.exists(path) or reader.is_dir(path):
                continue
            try:
                data = reader.read_bytes(path)
            except ReadError:
                continue
            text = codex_text(data).strip(RUST_WHITESPACE)
            if not text:
                continue
            return [LoadedFile(path, "user", None, 0, len(text), text=text, bytes=len(data),
                               note="global: not counted in project_doc_max_bytes")]
        return []
