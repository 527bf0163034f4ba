"""What the agent loaded (a parsed `LoadLog`) against what Rulemap predicts, step by step.

Rulemap's prediction comes from the agent's own model: step 0 is its start-up load (`explain`
with no target, at the log's cwd); step n is what touching the n-th triggering file brings —
the profile's `replay` of those touches when it has a per-step model, else what
`explain(TRIGGER)` loads beyond everything loaded before. A log that names no file (a prompt)
is matched by text: a predicted file agrees when its text is in the prompt.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING

from rulemap.analysis import active_profile, select_profiles
from rulemap.profiles.steps import ToolStep
from rulemap.records import record
from rulemap.verify.result import Apart, ApartKind, Row, Verification

if TYPE_CHECKING:
    from rulemap.model import LoadedFile, Skipped
    from rulemap.profiles.base import Profile
    from rulemap.profiles.load_log import LoadLog, ObservedLoad
    from rulemap.workspace import Workspace


@record
class _Prediction:
    """Per step: the files Rulemap has join (in order) and what it skipped."""

    files: dict[int, list[LoadedFile]] = field(default_factory=dict)
    skipped: dict[int, list[Skipped]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def first_step(self) -> dict[str, tuple[int, LoadedFile]]:
        out: dict[str, tuple[int, LoadedFile]] = {}
        for step in sorted(self.files):
            for f in self.files[step]:
                out.setdefault(f.path, (step, f))
        return out


def verify_log(ws: Workspace, log: LoadLog, profile: str | None = None, cwd: str | None = None,
               home: bool = False) -> Verification:
    """The agreement of `log` with the model of `profile` (default: the log's agent) from
    `cwd` (default: the log's, else the configuration's). `home`: user-level files are
    compared too (the workspace reads them from --home); otherwise they are listed apart."""
    select_profiles(ws)
    chosen = active_profile(ws, profile or log.agent)
    notes: list[str] = []
    where = cwd
    if where is None and log.cwd is not None:
        where = _key(ws, log.cwd, directory=True)
        if where is None:
            notes.append("the log's cwd lies outside the workspace: the configuration's is "
                         "used (recorded elsewhere? pass --log-root DIR, where the project was "
                         "then; or --cwd)")
    if where is None:
        where = ws.config.cwd
    keys = _Keys(ws)
    triggers = [keys(t) for t in log.triggers]
    prediction = _predict(ws, chosen, where, triggers, log.triggers_are_files)
    access = ["start-up", *(f"touch {k}" if k else "touch (a path outside the workspace)"
                            for k in triggers)]
    rows, apart = _Matcher(ws, chosen, log, prediction, access, home, where or ".",
                           keys).run()
    if not log.start_up:
        notes.append("the log does not show the start-up load: step 0 is not compared")
    notes.extend(prediction.notes)
    return Verification(chosen.name, chosen.title, _format(chosen), ws.root, where or ".",
                        tuple(rows), tuple(apart), tuple(notes))


def _format(profile: Profile) -> str:
    fmt = profile.load_log_format
    return fmt.what if fmt is not None else "a log"


def _key(ws: Workspace, path: str, directory: bool = False) -> str | None:
    """`path` (absolute as logged, or relative to the root) as a workspace key; None when it
    lies outside the workspace. The root itself is `` for a directory."""
    return _Keys(ws)(path, directory)


class _Keys:
    """`_key` for one workspace, each path worked out once: a log names the same files again
    and again (a hook log of 30,000 events, a few dozen files)."""

    def __init__(self, ws: Workspace) -> None:
        self.root = posixpath.normpath(ws.root)
        self.prefix = self.root.rstrip("/") + "/"
        self.known: dict[str, str | None] = {}

    def __call__(self, path: str, directory: bool = False) -> str | None:
        key = self.known.get(path, _UNKNOWN)
        if key is _UNKNOWN:
            text = posixpath.normpath(path.replace("\\", "/"))
            absolute = text if text.startswith("/") else posixpath.join(self.root, text)
            if absolute == self.root:
                key = ""
            elif absolute.startswith(self.prefix):
                key = absolute[len(self.prefix):]
            else:
                key = None
            if len(self.known) < 100_000:
                self.known[path] = key
        if key == "" and not directory:
            return None
        return key  # type: ignore[return-value]


_UNKNOWN = object()


def _predict(ws: Workspace, profile: Profile, cwd: str, triggers: Sequence[str | None],
             files: bool = False) -> _Prediction:
    """`files`: every trigger is a file (else the disk says which are directories)."""
    out = _Prediction()
    inside = [(n, k) for n, k in enumerate(triggers, 1) if k]
    # a touched file the workspace lists is no directory: no stat for it
    root = ws.root.rstrip("/")
    steps = [ToolStep("read", (k + "/" if not files and k not in ws.files
                               and ws.reader.is_dir(f"{root}/{k}") else k,))
             for _, k in inside]
    replayed = profile.replay(ws, steps, cwd)
    if replayed is not None and replayed.has_step_model:
        out.notes = replayed.notes
        for step in replayed.steps:
            index = 0 if step.index == 0 else inside[step.index - 1][0]
            out.files[index] = list(step.joined)
            out.skipped[index] = list(step.skipped)
        return out
    start = profile.explain(ws, None, cwd)
    out.notes = start.notes
    out.files[0] = list(start.files)
    out.skipped[0] = list(start.skipped)
    seen = {f.path for f in start.files}
    for index, key in inside:
        loaded = profile.explain(ws, key, cwd)
        out.files[index] = [f for f in loaded.files if f.path not in seen]
        out.skipped[index] = list(loaded.skipped)
        seen.update(f.path for f in loaded.files)
    return out


class _Matcher:
    def __init__(self, ws: Workspace, profile: Profile, log: LoadLog, prediction: _Prediction,
                 access: list[str], home: bool, cwd: str, keys: _Keys) -> None:
        self.ws = ws
        self.keys = keys
        self.cwd = cwd
        self.profile = profile
        self.log = log
        self.prediction = prediction
        self.access = access
        self.home = home
        self.predicted = prediction.first_step()
        self.observed: set[str] = set()
        self.rows: list[Row] = []
        self.apart: list[Apart] = []

    def step_name(self, step: int | None) -> str:
        if step is None:
            return "unknown step"
        return self.access[step] if step < len(self.access) else f"step {step}"

    def run(self) -> tuple[list[Row], list[Apart]]:
        texts: list[ObservedLoad] = []
        for load in self.log.loads:
            if not load.compared:
                self.apart.append(Apart(load.path or "text", "reload", load.line, load.step))
            elif load.path is None:
                texts.append(load)
            else:
                self.named(load, load.path)
        for load in texts:
            self.by_text(load)
        self.missing()
        self.rows.sort(key=lambda r: (r.step if r.step is not None else 1 << 30))
        return self.rows, self.apart

    def named(self, load: ObservedLoad, path: str) -> None:
        key = self.keys(path)
        if key is None:
            if not self.home:
                kind: ApartKind = "user" if load.user else "outside"
                shown = path if path.isprintable() and len(path) <= 4096 else "a path"
                self.apart.append(Apart(shown, kind, load.line, load.step))
                return
            key = posixpath.normpath(path)
        if key in self.observed:
            return  # loaded again (another event for the same file): the first one counts
        self.observed.add(key)
        self.row(key, load.step, load.reason, load.line)

    def row(self, key: str, step: int | None, reason: str, line: int | None) -> None:
        found = self.predicted.get(key)
        if found is None:
            self.rows.append(Row(step, self.step_name(step), key, "unexpected", reason, None,
                                 self.why_not(key, step), line))
            return
        at, loaded = found
        if step is None or step == at:
            self.rows.append(Row(at, self.step_name(at), key, "agree", reason, loaded.reason,
                                 because(loaded), line))
            return
        self.rows.append(Row(
            step, self.step_name(step), key, "step", reason, loaded.reason,
            f"Rulemap expected it at step {at} ({self.step_name(at)}), as {because(loaded)}",
            line, at, self.step_name(at)))

    def by_text(self, load: ObservedLoad) -> None:
        """A prompt naming no file: the predicted files whose text it holds agree; other
        files of the agent's whose text it holds are unexpected; the rest is apart."""
        rest = load.text or ""
        step = load.step if load.step is not None else 0
        for f in self.prediction.files.get(step, []):
            needle = f.text.strip()
            if f.path in self.observed or not needle or needle not in rest:
                continue
            self.observed.add(f.path)
            self.rows.append(Row(step, self.step_name(step), f.path, "agree", load.reason,
                                 f.reason, because(f), load.line))
            rest = rest.replace(needle, "", 1)
        for key in self.ws.files:
            if key in self.predicted or not self.profile.reads(self.ws, key):
                continue
            needle = self.ws.document(key).text.strip()
            if needle and needle in rest:
                self.observed.add(key)
                self.rows.append(Row(step, self.step_name(step), key, "unexpected",
                                     load.reason, None, self.why_not(key, step), load.line))
                rest = rest.replace(needle, "", 1)
        left = len(rest.strip())
        if left:
            kind: ApartKind = "user" if load.user else "text"
            self.apart.append(Apart(f"{left:,} characters of text", kind, load.line, step))

    def missing(self) -> None:
        for key, (step, loaded) in self.predicted.items():
            if key in self.observed or (step == 0 and not self.log.start_up):
                continue
            if key.startswith("/") and not self.home:
                continue
            self.rows.append(Row(
                step, self.step_name(step), key, "missing", None, loaded.reason,
                f"Rulemap expected it as {because(loaded)}; the log has no load of it at "
                "any step", None))

    def why_not(self, key: str, step: int | None) -> str:
        for at in ([step] if step is not None else sorted(self.prediction.skipped)):
            for skipped in self.prediction.skipped.get(at, []):
                if skipped.path == key:
                    return f"Rulemap has it skipped at this step: {skipped.why}"
        title = self.profile.title
        if key.startswith("/") or not self.profile.reads(self.ws, key):
            return f"by Rulemap's model, {title} does not read it as an instruction file"
        status = self.profile.load_status(self.ws, key)
        if not status.loads:
            return f"by Rulemap's model, {title} never loads it: {status.why_not}"
        if step == 0:
            what = f"{title}'s start-up load from cwd {self.cwd} does not bring it"
        elif step is None:
            what = f"{title} loads it at no step of this run"
        else:
            what = f"{self.step_name(step).replace('touch', 'touching', 1)} does not bring it"
        where = f" (touching {status.target} would)" if status.target else ""
        return f"by Rulemap's model, {what}{where}"


def because(f: LoadedFile) -> str:
    """Rulemap's reason for a loaded file, in words: `nested`, `import of AGENTS.md:3`."""
    text = f"`{f.reason}`"
    if f.imported_by:
        line = f":{f.import_line + 1}" if f.import_line is not None else ""
        text += f" (imported by {f.imported_by}{line})"
    if f.note:
        text += f" ({f.note})"
    return text
