"""What Codex alone suffers (docs/profiles/codex.md#findings): files its byte budget cuts or
drops, files another name hides, and `@imports` only agents without imports read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from rulemap.derived import Key, KeyFamily
from rulemap.model import Finding, Related, Span
from rulemap.profiles.base import parent_dir, selected, unreadable_file
from rulemap.profiles.codex.files import (
    GLOBAL_DIR,
    CodexOptions,
    Verdict,
    apply_budget,
    codex_text,
    decode_lossy,
    file_bytes,
    has_marker,
    is_blank,
    name_index,
    nearest_above,
    raw_bytes,
    remaining_after,
    unmarked_root,
)
from rulemap.profiles.placement import home_marker
from rulemap.records import record
from rulemap.text.positions import split_lines


def misplaced(ws: Workspace, opts: CodexOptions, cwd: str) -> list[Finding]:
    """Instruction files in a `.codex/` directory: Codex reads its names in each directory
    from the project root down to its working directory (project_doc.rs
    `discover_project_doc_paths`) and the user's `~/.codex/AGENTS.md` (`$CODEX_HOME`), so a
    project's `.codex/AGENTS.md` loads only with Codex started inside `.codex/` — never
    reported when the cwd is there."""
    out: list[Finding] = []
    home = home_marker(ws)
    for directory, names in sorted(name_index(ws, opts.names).items()):
        owner, _, last = directory.rpartition("/")
        if last != GLOBAL_DIR or cwd == directory or cwd.startswith(directory + "/"):
            continue
        # a home directory kept in git (dotfiles): its `.codex/` is the user's own
        dotfiles = home is not None and not owner
        for name, key in sorted(names.items()):
            there = f"`{owner}/{name}`" if owner else f"`{name}` at the root"
            out.append(Finding(
                key, Span.at(0, 0), "information" if dotfiles else "warning", "misplaced-file",
                f"Codex reads `{name}` in each directory from the project root down to its "
                f"working directory, and the user's `~/{GLOBAL_DIR}/{name}`; a project's "
                f"`{GLOBAL_DIR}/` is neither, so it never reads `{key}` (only if started inside "
                f"`{directory}/`). "
                + (f"This tree looks like a home directory (`{home}` at its top): installed "
                   f"as one, it is the user's global file, read in every project" if dotfiles
                   else f"Move it to {there}")))
    return out

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


@record(frozen=True)
class DirState:
    """The byte budget once Codex read one directory's file: bytes left, the last files read
    (up to 3, root first), how many were read and their bytes, and the finding on the
    directory's own file, if the budget cut or dropped it."""

    remaining: int
    read: tuple[str, ...]
    count: int
    total: int
    finding: Finding | None


_SHADOW: Final = KeyFamily[Finding]("codex-shadow")  # hidden file, the file read instead
_STATE: Final = KeyFamily[DirState]("codex-state")  # directory, options
_NOT_FOLLOWED: Final = KeyFamily[list[Finding]]("codex-not-followed")  # file


def budget_and_shadow(ws: Workspace, opts: CodexOptions) -> tuple[list[Finding], set[str]]:
    """budget-overflow for every file the byte budget cuts or drops, and
    instructions-shadowed for every hidden file. The verdict on a file depends only on
    the files above it (root first), so each directory's state is kept on its parent's:
    an edit recomputes the edited directory and those below it."""
    index = name_index(ws, opts.names)
    out: list[Finding] = []
    reads: set[str] = set()
    chosen: dict[str, str] = {}
    for directory, names in index.items():
        present = [names[n] for n in opts.names if n in names]
        reads.update(present)
        chosen[directory] = present[0]
        for hidden in present[1:]:
            key = _SHADOW.key(hidden, present[0])
            finding = ws.derived.get(key)
            if finding is None:
                finding = _shadow_finding(ws, hidden, present[0])
                ws.derived.put(key, finding, reads=(hidden, present[0]))
            out.append(finding)
    roots: dict[str, str | None] = {}
    for directory in sorted(chosen, key=lambda d: (d.count("/") if d else -1, d)):
        state = _state(ws, directory, opts, chosen, roots)[1]
        if state.finding is not None:
            out.append(state.finding)
    # an unreadable AGENTS.override.md or fallback file: the generic check reports only
    # the default model's file names
    linted: set[str] | None = None
    for path in chosen.values():
        data = file_bytes(ws, path)
        if isinstance(data, str):
            linted = linted if linted is not None else set(ws.lint_documents())
            if path not in linted:
                out.append(unreadable_file(
                    path, data, "Codex skips it (and, being the first name found here, it "
                    "still hides the others)", cannot="be read"))
    return out, reads


def _state(
    ws: Workspace, directory: str, opts: CodexOptions, chosen: dict[str, str],
    roots: dict[str, str | None],
) -> tuple[Key[DirState], DirState]:
    """What the byte budget has done once Codex read `directory`'s file (called shallow
    first, so the state above is always cached: no deep recursion)."""
    key = _STATE.key(directory, opts)
    cached = ws.derived.get(key)
    if cached is not None:
        return key, cached
    root = _root_of(ws, directory, opts, roots)
    above = nearest_above(directory, root, chosen)
    after: list[Key[Any]] = []
    if above is None:
        before = DirState(opts.max_bytes, (), 0, 0, None)
    else:
        above_key, before = _state(ws, above, opts, chosen, roots)
        after.append(above_key)
    path = chosen[directory]
    data = file_bytes(ws, path)
    if isinstance(data, str):  # unreadable: it takes nothing
        state = DirState(before.remaining, before.read, before.count, before.total, None)
    else:
        verdict = apply_budget(data, before.remaining)
        finding = None
        if verdict.cut or (verdict.kept is None and not is_blank(codex_text(data))):
            finding = _budget_finding(ws, path, directory, data, verdict, root, before, opts)
        read, count, total = before.read, before.count, before.total
        if verdict.kept is not None and not verdict.empty:
            read, count, total = (*read, path)[-3:], count + 1, total + verdict.kept
        state = DirState(remaining_after(before.remaining, data, verdict), read, count, total,
                         finding)
    ws.derived.put(key, state, reads=(path,), after=after)
    return key, state


def _root_of(ws: Workspace, directory: str, opts: CodexOptions,
             roots: dict[str, str | None]) -> str:
    """The project root of `directory` (memoized over the directories walked: a deep
    tree costs one marker probe per directory). No markers: Codex reads cwd only."""
    if not opts.root_markers:
        return directory
    walked: list[str] = []
    current = directory
    found: str | None
    while True:
        if current in roots:
            found = roots[current]
            break
        walked.append(current)
        if has_marker(ws, current, opts.root_markers):
            found = current
            break
        if current == "":
            found = None  # no marker up to the workspace root
            break
        current = parent_dir(current)
    for seen in walked:
        roots[seen] = found
    if found is None:
        return unmarked_root(ws, opts, directory)
    return found


def _budget_finding(
    ws: Workspace, path: str, directory: str, data: bytes, verdict: Verdict,
    root: str, before: DirState, opts: CodexOptions,
) -> Finding:
    where = f"`{directory}`" if directory else "the workspace root"
    from_root = f" from `{root}`" if root else ""
    # without a marker Codex reads cwd only: the verdict holds in this directory alone
    alone = root == directory and not (opts.root_markers and has_marker(ws, directory,
                                                                        opts.root_markers))
    below = "" if alone else " or below"
    when = f"when Codex starts in {where}{below}, its project files{from_root}"
    if verdict.cut and verdict.kept is not None:
        kept = data[: verdict.kept]
        line = kept.count(b"\n")
        start = kept.rfind(b"\n") + 1
        column = len(kept[start:].decode("utf-8", errors="ignore"))
        lines = split_lines(decode_lossy(data))
        end = len(lines[line]) if line < len(lines) else column
        total = before.total + len(data)
        move = (f"Move what matters above line {line + 1}, shorten the files above it"
                if line else "Shorten this file or the ones above it")
        return Finding(
            path, Span.at(line, column, max(column, end)), "warning", "budget-overflow",
            f"{when} total {total:,} bytes, over project_doc_max_bytes "
            f"{opts.max_bytes:,}: this file is cut at byte {verdict.kept:,} (line "
            f"{line + 1}), with no marker, so Codex never sees the rest. {move}, or raise "
            f"project_doc_max_bytes in Codex's config.toml (and in [profiles.codex])")
    lines = split_lines(decode_lossy(data))
    span = Span.at(0, 0, len(lines[0]))
    if opts.max_bytes == 0:
        return Finding(path, span, "warning", "budget-overflow",
                       "project_doc_max_bytes = 0: Codex reads no project instruction "
                       "files, so it never reads this one")
    used = ", ".join(f"`{p}`" for p in before.read) or "nothing"
    if before.count > len(before.read):
        used = f"… {used}"
    return Finding(
        path, span, "warning", "budget-overflow",
        f"{when} use up project_doc_max_bytes {opts.max_bytes:,} before this file "
        f"(read first: {used}), so Codex never reads it. Shorten the files above it, or "
        f"raise project_doc_max_bytes in Codex's config.toml (and in [profiles.codex])")


def _shadow_finding(ws: Workspace, hidden: str, chosen: str) -> Finding:
    first = chosen.rsplit("/", 1)[-1]
    data = file_bytes(ws, chosen)
    empty = not isinstance(data, str) and is_blank(codex_text(data))
    but = " — it is empty, yet it still takes this directory's place" if empty else ""
    lines = split_lines(decode_lossy(raw_bytes(ws, hidden)))
    return Finding(
        hidden, Span.at(0, 0, len(lines[0])), "warning", "instructions-shadowed",
        f"Codex reads one instruction file per directory, the first that exists of "
        f"AGENTS.override.md, AGENTS.md and the fallback names: `{first}` here comes "
        f"first{but}, so this file is never read. Merge what it says into `{first}`, or "
        f"delete `{first}`",
        related=[Related(chosen, Span.at(0, 0), "Codex reads this file instead")])


def not_followed(ws: Workspace, opts: CodexOptions) -> list[Finding]:
    """`@imports` in files that, of the selected agents, only agents without imports read
    (reported once: by the first such agent that reads the file, in selection order)."""
    out: list[Finding] = []
    for names in name_index(ws, opts.names).values():
        key = next(names[n] for n in opts.names if n in names)
        cache_key = _NOT_FOLLOWED.key(key)
        found = ws.derived.get(cache_key)
        if found is None:
            found = _not_followed_in(ws, key)
            # which agents read it changes only with a create or delete
            ws.derived.put(cache_key, found, reads=(key,))
        out.extend(found)
    return out


def _not_followed_in(ws: Workspace, key: str) -> list[Finding]:
    from rulemap.model import ImportStatus

    doc = ws.document(key)
    if doc.unreadable or not doc.imports:
        return []
    readers = [p for p in selected(ws) if p.reads(ws, key)]
    if not readers or any(p.follows_imports for p in readers):
        return []
    if readers[0].name != "codex":
        return []  # the first selected agent without imports that reads it says it
    others = [p.title for p in readers if p.name != "codex"]
    nor = f" (nor do {', '.join(others)}, the other agents reading it)" if others else ""
    out: list[Finding] = []
    for ref, resolved in ws.imports(key):
        # only a token naming an existing file: that file is what the agent misses (a
        # missing one is the generic broken-import; `@alice` is no import anyone follows)
        if resolved.status is not ImportStatus.OK:
            continue
        out.append(Finding(
            key, ref.span, "information", "import-not-followed",
            f"Codex has no imports: `@{ref.raw}` reaches it as plain text and "
            f"`{resolved.target}` is never loaded{nor}. Inline what the agent must know, "
            f"or name the file in prose so it can open it"))
    return out


