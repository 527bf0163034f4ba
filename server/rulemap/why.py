"""Why: does a sentence of the instructions reach an agent's model, and if not, why not
(docs/reach.md, "rulemap why").

The text is found in every selected agent's files — the workspace's instruction files, rules
and what they import, the files each agent reads by its own names (GEMINI.md, `.mdc` rules,
`.instructions.md`), and what each agent's loads bring (its imports, just-in-time files,
user-level files) — exactly, else with runs of whitespace taken as one space; one place per
real file, whichever name it is read by. Then each selected agent's load for the target (or
its start-up load) says whether a place holding it arrives: loaded with that line read;
stripped before the model sees it (an HTML comment); cut or left out by the budget; in a file
the agent does not read, a rule whose globs do not match the target, or a file only an import
the agent does not follow names — and then where the agent would read it (`Profile.homes`),
never the file it is in. One computation, plain data; the CLI prints it."""

from __future__ import annotations

import bisect
import posixpath
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from rulemap.aliases import Through, preferred, through
from rulemap.model import Explanation, ImportStatus
from rulemap.reach import cut_line_of, ordinal
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.profiles.base import Home, Profile
    from rulemap.profiles.steps import ToolStep
    from rulemap.workspace import Workspace

_SPACE = re.compile(r"\s+")
IN_SESSION = "in the session"  # what a run's answer is for (`why_in_session`)
MAX_PLACES = 20  # places a text is looked for in (the first ones, by path and line)


@record(frozen=True)
class Place:
    path: str
    line: int  # 0-based
    exact: bool  # found as written (else only with whitespace runs taken as one space)


@record(frozen=True)
class Verdict:
    """One agent's answer."""

    profile: str
    title: str
    seen: bool
    place: Place  # where it arrives (seen), else the place the answer is about
    why: str  # in the agent's terms
    also: tuple[Place, ...] = ()  # other places it arrives from (seen twice or more)
    # where the agent would read the text (not seen), the best first; never a file holding it
    advice: tuple[Home, ...] = ()
    # the other name the agent reads `place`'s file under (a symlink either way; None: its
    # own name)
    through: Through | None = None

    def to_json(self) -> dict[str, object]:
        return {"profile": self.profile, "title": self.title, "seen": self.seen,
                "path": self.place.path, "line": self.place.line + 1,
                "through": None if self.through is None else self.through.to_json(),
                "why": self.why,
                "also": [{"path": p.path, "line": p.line + 1} for p in self.also],
                "advice": [h.to_json() for h in self.advice]}


@record(frozen=True)
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


def find(ws: Workspace, text: str, profiles: Sequence[Profile] = (),
         target: str | None = None, cwd: str = "") -> list[Place]:
    """Where `text` is written, in every file of `profiles` (and the workspace's documents and
    their imports), exactly, else with whitespace runs as one space; one place per real file
    (its first name), by path, then line. The files their loads bring for other targets (a
    nested file's imports) are searched only when the rest holds nothing."""
    needle = text.strip()
    if not needle:
        return []
    loose = _SPACE.sub(" ", needle)
    places = _search(ws, _sources(ws, profiles, target, cwd), needle, loose)
    if not places and profiles:
        bound = _bound_sources(ws, profiles, cwd)
        if not _search(ws, bound, needle, loose):
            return []  # in none of what any load may bring, so in none it brings
        places = _search(ws, _grouped_sources(ws, profiles, cwd), needle, loose)
    return places


def why(ws: Workspace, text: str, target: str | None, profiles: Sequence[Profile],
        cwd: str) -> Why:
    places = find(ws, text, profiles, target, cwd)
    verdicts = tuple(_verdict(ws, p, places, text, target, cwd) for p in profiles) \
        if places else ()
    return Why(text, target, cwd or ".", tuple(places), verdicts)


def why_in_session(ws: Workspace, text: str, steps: Sequence[ToolStep],
                   profiles: Sequence[Profile], cwd: str) -> Why:
    """Whether `text` reaches each agent's model at some step of a run: each agent's own
    replay of `steps` (`rulemap session`'s), its joined files in order as one load — the
    step a place joins at named —; the reasons of `why` when none does."""
    from rulemap.session.replay import replay

    places = find(ws, text, profiles, None, cwd)
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


_Sources = dict[str, "list[str] | None"]  # a file → its lines (None: the workspace's document)


def _sources(ws: Workspace, profiles: Sequence[Profile], target: str | None,
             cwd: str) -> _Sources:
    """The workspace's documents and their imports, the files the agents read by their own
    names, and what their loads for `target` bring (imports in their own syntax, just-in-time
    and user-level files, the last searched in the text the agent gets)."""
    from rulemap.checks.name_case import case_files
    from rulemap.profiles.documents import read_documents

    found: _Sources = dict.fromkeys(_documents(ws))
    found.update((k, None) for k in read_documents(ws, profiles) if not k.startswith("/"))
    # an agent's file in other letter case (`claude.md`): read on macOS, not on Linux
    found.update((k, None) for k in case_files(ws) if k not in found)
    # a file written for an agent where it never looks (misplaced-file)
    found.update((f.path, None) for profile in profiles for f in profile.misplaced(ws)
                 if f.path not in found)
    for profile in profiles:
        _add_loaded(found, profile.explain(ws, target, cwd))
    return found


def _grouped_sources(ws: Workspace, profiles: Sequence[Profile], cwd: str) -> _Sources:
    """What the agents' loads bring for any target (their load groups)."""
    found: _Sources = {}
    for profile in profiles:
        for explanation, _ in profile.load_groups(ws, cwd) or ():
            _add_loaded(found, explanation)
    return found


def _bound_sources(ws: Workspace, profiles: Sequence[Profile], cwd: str) -> _Sources:
    """What the agents' loads may bring for any target, or more: each agent's own bound
    (`Profile.may_bring`: its documents and their imports), else its load groups' files.
    Searched first, it tells a sentence that is nowhere without building every load group
    (on a 60,000-file tree, most of `why`'s time)."""
    found: _Sources = {}
    for profile in profiles:
        bound = profile.may_bring(ws, cwd)
        if bound is None:
            for explanation, _ in profile.load_groups(ws, cwd) or ():
                _add_loaded(found, explanation)
        else:
            found.update((k, None) for k in bound if k not in found)
    return found


def _add_loaded(found: _Sources, explanation: Explanation) -> None:
    for loaded in explanation.files:
        if loaded.path not in found:
            found[loaded.path] = loaded.text.split("\n") if loaded.path.startswith("/") \
                else None


def _search(ws: Workspace, sources: _Sources, needle: str, loose: str) -> list[Place]:
    exact: list[Place] = []
    spaced: list[Place] = []
    # each file once, by its real name when that is one of the names (the text of a
    # `CLAUDE.md` symlinked to `AGENTS.md` is found in `AGENTS.md`), else its first
    names: dict[str, list[str]] = {}
    for key in sorted(k for k, lines in sources.items() if lines is None):
        names.setdefault(ws.identity(key), []).append(key)
    chosen = {preferred(ws, keys) for keys in names.values()}
    for key in sorted(sources):
        lines = sources[key]
        if lines is None:
            if key not in chosen:
                continue
            doc = ws.document(key)
            if doc.unreadable:
                continue
            lines = doc.lines
        for number, line in enumerate(lines):
            if needle in line:
                exact.append(Place(key, number, True))
        if not exact or exact[-1].path != key:
            spaced.extend(Place(key, n, False) for n in _loose_lines(lines, loose))
    return (exact or spaced)[:MAX_PLACES]


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
    answers = [_one(ws, profile, explanation, place, text, target, for_what)
               for place in places]
    arriving = [answer for answer in answers if answer.seen]
    if arriving:
        first = arriving[0]
        return Verdict(profile.name, profile.title, True, first.place, first.why,
                       tuple(a.place for a in arriving[1:]), through=first.through)
    # the answer about a file the agent does load (stripped, cut) says more than "not read"
    loaded = {_real(ws, f.path) for f in explanation.files} \
        | {_real(ws, k) for k in explanation.left_out}
    best = min(answers, key=lambda a: _real(ws, a.place.path) not in loaded).worded()
    advice: tuple[Home, ...] = ()
    if best.advise:
        holding = {_real(ws, p.path) for p in places}
        advice = tuple(h for h in profile.homes(ws, None if for_what == IN_SESSION else target,
                                                 cwd)
                       if _real(ws, h.path) not in holding)
        advice = tuple({h.path: h for h in reversed(advice)}.values())[::-1]  # each once
    return Verdict(profile.name, profile.title, False, best.place,
                   best.why + _advice_text(advice), advice=advice, through=best.through)


@record(frozen=True)
class _Answer:
    seen: bool
    place: Place  # where the text is written
    why: str
    advise: bool = False  # the agent never reads the file: say where it would
    through: Through | None = None  # the other name the agent reads the file under
    # (why, advise) of a file the load does not hold, worked out when the answer is worded
    unworded: Callable[[], tuple[str, bool]] | None = None

    def worded(self) -> _Answer:
        if self.unworded is None:
            return self
        why, advise = self.unworded()
        return replace(self, why=why, advise=advise, unworded=None)


def _real(ws: Workspace, key: str) -> str:
    """The file `key` names, whichever of its names (a symlink's) is written."""
    return key if key.startswith("/") else ws.identity(key)


def _advice_text(advice: tuple[Home, ...]) -> str:
    """"; put it in `X`, which it loads at start-up (or in a new file `Y`, …)": the first two
    homes."""
    if not advice:
        return ""
    def one(home: Home) -> str:
        return f"{'a new file ' if home.new else ''}`{home.path}`, {home.how}"

    first, *rest = advice
    more = f" (or in {one(rest[0])})" if rest else ""
    return f"; put it in {one(first)}{more}"


def _one(ws: Workspace, profile: Profile, explanation: Explanation, place: Place, text: str,
         target: str | None, for_what: str) -> _Answer:
    """Whether the model gets `place`, why — in the agent's terms: the file where the text
    is written, and the other name the agent reads it under when it does (a symlink either
    way), said once for the text."""
    budget = explanation.budget
    real = _real(ws, place.path)
    found = [(i, f) for i, f in enumerate(explanation.files)
             if f.path == place.path or _real(ws, f.path) == real]
    found.sort(key=lambda entry: entry[1].path != place.path)  # its own name first
    for index, loaded in found[:1]:
        via = through(ws, place.path, loaded.path)
        # "`AGENTS.md`, which Claude Code reads as `CLAUDE.md` (a symlink to `AGENTS.md`),"
        named = f"`{place.path}`" + (f", which {profile.title} reads as {via.phrase()}"
                                     if via else "")
        cut_line = cut_line_of(ws, loaded)
        if cut_line is not None and place.line >= cut_line:
            before = ", ".join(f.path for f in explanation.files[:index]) or "nothing"
            limit = f"{budget.setting or 'its budget'} ({budget.limit:,} {budget.unit})"
            return _Answer(False, place, (
                f"cut: {profile.title} stops reading {named}{',' if via else ''} at line "
                f"{cut_line + 1} {for_what}, its {limit} used up by what comes before it "
                f"({before}) and the file's own start"), through=via)
        if _squeeze(text) not in _squeeze(loaded.text):
            if not place.path.startswith("/") \
                    and place.line not in ws.document(place.path).kept_lines:
                return _Answer(False, place, (
                    f"stripped: line {place.line + 1} of {named}{',' if via else ''} is inside "
                    f"an HTML comment, which {profile.title} removes before the model sees the "
                    f"file"), through=via)
            return _Answer(False, place, f"not in the text {profile.title} gets from "
                                         f"{named}", through=via)
        how = f"imported by `{loaded.imported_by}`" if loaded.imported_by else loaded.reason
        load = "run" if for_what == IN_SESSION else "load"
        read_as = f", read as {via.phrase()}" if via else ""
        again = [f"`{f.path}`" for _, f in found[1:]]
        twice = (f"; read again as {', '.join(again)}: the model gets it more than once"
                 if again else "")
        return _Answer(True, place, (
            f"reaches the model {for_what}: `{place.path}` line {place.line + 1}{read_as}, "
            f"the {ordinal(index + 1)} file of the {load} ({how}){twice}"), through=via)
    if any(_real(ws, k) == real for k in explanation.left_out):
        return _Answer(False, place, (
            f"left out: {profile.title}'s {budget.setting or 'budget'} ({budget.limit:,} "
            f"{budget.unit}) is used up before `{place.path}` {for_what}"))
    # why it is not loaded is asked only of the answer a verdict words (`_Answer.worded`):
    # for a file imported somewhere, it searches every load of the agent
    return _Answer(False, place, "", unworded=lambda: _not_loaded(
        ws, profile, explanation, place.path, target, for_what))


def _not_loaded(ws: Workspace, profile: Profile, explanation: Explanation, key: str,
                target: str | None, for_what: str) -> tuple[str, bool]:
    """Why no file of the load is `key`, and whether to say where the agent would read the
    text instead (it never reads `key` where it is, or reads it for other files only)."""
    importers = sorted(i for i in ws.resolver.importers_of(key)
                       if any(f.path == i for f in explanation.files))
    if importers:
        return (f"`{importers[0]}` imports it, but {profile.title} does not follow that import "
                f"{for_what} (it does not read imports, or the chain is too deep)"), False
    in_run = for_what == IN_SESSION
    if key.startswith("/"):
        return f"{profile.title} does not read the user-level file `{key}` {for_what}", True
    from rulemap.profiles.placement import misplaced_why

    # where it looks and where the file would have to be, as `check` says it (misplaced-file)
    misplaced = misplaced_why(ws, profile, key)
    if misplaced is not None:
        return misplaced, True
    from rulemap.checks.name_case import case_why

    # its name in other letter case, as `check` says it (name-case): the fix is the rename
    cased = case_why(ws, profile.title, key)
    if cased is not None:
        return cased, False
    status = profile.load_status(ws, key)
    if status.why_not:
        own = _own_importers(ws, profile, key, explanation)
        if own:
            return (f"`{key}` is imported by `{own[0]}`, which {profile.title} does not load "
                    f"{for_what}"), True
        return status.why_not, True
    if status.loads and status.scoped:
        if in_run:
            return (f"`{key}` is a scoped rule whose globs match no file a step of the session "
                    f"reads or edits"), False
        if not target:
            return (f"`{key}` is a scoped rule: it loads only for the files its globs match, "
                    f"never at start-up"), False
        near = posixpath.dirname(target)
        hint = f" (a glob such as `{near}/**` would)" if near else ""
        return f"`{key}` is a rule whose globs do not match `{target}`{hint}", False
    if status.loads:
        example = f" (e.g. `{status.target}`)" if status.target else ""
        if target:
            return f"`{key}` loads for other files than `{target}`{example}", True
        if in_run:
            return (f"no step of the session brings `{key}`; it loads for other "
                    f"files{example}"), True
        return f"`{key}` is not in the start-up load; it loads for files{example}", True
    return f"no load of {profile.title} {for_what} includes `{key}`", True


def _own_importers(ws: Workspace, profile: Profile, key: str,
                   explanation: Explanation) -> list[str]:
    """The files whose import (in the agent's own syntax) brings `key` in some load of the
    agent, none of them in `explanation` (its load groups; none when it follows no imports,
    or `key` is some selected agent's instruction file or rule)."""
    from rulemap.profiles.base import selected
    from rulemap.profiles.documents import read_documents

    # an instruction file or rule by its own name: not worth every load of the agent (this
    # question asks them all) to tell
    if not profile.follows_imports or key in read_documents(ws, selected(ws)):
        return []
    loaded = {f.path for f in explanation.files}
    cwd = "" if explanation.cwd in ("", ".") else explanation.cwd
    found = {f.imported_by for group, _ in profile.load_groups(ws, cwd) or ()
             for f in group.files if f.path == key and f.imported_by}
    return sorted(i for i in found if i is not None and i not in loaded)


def _squeeze(text: str) -> str:
    return _SPACE.sub(" ", text).strip()
