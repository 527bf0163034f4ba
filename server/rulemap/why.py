"""Why: does a sentence of the instructions reach an agent's model, and if not, why not
(docs/reach.md, "rulemap why").

The text is found in the workspace's instruction files, rules and the files they import
(exactly, else with runs of whitespace taken as one space); then each selected agent's load
for the target (or its start-up load) says whether a place holding it arrives: loaded with
that line read; stripped before the model sees it (an HTML comment); cut or left out by the
budget; in a file the agent does not read, a rule whose globs do not match the target, or a
file only an import the agent does not follow names. One computation, plain data; the CLI
prints it."""

from __future__ import annotations

import bisect
import posixpath
import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rulemap.model import Explanation, ImportStatus
from rulemap.reach import cut_line_of, ordinal

if TYPE_CHECKING:
    from rulemap.profiles.base import Profile
    from rulemap.profiles.steps import ToolStep
    from rulemap.workspace import Workspace

_SPACE = re.compile(r"\s+")
IN_SESSION = "in the session"  # what a run's answer is for (`why_in_session`)
MAX_PLACES = 20  # places a text is looked for in (the first ones, by path and line)


@dataclass(frozen=True)
class Place:
    path: str
    line: int  # 0-based
    exact: bool  # found as written (else only with whitespace runs taken as one space)


@dataclass(frozen=True)
class Verdict:
    """One agent's answer."""

    profile: str
    title: str
    seen: bool
    place: Place  # where it arrives (seen), else the place the answer is about
    why: str  # in the agent's terms
    also: tuple[Place, ...] = ()  # other places it arrives from (seen twice or more)

    def to_json(self) -> dict[str, object]:
        return {"profile": self.profile, "title": self.title, "seen": self.seen,
                "path": self.place.path, "line": self.place.line + 1, "why": self.why,
                "also": [{"path": p.path, "line": p.line + 1} for p in self.also]}


@dataclass(frozen=True)
class Why:
    text: str
    target: str | None  # None: the start-up load (or the session's run)
    cwd: str
    places: tuple[Place, ...]
    agents: tuple[Verdict, ...]
    session: int | None = None  # replayed over a session of this many tool steps

    @property
    def seen_by_all(self) -> bool:
        return all(v.seen for v in self.agents)

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.text, "target": self.target, "cwd": self.cwd,
            "places": [{"path": p.path, "line": p.line + 1, "exact": p.exact}
                       for p in self.places],
            "agents": [v.to_json() for v in self.agents],
            "seenByAll": self.seen_by_all,
            "sessionSteps": self.session,
        }


def find(ws: Workspace, text: str) -> list[Place]:
    """Where `text` is written: every instruction file, rule and file they import, exactly,
    else with whitespace runs as one space; by path, then line."""
    needle = text.strip()
    if not needle:
        return []
    loose = _SPACE.sub(" ", needle)
    exact: list[Place] = []
    spaced: list[Place] = []
    for key in sorted(_documents(ws)):
        doc = ws.document(key)
        if doc.unreadable:
            continue
        for number, line in enumerate(doc.lines):
            if needle in line:
                exact.append(Place(key, number, True))
        if not exact or exact[-1].path != key:
            spaced.extend(Place(key, n, False) for n in _loose_lines(doc.lines, loose))
    return (exact or spaced)[:MAX_PLACES]


def why(ws: Workspace, text: str, target: str | None, profiles: Sequence[Profile],
        cwd: str) -> Why:
    places = find(ws, text)
    verdicts = tuple(_verdict(ws, p, places, text, target, cwd) for p in profiles) \
        if places else ()
    return Why(text, target, cwd or ".", tuple(places), verdicts)


def why_in_session(ws: Workspace, text: str, steps: Sequence[ToolStep],
                   profiles: Sequence[Profile], cwd: str) -> Why:
    """Whether `text` reaches each agent's model at some step of a run: each agent's own
    replay of `steps` (`rulemap session`'s), its joined files in order as one load — the
    step a place joins at named —; the reasons of `why` when none does."""
    from rulemap.session.replay import replay

    places = find(ws, text)
    verdicts: list[Verdict] = []
    for profile in profiles if places else ():
        run = replay(ws, steps, profile.name, cwd)
        files = [f for step in run.steps for f in step.joined]
        step_of: dict[str, str] = {}
        for step in run.steps:
            for loaded in step.joined:
                step_of.setdefault(loaded.path, "at start-up" if step.index == 0 else
                                   f"at step {step.index} ({step.kind} "
                                   f"`{', '.join(step.paths)}`)")
        joined = Explanation(profile.name, ws.root, cwd or ".", None, run.budget.limit, files,
                             [p for step in run.steps for p in step.left_out], [], None,
                             budget=run.budget)
        verdict = _verdict(ws, profile, places, text, None, cwd, joined, IN_SESSION)
        if verdict.seen:
            verdict = replace(verdict, why=f"{verdict.why}; it joins "
                                           f"{step_of.get(verdict.place.path, 'in the run')}")
        verdicts.append(verdict)
    return Why(text, None, cwd or ".", tuple(places), tuple(verdicts), len(steps))


def _documents(ws: Workspace) -> set[str]:
    """Instruction files, rules and what they import (inside the workspace)."""
    seen = {k for k in ws.all_documents() if not k.startswith("/")}
    queue = deque(seen)
    while queue:
        for _, resolved in ws.imports(queue.popleft()):
            target = resolved.target
            if resolved.status is ImportStatus.OK and target not in seen \
                    and not target.startswith("/"):
                seen.add(target)
                queue.append(target)
    return seen


def _loose_lines(lines: list[str], loose: str) -> list[int]:
    """Lines where `loose` starts in the text with whitespace runs as one space."""
    starts: list[int] = []  # offset of each line in the squeezed text
    squeezed: list[str] = []
    length = 0
    for line in lines:
        piece = _SPACE.sub(" ", line).strip()
        starts.append(length)
        squeezed.append(piece)
        length += len(piece) + 1
    joined = " ".join(squeezed)
    found: list[int] = []
    at = joined.find(loose)
    while at >= 0:
        number = bisect.bisect_right(starts, at) - 1
        if not found or found[-1] != number:
            found.append(number)
        at = joined.find(loose, at + 1)
    return found


def _verdict(ws: Workspace, profile: Profile, places: list[Place], text: str,
             target: str | None, cwd: str, explanation: Explanation | None = None,
             for_what: str | None = None) -> Verdict:
    """One agent's answer over its load for `target` (or `explanation`, a run's joined
    files; `for_what` then says which)."""
    explanation = explanation or profile.explain(ws, target, cwd)
    for_what = for_what or (f"for `{target}`" if target else "at start-up")
    answers = [(_one(ws, profile, explanation, place, text, target, for_what), place)
               for place in places]
    arriving = [place for (seen, _), place in answers if seen]
    if arriving:
        first = arriving[0]
        why = next(w for (seen, w), p in answers if p == first)
        return Verdict(profile.name, profile.title, True, first, why, tuple(arriving[1:]))
    # the answer about a file the agent does load (stripped, cut) says more than "not read"
    loaded = {f.path for f in explanation.files} | set(explanation.left_out)
    (_, why), place = min(answers, key=lambda a: a[1].path not in loaded)
    return Verdict(profile.name, profile.title, False, place, why)


def _one(ws: Workspace, profile: Profile, explanation: Explanation, place: Place, text: str,
         target: str | None, for_what: str) -> tuple[bool, str]:
    """(whether the model gets `place`, why — in the agent's terms)."""
    budget = explanation.budget
    for index, loaded in enumerate(explanation.files):
        if loaded.path != place.path:
            continue
        cut_line = cut_line_of(ws, loaded)
        if cut_line is not None and place.line >= cut_line:
            before = ", ".join(f.path for f in explanation.files[:index]) or "nothing"
            limit = f"{budget.setting or 'its budget'} ({budget.limit:,} {budget.unit})"
            return False, (f"cut: {profile.title} stops reading `{place.path}` at line "
                           f"{cut_line + 1} {for_what}, its {limit} used up by what comes "
                           f"before it ({before}) and the file's own start")
        if _squeeze(text) not in _squeeze(loaded.text):
            doc = ws.document(place.path)
            if place.line not in doc.kept_lines:
                return False, (f"stripped: line {place.line + 1} of `{place.path}` is inside an "
                               f"HTML comment, which {profile.title} removes before the model "
                               f"sees the file")
            return False, f"not in the text {profile.title} gets from `{place.path}`"
        how = f"imported by `{loaded.imported_by}`" if loaded.imported_by else loaded.reason
        load = "run" if for_what == IN_SESSION else "load"
        return True, (f"reaches the model {for_what}: `{place.path}` line {place.line + 1}, the "
                      f"{ordinal(index + 1)} file of the {load} ({how})")
    if place.path in explanation.left_out:
        return False, (f"left out: {profile.title}'s {budget.setting or 'budget'} "
                       f"({budget.limit:,} {budget.unit}) is used up before `{place.path}` "
                       f"{for_what}")
    return False, _not_loaded(ws, profile, explanation, place.path, target, for_what)


def _not_loaded(ws: Workspace, profile: Profile, explanation: Explanation, key: str,
                target: str | None, for_what: str) -> str:
    importers = sorted(i for i in ws.resolver.importers_of(key)
                       if any(f.path == i for f in explanation.files))
    if importers:
        return (f"`{importers[0]}` imports it, but {profile.title} does not follow that import "
                f"{for_what} (it does not read imports, or the chain is too deep)")
    status = profile.load_status(ws, key)
    first = next((f.path for f in explanation.files if f.reason == "project"), None)
    if status.why_not:
        move = f"; put it in `{first}`, which it loads {for_what}" if first else ""
        return f"{status.why_not}{move}"
    in_run = for_what == IN_SESSION
    if status.loads and status.scoped:
        if in_run:
            return (f"`{key}` is a scoped rule whose globs match no file a step of the session "
                    f"reads or edits")
        if not target:
            return (f"`{key}` is a scoped rule: it loads only for the files its globs match, "
                    f"never at start-up")
        near = posixpath.dirname(target)
        hint = f" (a glob such as `{near}/**` would)" if near else ""
        return f"`{key}` is a rule whose globs do not match `{target}`{hint}"
    if status.loads:
        example = f" (e.g. `{status.target}`)" if status.target else ""
        if target:
            return f"`{key}` loads for other files than `{target}`{example}"
        if in_run:
            return f"no step of the session brings `{key}`; it loads for other files{example}"
        return f"`{key}` is not in the start-up load; it loads for files{example}"
    return f"no load of {profile.title} {for_what} includes `{key}`"


def _squeeze(text: str) -> str:
    return _SPACE.sub(" ", text).strip()
