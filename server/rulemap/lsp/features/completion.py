"""Completion of `@import` paths and of `paths:` globs in rule frontmatter."""

from __future__ import annotations

import posixpath
import re
from collections import Counter

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.markdown import frontmatter_end, markdown_layout
from rulemap.host.text import Encoding
from rulemap.lsp.convert import to_range
from rulemap.lsp.features._util import (
    core_pos,
    escape_path,
    never_raise,
    plural,
    readable_doc,
)
from rulemap.model import Document, Pos, Span

MAX_ITEMS = 500
MAX_EXTENSIONS = 6
_WILDCARD = re.compile(r"[*?\[\]{}]")
_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")
_YAML_SPECIAL_START = set("*!&{}[]|>%@`#,?:-'\"")
_RETRIGGER = types.Command(title="Suggest", command="editor.action.triggerSuggest")


def _empty() -> types.CompletionList:
    return types.CompletionList(is_incomplete=False, items=[])


@never_raise(_empty)
def completion(
    snap: Snapshot,
    key: str,
    pos: types.Position,
    encoding: Encoding = "utf-16",
) -> types.CompletionList:
    """Paths after `@` (relative to the importing file, from the git-aware file index) and,
    inside the value of a rule's glob key — `paths:`, or the agent's own (Copilot's
    `applyTo:`, Cursor's `globs:`) — globs and paths relative to the directory they are
    relative to, each counted in the glob dialect of the snapshot's agent."""
    if not snap.is_markdown(key):
        return _empty()
    doc = readable_doc(snap, key)
    at = core_pos(doc, pos, encoding) if doc is not None else None
    if doc is None or at is None:
        return _empty()
    fm_end = frontmatter_end(snap, key)
    if fm_end is not None and at.line <= fm_end:
        scoped = snap.glob_key(key)
        if scoped is not None and 0 < at.line < fm_end:
            return _paths_completion(snap, key, doc, at, encoding, *scoped)
        return _empty()
    return _import_completion(snap, key, doc, at, encoding, 0 if fm_end is None else fm_end + 1)


# ----- @imports -----------------------------------------------------------------------------


def _token_start(line: str, col: int) -> int:
    """Start of the whitespace-delimited token ending at `col` (`\\ ` is not a delimiter)."""
    index = col
    while index > 0:
        ch = line[index - 1]
        if ch.isspace() and not (ch == " " and index >= 2 and line[index - 2] == "\\"):
            break
        index -= 1
    return index


def _segment_end(line: str, col: int, stops: str) -> int:
    end = col
    while end < len(line) and not line[end].isspace() and line[end] not in stops:
        end += 1
    return end


def _import_completion(
    snap: Snapshot, key: str, doc: Document, at: Pos, encoding: Encoding, first_line: int
) -> types.CompletionList:
    line = doc.lines[at.line]
    start = _token_start(line, at.col)
    if start >= len(line) or line[start] != "@":
        return _empty()
    scanned = markdown_layout(snap, key, first_line)
    if at.line in scanned.code_lines or at.line in scanned.comment_lines:
        return _empty()
    offset = scanned.starts[at.line] + start
    if any(a <= offset < b for a, b in scanned.inline_code):
        return _empty()
    raw = line[start + 1 : at.col]
    if raw.startswith(("~", "/")):
        return _empty()
    raw_dir = raw[: raw.rfind("/") + 1]
    typed_dir = raw_dir.replace("\\ ", " ")
    importer_dir = posixpath.dirname(key)
    base = (
        posixpath.normpath(posixpath.join(importer_dir, typed_dir))
        if (importer_dir or typed_dir)
        else "."
    )
    if base == ".":
        base = ""
    if base == ".." or base.startswith("../") or key.startswith("/"):
        return _empty()
    seg_start = start + 1 + len(raw_dir)
    seg_end = _segment_end(line, at.col, "/")
    span = Span(Pos(at.line, seg_start), Pos(at.line, seg_end))
    range_ = to_range(doc.lines, span, encoding)
    files, dirs = _children(snap, base)
    items: list[types.CompletionItem] = []
    if raw.replace("../", "") == "" and base:
        items.append(
            _item("../", types.CompletionItemKind.Folder, "parent directory", "1", range_, True)
        )
    for name, count in sorted(dirs.items()):
        items.append(
            _item(
                escape_path(name) + "/",
                types.CompletionItemKind.Folder,
                plural(count, "file"),
                "1",
                range_,
                True,
                label=name + "/",
            )
        )
    for name in sorted(files):
        path = f"{base}/{name}" if base else name
        if path == key:
            continue
        group = "0" if name.lower().endswith((".md", ".mdx", ".mdc", ".txt")) else "2"
        detail = "instruction file" if snap.is_instruction(path) else "file"
        items.append(
            _item(
                escape_path(name),
                types.CompletionItemKind.File,
                detail,
                group,
                range_,
                False,
                label=name,
            )
        )
    return types.CompletionList(is_incomplete=len(items) > MAX_ITEMS, items=items[:MAX_ITEMS])


def _children(snap: Snapshot, base: str) -> tuple[list[str], dict[str, int]]:
    """Files directly in `base` and its subdirectories with their file counts."""
    return snap.children(base)


def _item(
    text: str,
    kind: types.CompletionItemKind,
    detail: str,
    group: str,
    range_: types.Range,
    retrigger: bool,
    label: str | None = None,
    filter_text: str | None = None,
) -> types.CompletionItem:
    label = label or text
    return types.CompletionItem(
        label=label,
        kind=kind,
        detail=detail,
        sort_text=f"{group}{label.lower()}",
        filter_text=filter_text or label,
        text_edit=types.TextEdit(range=range_, new_text=text),
        command=_RETRIGGER if retrigger else None,
    )


# ----- paths: globs -------------------------------------------------------------------------


def _in_key(doc: Document, at: Pos, key: str) -> bool:
    """Whether `at` is in the value of the top-level `key` (robust to invalid YAML)."""
    for number in range(at.line, 0, -1):
        text = doc.lines[number]
        match = _TOP_KEY.match(text)
        if match:
            if match.group(1) != key:
                return False
            return number < at.line or at.col > text.index(":")
        if text and not text[0].isspace() and not text.startswith(("-", "#")):
            return False
    return False


def _item_start(line: str, col: int, key: str) -> int:
    """Where the glob being typed starts: after `- `, `KEY:`, `[` or `,`, and spaces."""
    head = line[:col]
    cut = max(head.rfind(","), head.rfind("["))
    if cut < 0:
        match = re.match(r"^\s*-\s*", head) or re.match(rf"^{re.escape(key)}\s*:\s*", head)
        cut = match.end() - 1 if match else -1
    start = cut + 1
    while start < col and line[start] in " \t":
        start += 1
    return start


def _paths_completion(
    snap: Snapshot, rule: str, doc: Document, at: Pos, encoding: Encoding, key: str,
    owner: str,
) -> types.CompletionList:
    if not _in_key(doc, at, key):
        return _empty()
    line = doc.lines[at.line]
    start = _item_start(line, at.col, key)
    quoted = start < len(line) and line[start] in "'\"" and start < at.col
    if quoted:
        start += 1
    typed = line[start : at.col]
    literal_dir = typed[: typed.rfind("/") + 1]
    if _WILDCARD.search(literal_dir) or ".." in literal_dir.split("/"):
        return _empty()
    base = posixpath.normpath(posixpath.join(owner, literal_dir)) if (owner or literal_dir) else ""
    base = "" if base == "." else base
    end = _segment_end(line, at.col, "'\",]#")
    range_ = to_range(doc.lines, Span(Pos(at.line, start), Pos(at.line, end)), encoding)
    prefix = f"{base}/" if base else ""
    under = snap.files_under(prefix)
    files, dirs = _children(snap, base)
    items: list[types.CompletionItem] = []
    # an agent with its own glob dialect counts each suggestion as the profile matches it
    # (where its `dir/**` may mean more than one directory); the others as the tree is laid out
    dialect = snap.own_glob_dialect()

    def add(
        glob: str, kind: types.CompletionItemKind, detail: str, group: str, retrigger: bool
    ) -> None:
        # (a directory to go on typing into is no glob yet: its count is the files below it)
        if (dialect and len(items) < MAX_ITEMS and kind is not types.CompletionItemKind.File
                and not retrigger):
            detail = plural(len(snap.matches(rule, glob)), "file")
        text = glob
        if not quoted and glob[:1] in _YAML_SPECIAL_START:
            text = f'"{glob}"'
        items.append(
            _item(text, kind, detail, group, range_, retrigger, label=glob, filter_text=glob)
        )

    extensions: Counter[str] = Counter()
    for path in under:
        name = path.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        if dot > 0:
            extensions[name[dot:]] += 1
    for extension, count in extensions.most_common(MAX_EXTENSIONS):
        add(
            f"{literal_dir}**/*{extension}",
            types.CompletionItemKind.Value,
            plural(count, "file"),
            "0",
            False,
        )
    if literal_dir and under:
        add(
            f"{literal_dir}**",
            types.CompletionItemKind.Folder,
            plural(len(under), "file"),
            "0",
            False,
        )
    for name, count in sorted(dirs.items()):
        add(
            f"{literal_dir}{name}/**",
            types.CompletionItemKind.Folder,
            plural(count, "file"),
            "1",
            False,
        )
        add(
            f"{literal_dir}{name}/",
            types.CompletionItemKind.Folder,
            plural(count, "file"),
            "2",
            True,
        )
    for name in sorted(files):
        add(f"{literal_dir}{name}", types.CompletionItemKind.File, "file", "3", False)
    return types.CompletionList(is_incomplete=len(items) > MAX_ITEMS, items=items[:MAX_ITEMS])
