"""What a cold `rulemap check` printed, kept for its cache entry (check_results.py).

Encoded as it is written, into an unnamed temporary file (`readers/cache_entries.py` makes
it) rather than kept in memory: an 8 MB report was held until the entry was written, with the
whole workspace still in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from rulemap.host.cache.check_results import SURROGATES


class Spool:
    """The report as printed; `lost` when the file could not be made or written: the run is
    then not stored."""

    _CHUNK = 1 << 20

    def __init__(self) -> None:
        self._file: BinaryIO | None = None
        self.size = 0
        self.lost = False

    def write(self, text: str) -> None:
        if self.lost or not text:
            return
        data = text.encode("utf-8", SURROGATES)
        try:
            if self._file is None:
                # only a check that prints: not a hit's start-up (it imports tempfile)
                from rulemap.readers.cache_entries import temporary_file

                self._file = temporary_file()
            self._file.write(data)
        except OSError:
            self.lost = True
            return
        self.size += len(data)

    def chunks(self) -> Iterator[bytes]:
        """What was written, from the start."""
        if self._file is None:
            return
        self._file.seek(0)
        while chunk := self._file.read(self._CHUNK):
            yield chunk

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
