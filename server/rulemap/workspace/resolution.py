"""Import resolution: each document's `@imports` resolved to workspace keys, and the reverse
edges (who imports a path, whatever the status), both cached per importer and dropped with it.

A path outside the root is an absolute key, allowed only under the user's `allowImportsFrom`;
a symlink inside the root that resolves outside is outside too."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from rulemap.model import ImportRef, ImportStatus, Resolved
from rulemap.readers.base import is_within

if TYPE_CHECKING:
    from rulemap.globs import FileIndex
    from rulemap.model import Document
    from rulemap.readers.base import Reader


class ResolvingWorkspace(Protocol):
    """What resolution reads of its workspace (core.py's `Workspace`, which imports this
    module: typed by what it asks, so that this module does not import the workspace back)."""

    @property
    def root(self) -> str: ...

    @property
    def real_root(self) -> str: ...

    @property
    def home(self) -> str | None: ...

    @property
    def allowed(self) -> Sequence[str]: ...

    @property
    def files(self) -> FileIndex: ...

    @property
    def reader(self) -> Reader: ...

    def document(self, key: str) -> Document: ...

    def abs(self, key: str) -> str: ...

    def key(self, absolute: str) -> str: ...

    def identity(self, key: str) -> str: ...

    def inside(self, real: str) -> bool: ...


def loaded_files(
    imports: list[tuple[ImportRef, Resolved]], canonical: Callable[[str], str]
) -> Iterator[str]:
    """The workspace files these imports load, as `canonical` keys: those resolved OK inside
    the root (what `Workspace.imported_documents` follows, and what an edit compares)."""
    for _, resolved in imports:
        if resolved.status is ImportStatus.OK and not resolved.target.startswith("/"):
            yield canonical(resolved.target)


class Resolver:
    def __init__(self, ws: ResolvingWorkspace):
        self._ws = ws
        self._resolved: dict[str, list[tuple[ImportRef, Resolved]]] = {}
        self._importers: dict[str, set[str]] = {}  # target key → importer keys (any status)

    def importers_of(self, key: str) -> set[str]:
        return self._importers.get(key, set())

    def resolved(self, key: str) -> list[tuple[ImportRef, Resolved]] | None:
        """`key`'s imports as resolved so far (None: not yet), resolving nothing."""
        return self._resolved.get(key)

    def drop(self, key: str) -> None:
        """Forget what `key` imports (it changed, or what its imports name did)."""
        previous = self._resolved.pop(key, None)
        if previous:
            for _, resolved in previous:
                importers = self._importers.get(resolved.target)
                if importers is not None:
                    importers.discard(key)

    def refresh(self, importer: str, targets: set[str]) -> None:
        """Resolve again the imports of `importer` that name one of `targets` (paths created
        or deleted); the others keep their resolution. A `git checkout` creating 3,000 files
        that one document imports re-resolved all 3,000 of its imports for each file, ~27 ms
        a file on the language server's event loop (issue #34)."""
        cached = self._resolved.get(importer)
        if cached is None:
            return
        fresh = list(cached)  # a new list: a derived value may hold the old one
        for index, (ref, resolved) in enumerate(cached):
            if resolved.target in targets:
                again = self._resolve(importer, ref)
                fresh[index] = (ref, again)
                if again.target != resolved.target:  # (a path's key never depends on it)
                    self._importers.get(resolved.target, set()).discard(importer)
                    self._importers.setdefault(again.target, set()).add(importer)
        self._resolved[importer] = fresh

    def imports(self, key: str) -> list[tuple[ImportRef, Resolved]]:
        cached = self._resolved.get(key)
        if cached is None:
            cached = [(ref, self._resolve(key, ref)) for ref in self._ws.document(key).imports]
            self._resolved[key] = cached
            for _, resolved in cached:
                self._importers.setdefault(resolved.target, set()).add(key)
        return cached

    def importers(self, key: str) -> list[tuple[str, ImportRef]]:
        """Files whose imports point at `key` (any status), with the import token."""
        out: list[tuple[str, ImportRef]] = []
        for importer in sorted(self._importers.get(key, ())):
            for ref, resolved in self.imports(importer):
                if resolved.target == key:
                    out.append((importer, ref))
        return out

    def resolve(self, importer: str, ref: ImportRef) -> Resolved:
        return self._resolve(importer, ref)

    def _resolve(self, importer: str, ref: ImportRef) -> Resolved:
        path = ref.path
        if path == "~" or path.startswith("~/"):
            if self._ws.home is None:
                return Resolved(ImportStatus.HOME, path, None)
            absolute = posixpath.normpath(self._ws.home + path[1:])
            if not any(is_within(absolute, a) for a in self._ws.allowed):
                return Resolved(ImportStatus.HOME, absolute, None)
        elif path.startswith("/"):
            absolute = posixpath.normpath(path)
        else:
            base = posixpath.dirname(self._ws.abs(importer))
            absolute = posixpath.normpath(posixpath.join(base, path))
        if absolute == self._ws.root:  # `@.` from the root, `@..` from a top-level directory
            return Resolved(ImportStatus.DIRECTORY, ".", self._ws.real_root)
        target = self._ws.key(absolute)
        lexically_inside = not target.startswith("/") or any(
            is_within(absolute, a) for a in self._ws.allowed
        )
        if not lexically_inside:
            return Resolved(ImportStatus.OUTSIDE, target, None)
        if target in self._ws.files:  # listed by the walk: it exists and is no directory
            real = self._ws.identity(target)
            if not self._ws.inside(real):
                return Resolved(ImportStatus.OUTSIDE, target, real)
            return Resolved(ImportStatus.OK, target, real)
        exists = self._ws.reader.exists(absolute)
        real = self._ws.identity(target)
        if not self._ws.inside(real):
            # also for a missing file: `@out/new.md` through a link `out` to a directory
            # elsewhere would be created there, so it is outside, not merely missing
            return Resolved(ImportStatus.OUTSIDE, target, real)
        if not exists:
            return Resolved(ImportStatus.MISSING, target, None)
        if self._ws.reader.is_dir(absolute):
            return Resolved(ImportStatus.DIRECTORY, target, real)
        return Resolved(ImportStatus.OK, target, real)
