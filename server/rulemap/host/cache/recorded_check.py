"""A cold `rulemap check` under the result cache: the questions it asks the disk recorded, its
report kept, and after the report its entry written and, for a repeated check, the snapshot
the next one can resume from (check_results.py, resume_snapshot.py).

`start` gives the check its `Recorder`: the snapshot's workspace told what changed since,
when the check can resume from one, else a new recording its readers note into (`wrap`). The
check prints its report into the edge's stream and `spool`, then calls `done`; the edge calls
`finish`, saying whether the run wrote anything past the spool (to stderr, or bytes around the
text stream): only a clean run is stored.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from rulemap.host.cache.report_spool import Spool

if TYPE_CHECKING:
    from rulemap.host.analysis_host import AnalysisHost
    from rulemap.host.cache.check_results import CheckCache
    from rulemap.host.snapshot import Snapshot
    from rulemap.readers.base import WalkingReader
    from rulemap.readers.recording import Recording
    from rulemap.workspace import Workspace


class Recorder:
    """A check's recording: readers that note what they are asked (`wrap`), what the run
    printed (`spool`), and what it printed its report for (`done`); `workspace`, when the
    check resumes from a snapshot (its reader records into `recording`); `snapshot`, whether
    the check leaves one."""

    def __init__(self, recording: Recording, workspace: Workspace | None = None) -> None:
        self.recording = recording
        self.workspace = workspace
        self.snapshot = False
        self.spool = Spool()
        self.checked: Workspace | None = None
        self.root: str | None = None
        self.code: int | None = None

    def wrap(self, factory: object, root: str) -> Callable[[str, tuple[str, ...]], WalkingReader]:
        """For `open_workspace(wrap=)`, whose factory is the local disk's: the recording
        reader in its place."""
        from rulemap.readers.recording_reader import RecordingReader

        recording = self.recording

        def recorded(root: str, allowed: tuple[str, ...] = ()) -> WalkingReader:
            return RecordingReader(root, recording, allowed)

        return recorded

    def resumed(self) -> AnalysisHost | None:
        """A host over the snapshot's workspace, told what changed since (None: the check
        starts cold, reading through `wrap`)."""
        if self.workspace is None:
            return None
        from rulemap.host.analysis_host import AnalysisHost  # the engine: a resumed check has it

        return AnalysisHost(self.workspace)

    def done(self, snap: Snapshot, code: int) -> None:
        """The check of `snap` printed its report and exits with `code` (the workspace it
        answered from is the one the snapshot, when the check leaves one, keeps)."""
        from rulemap.host.snapshot import workspace_of

        ws = workspace_of(snap)
        self.checked, self.root, self.code = ws, ws.root, code


def start(cache: CheckCache | None, root: str | None, user_home: str | None) -> Recorder | None:
    """The recorder of a cold check of `root` (None: the workspace root found from the current
    directory); None when the run is not cached."""
    if cache is None or cache.key is None or cache.directory is None:
        return None
    if cache.found is not None:
        from rulemap.host.cache.resume_snapshot import resume

        resumed = resume(cache.found)
        cache.found = None  # its bytes: the workspace is made of them now, or they are no use
        if resumed is not None:
            cache.resumed = True
            return Recorder(resumed[1], resumed[0])
    from rulemap.host.user_config import user_config_path
    from rulemap.readers.recording import Recording

    recording = Recording()
    recording.note_user_file(user_config_path()[0])
    if root is None:
        recording.note_root(os.getcwd())
    if user_home is not None:
        recording.note_is_dir(os.path.abspath(user_home))
    recorder = Recorder(recording)
    recorder.snapshot = cache.repeated
    return recorder


def finish(cache: CheckCache, recorder: Recorder, clean: bool) -> None:
    """After the check: its entry written when it printed its report, `clean` (the edge saw
    nothing written past the spool) and nothing changed while it looked; then the snapshot
    left when it is to leave one."""
    recording = recorder.recording
    spool = recorder.spool
    try:
        if recorder.root is None or recorder.code is None:
            return  # it did not get to print its report
        if not clean or spool.lost or not recording.usable:
            return
        from rulemap.host.cache.check_results import store

        store(cache, recorder.root, spool.chunks(), spool.size, recorder.code, recording)
    finally:
        spool.close()
    if recorder.snapshot and recorder.checked is not None:
        from rulemap.host.cache.resume_snapshot import leave

        leave(cache, recorder.checked, recording)
