"""The check cache's disk side: its entries, written and read, and the validation of what a
run asked the disk (readers/recording.py recorded it) against the disk as it is now.

A warm `rulemap check` imports this module, `base.py` and the host's `host/cache/`, and
nothing of the engine: it must stay light (os, stat, sys, and blake2b without hashlib's
OpenSSL). Every failure here is a miss, never an error: the caller runs the check.

Trust rule (git's "racy" rule): a file or directory whose stat signature (mtime, ctime, size,
inode, mode) is what the run saw is unchanged, unless its mtime or ctime lies within
`RACY_NS` before the run started (or after): a change in the same clock tick as the run's
look would leave the signature as it was. Then a file is read again and its hash compared, a
directory listed again and its entries (names and kinds) compared.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from rulemap.readers.base import MAX_FILE_BYTES, find_root, is_within

try:  # hashlib's own import loads OpenSSL (~3 ms); blake2b is built in
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

RACY_NS = 2_000_000_000

# mtime_ns, ctime_ns, size, inode, mode; None: the path cannot be stat'ed
Signature = list[int] | None


def digest(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


def signature(path: str) -> Signature:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return _signature_of(info)


def signature_of_open(fd: int | None, path: str) -> Signature:
    """`signature(path)` of a directory the walk holds open as `fd`: the same stat, without
    resolving a path that may be 400 directories long."""
    if fd is None:
        return signature(path)
    try:
        info = os.fstat(fd)
    except OSError:
        return None
    return _signature_of(info)


_MODES: dict[int, int] = {}  # one int object per mode (a dozen in a tree, 65,536 at most)


def _signature_of(info: os.stat_result) -> list[int]:
    # a record keeps 20,000 signatures 400 levels deep: the ctime is the mtime's own int
    # where they are equal (most files), the mode a shared one (1.2 MB)
    mtime, ctime = info.st_mtime_ns, info.st_ctime_ns
    return [mtime, mtime if ctime == mtime else ctime, info.st_size, info.st_ino,
            _MODES.setdefault(info.st_mode, info.st_mode)]


def racy(sig: Signature, start_ns: int) -> bool:
    """Whether a change after the run looked could have left `sig` as it was."""
    return sig is not None and max(sig[0], sig[1]) >= start_ns - RACY_NS


def listing_digest(entries: Iterable[os.DirEntry[str]]) -> str:
    """A directory's entries, names and kinds (file, directory, link: what the walk tells
    apart without a stat), as one hash."""
    return digest(b"\0".join(sorted(os.fsencode(e.name) + _kind(e) for e in entries)))


def _kind(entry: os.DirEntry[str]) -> bytes:
    try:
        if entry.is_symlink():
            return b"/l"
        return b"/d" if entry.is_dir(follow_symlinks=False) else b"/f"
    except OSError:
        return b"/?"


def read_regular(path: str, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """The bytes of a regular file of at most `limit` bytes; None for anything else (missing,
    a directory, a FIFO — opened non-blocking, never read —, too big, unreadable)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, max(info.st_size - size, 0) + 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return None if size > limit else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def key_below(root: str | None, path: str) -> str | None:
    """`path` relative to `root` when it is `root` ("") or below it, else None."""
    if root is None or not path.startswith(root):
        return None
    if len(path) == len(root):
        return ""
    return path[len(root) + 1:] if path[len(root)] == "/" else None


class PathTable:
    """Paths written once each as (parent's row, last name): a row's parent comes before it.
    -1: the parent is `/`; -2: the name is the whole path (one that is not absolute, or not
    in normal form: `/`, a trailing `/`, `//`)."""

    def __init__(self, root: str | None = None) -> None:
        # (parent's row, name): a tuple each, its name interned — the same few names in
        # thousands of directories (the peak of a first check 400 levels deep is its store)
        self.rows: list[tuple[int, str]] = []
        self._ids: dict[str, int] = {}
        # the paths below `root` by their keys relative to it: their absolute paths are not
        # made (a kilobyte each for 20,000 directories 400 levels deep)
        self._root = root if root != "/" else None
        self._below: dict[str, int] = {}

    def index(self, path: str) -> int:
        ids = self._ids
        found = ids.get(path)
        if found is not None:
            return found
        key = key_below(self._root, path)
        if key and not path.endswith("/") and "//" not in path:
            # its parent's row, then its own, kept by `path` (which the record holds anyway)
            # rather than by a new copy of its key: a kilobyte for each of 3,758 files 400
            # levels deep
            above, _, name = key.rpartition("/")
            row = self.index_below(above)
            ids[path] = len(self.rows)
            self.rows.append((row, sys.intern(name)))
            return ids[path]
        if not path.startswith("/") or path.endswith("/") or "//" in path:
            ids[path] = len(self.rows)
            self.rows.append((-2, path))
            return ids[path]
        missing: list[str] = []  # the path and its ancestors not in the table yet
        current = path
        while current not in ids and current not in ("/", ""):
            missing.append(current)
            current = current.rpartition("/")[0]
        parent = ids.get(current, -1)
        for one in reversed(missing):
            ids[one] = len(self.rows)
            self.rows.append((parent, sys.intern(one.rpartition("/")[2])))
            parent = ids[one]
        return ids[path]

    def index_below(self, key: str) -> int:
        """The row of the path `key` relative to the table's root ("": the root itself)."""
        assert self._root is not None
        below = self._below
        found = below.get(key)
        if found is not None:
            return found
        if not key:
            below[key] = self.index(self._root)
            return below[key]
        missing: list[str] = []  # the key and its ancestors not in the table yet
        current = key
        while current and current not in below:
            missing.append(current)
            current = current.rpartition("/")[0]
        parent = below.get(current) if current else self.index_below("")
        assert parent is not None
        for one in reversed(missing):
            below[one] = len(self.rows)
            self.rows.append((parent, sys.intern(one.rpartition("/")[2])))
            parent = below[one]
        return below[key]


def decode_paths(rows: list[list[Any]]) -> list[str]:
    """`PathTable.rows` back to paths, in order."""
    paths: list[str] = []
    append = paths.append
    try:  # (no length asked per row: a fifth of the decoding of 21,000 rows)
        for parent, name in rows:
            if parent >= 0:
                append(paths[parent] + "/" + name)
            elif parent == -1:
                append("/" + name)
            elif parent == -2:
                append(name)
            else:
                raise ValueError("not a path row")
    except IndexError:
        raise ValueError("a path row names a parent after it") from None
    return paths


def _at(paths: list[str], index: object) -> str:
    """The path a record names by its row (a negative or foreign index is a corrupt entry:
    Python would read `paths[-1]` as the last one)."""
    if type(index) is not int or index < 0:
        raise ValueError("not a path row")
    return paths[index]


def still_valid(record: Mapping[str, Any], start_ns: int) -> bool:
    """Whether every question of `record` (`Recording.to_json`) has the same answer now."""
    paths = decode_paths(record["paths"])
    # the files first: an edited document, the usual miss, is found before the directories
    # (20,000 of them in a large tree) are asked, which a resumed check asks again anyway
    for at, sig, result in record["files"]:
        answer = _file_now(_at(paths, at), sig, result, start_ns)
        if answer is not SAME and (answer is None or answer[1] != result):
            return False
    for at, sig, listing in record["dirs"]:
        path = _at(paths, at)
        if signature(path) != sig:
            return False
        if listing == "!":  # could not be listed: trusted only while its signature is
            if racy(sig, start_ns):
                return False
        elif listing and _listing_now(path) != listing:
            return False
    if not _packed_dirs_hold(paths, record.get("packed_dirs", "")):
        return False
    return _probes_hold(record, paths)


# The directories of a record whose answer is a plain signature (neither racy nor unlisted:
# nearly all of them), packed (`pack_ints`): six int64 each — the row of its path, then its
# signature — little-endian, base64 in the JSON. As lists of lists, 21,000 directories were
# a third of a warm hit's time in JSON decoding alone (benchmarks/README.md, "A check after
# an edit, and a hit").
_PACKED_WIDTH = 6
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def packable(sig: Signature, listing: str) -> bool:
    """Whether a directory's answer is packed (else into the record's list)."""
    return (not listing and sig is not None
            and min(sig) >= _INT64_MIN and max(sig) <= _INT64_MAX)


def pack_ints(values: list[int]) -> str:
    """`values` (int64s: for `packed_dirs`, each directory's row, then the five ints of its
    `packable` signature) as text."""
    from array import array
    from binascii import b2a_base64

    packed = array("q", values)
    if sys.byteorder == "big":  # pragma: no cover - the cache's bytes read alike anywhere
        packed.byteswap()
    return b2a_base64(packed.tobytes(), newline=False).decode("ascii")


def _unpacked(text: str, width: int = _PACKED_WIDTH) -> list[Sequence[int]]:
    """`pack_ints`'s text back to `width` columns (for directories: row, mtime, ctime, size,
    inode, mode)."""
    from array import array
    from binascii import a2b_base64

    if type(text) is not str:
        raise ValueError("not packed directories")
    values = array("q", a2b_base64(text))
    if sys.byteorder == "big":  # pragma: no cover
        values.byteswap()
    if len(values) % width:
        raise ValueError("packed directories cut short")
    return [values[k::width] for k in range(width)]


def _packed_dirs_hold(paths: list[str], text: str) -> bool:
    """Whether each packed directory's signature is what it was (`still_valid`'s question)."""
    return next(_packed_unsure(paths, text, None), None) is None


def _packed_unsure(
    paths: list[str], text: str, start_ns: int | None
) -> Iterator[tuple[str, Signature]]:
    """The packed directories whose signature is not the recorded one now — or, given the
    run's `start_ns`, is but racy —, each as (path, its signature now); asked without making
    a list per directory."""
    if not text:
        return
    rows, mtimes, ctimes, sizes, inodes, modes = _unpacked(text)
    if rows and (min(rows) < 0 or max(rows) >= len(paths)):
        raise ValueError("not a path row")
    limit = None if start_ns is None else start_ns - RACY_NS
    stat_of = os.stat
    for at, mtime, ctime, size, inode, mode in zip(rows, mtimes, ctimes, sizes, inodes, modes,
                                                   strict=True):
        path = paths[at]
        try:
            info = stat_of(path)
        except (OSError, ValueError):
            yield path, None
            continue
        if (info.st_mtime_ns == mtime and info.st_ctime_ns == ctime and info.st_size == size
                and info.st_ino == inode and info.st_mode == mode
                and (limit is None or max(mtime, ctime) < limit)):
            continue
        yield path, _signature_of(info)


def _probes_hold(record: Mapping[str, Any], paths: list[str]) -> bool:
    """Whether the record's other questions — a path exists, is a directory, has that real
    path; the root found from the directory the check ran in — have the same answers now."""
    exists, is_dir, realpath = os.path.exists, os.path.isdir, os.path.realpath
    if any(exists(_at(paths, at)) != answer for at, answer in record["exists"]):
        return False
    if any(is_dir(_at(paths, at)) != answer for at, answer in record["is_dir"]):
        return False
    if any(realpath(_at(paths, at)) != answer for at, answer in record["identity"]):
        return False
    found = record["root"]
    return found is None or find_root(found[0]) == found[1]


SAME: Final = (None, "")  # `_file_now`: unchanged by its signature, not read again


def _file_now(
    path: str, sig: Signature, result: str, start_ns: int
) -> tuple[Signature, str] | None:
    """A recorded read of `path` (`sig`, and `result`: the bytes' hash or `!why`) asked
    again: `SAME` when its signature says it is unchanged (not racy); else its signature and
    the hash of its bytes now; None when it cannot be compared by its bytes (the read failed
    then, or it is missing or no regular file now: trusted by its signature only)."""
    now = signature(path)
    if now == sig and not racy(sig, start_ns):
        return SAME
    if result.startswith("!") or now is None or not stat.S_ISREG(now[4]):
        return None
    data = read_regular(path)
    return None if data is None else (now, digest(data))


class Changes:
    """What changed on disk since a record (`changes_since`): the files whose bytes differ,
    each with its answer now (signature, hash), and the new signatures of directories and
    files whose entries or bytes are as they were."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[Signature, str]] = {}  # changed: (signature, hash) now
        self.same_files: dict[str, tuple[Signature, str]] = {}
        self.same_dirs: dict[str, tuple[Signature, str]] = {}


def changes_since(record: Mapping[str, Any], start_ns: int) -> Changes | None:
    """The files whose bytes changed since `record` (`Recording.to_json(with_listings=True)`)
    was made, when nothing else did: every directory has the same entries (by its signature,
    else by its listing's hash: a file saved by a rename changes its directory's mtime), every
    other answer is the same, and each changed file is still a readable regular file. None
    when anything else changed (created, deleted, renamed, unreadable): a whole check then."""
    paths = decode_paths(record["paths"])
    listed: dict[str, str] = {}  # the snapshot's listing hashes, made when one is asked

    def listing_of(path: str) -> str | None:
        if not listed:
            listed.update(_listings(record, paths))
        return listed.get(path)

    changes = Changes()
    for at, sig, listing in record["dirs"]:
        path = _at(paths, at)
        now = signature(path)
        if now == sig and not racy(sig, start_ns):
            continue
        if listing == "!" or now is None or listing_of(path) != _listing_now(path):
            return None
        # with its entries' hash: its new mtime may be racy for the check that records it
        changes.same_dirs[path] = (now, listed[path])
    for path, now in _packed_unsure(paths, record.get("packed_dirs", ""), start_ns):
        if now is None or listing_of(path) != _listing_now(path):
            return None
        changes.same_dirs[path] = (now, listed[path])
    for at, sig, result in record["files"]:
        path = _at(paths, at)
        answer = _file_now(path, sig, result, start_ns)
        if answer is None:
            return None
        if answer is not SAME:
            (changes.same_files if answer[1] == result else changes.files)[path] = answer
    return changes if _probes_hold(record, paths) else None


LISTING_CHARS = 32  # a `listing_digest`, in hex


def pack_listings(rows: list[int], listings: list[str]) -> list[str] | None:
    """A snapshot's listing hashes (`listings[k]` is row `rows[k]`'s) as two strings, the
    rows packed and the hashes end to end: 21,000 pairs were a JSON list each. None when one
    is not a hash (a record keeps them as pairs then)."""
    if any(len(listing) != LISTING_CHARS for listing in listings):
        return None
    joined = "".join(listings)
    if not joined.isascii():
        return None
    return [pack_ints(rows), joined]


def _listings(record: Mapping[str, Any], paths: list[str]) -> Iterator[tuple[str, str]]:
    """A snapshot record's listing hashes by path (`pack_listings`, or pairs)."""
    if "packed_listings" not in record:
        yield from ((_at(paths, at), listing) for at, listing in record["listings"])
        return
    text, joined = record["packed_listings"]
    [rows] = _unpacked(text, 1)
    if type(joined) is not str or len(joined) != LISTING_CHARS * len(rows):
        raise ValueError("listing hashes cut short")
    for k, at in enumerate(rows):
        yield _at(paths, at), joined[k * LISTING_CHARS:(k + 1) * LISTING_CHARS]


def listings_now(dirs: Mapping[str, tuple[Signature, str]]) -> dict[str, str] | None:
    """The hash of each listed directory's entries (`dirs`: a record's, path → (signature,
    hash when racy)), listed again now; None when one is not as the record saw it. A
    directory whose signature is the recorded one, not racy, has the entries it had (a change
    would have moved its mtime); its signature is asked again after the listing, for a change
    while it was listed."""
    out: dict[str, str] = {}
    for path, (sig, listing) in dirs.items():
        if listing == "!":
            continue  # could not be listed: a snapshot's check trusts its signature alone
        if listing:
            out[path] = listing  # racy: hashed when the walk listed it
            continue
        if signature(path) != sig:
            return None
        now = _listing_now(path)
        if now is None or signature(path) != sig:
            return None
        out[path] = now
    return out


def _listing_now(path: str) -> str | None:
    try:
        with os.scandir(path) as entries:
            return listing_digest(entries)
    except OSError:
        return None


def code_fingerprint(package: str) -> str:
    """Every file of the installed `package` (its directory) by path, size and mtime: a
    developer's edit between two runs is a new key. Compiled files are left out."""
    parts: list[str] = []
    pending = [package]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        pending.append(entry.path)
                elif not entry.name.endswith(".pyc"):
                    info = entry.stat()
                    parts.append(f"{entry.path}\0{info.st_size}\0{info.st_mtime_ns}")
    return digest("\n".join(sorted(parts)).encode("utf-8", "surrogateescape"))


def installed_signatures() -> list[str]:
    """The directories packages are installed in (site-packages on `sys.path`), by mtime:
    installing, upgrading or removing a dependency (pathspec, PyYAML) changes them."""
    return [
        f"{path}\0{sig[0] if sig else None}"
        for path in sys.path
        if path.endswith(("site-packages", "dist-packages"))
        for sig in [signature(path)]
    ]


def inside(path: str, root: str) -> bool:
    """Whether `path` is `root` or below it, both by their real paths."""
    return is_within(os.path.realpath(path), os.path.realpath(root))
