"""Every check code in one place, as ruff keeps its rules: the code, its default severity, the
other severities it may be emitted with (and when), the agents it concerns, whether
`check --fix` repairs it, a one-line summary and its section of docs/checks.md.

Everything that lists codes derives from `CHECKS`: configuration validation (`CHECK_CODES`),
`check --fix` (`fixes.SAFE_CODES`), SARIF's `tool.driver.rules`, `--statistics`, the editor's
documentation links, and the summary table of docs/checks.md (`scripts/update_checks_doc.py`
writes it). `tests/core/test_check_registry.py` runs every check over the conformance fixtures
and the demo and fails when a finding's (code, severity) is not one the registry declares, so
a check cannot drift from it silently.
"""

from __future__ import annotations

from dataclasses import field
from typing import Final, Literal

from rulemap.model import Severity
from rulemap.profiles import PROFILES
from rulemap.records import record

DOCS_URL = "https://github.com/rulemap/rulemap/blob/main/docs/checks.md"

# A code emitted by a shared family (`checks/`) concerns whoever reads the file: every agent.
EVERY_AGENT: Final = "every agent"
Agents = Literal["every agent"] | tuple[str, ...]

# none: no quick fix at all; safe: `check --fix` applies its single exact fix unattended
# (fixes.safe_fix); unsafe: a quick fix the editor offers, never applied unattended (a guess,
# a created file)
FixSafety = Literal["none", "safe", "unsafe"]


@record(frozen=True)
class Variant:
    """A severity other than the default that a check legitimately emits, and when."""

    severity: Severity
    when_text: str  # `when`, with `{notes:CODE}` where the agents' notes go

    @property
    def when(self) -> str:
        return _noted(self.when_text)


@record(frozen=True)
class Check:
    """One check code and everything said about it outside the checks themselves."""

    code: str
    severity: Severity  # the default: what a finding of this code is unless a variant applies
    # one line, for `--statistics`, SARIF and the table of docs/checks.md: `summary`, with
    # `{notes:CODE}` where the agents' notes go
    summary_text: str
    fix: FixSafety = "none"
    variants: tuple[Variant, ...] = ()
    # the `## code` section of docs/checks.md; GitHub's anchor of a heading that is only the
    # code is the code itself
    anchor: str = field(default="")

    def __post_init__(self) -> None:
        if not self.anchor:
            object.__setattr__(self, "anchor", self.code)

    @property
    def severities(self) -> frozenset[Severity]:
        """Every severity a finding of this code may be emitted with (before a user's
        `[severity]` override)."""
        return frozenset({self.severity, *(v.severity for v in self.variants)})

    @property
    def summary(self) -> str:
        return _noted(self.summary_text)

    @property
    def url(self) -> str:
        return f"{DOCS_URL}#{self.anchor}"

    @property
    def agents(self) -> Agents:
        """The agents whose own findings use this code (each profile declares its
        `check_codes`), or every agent for a code of the shared checks. Asked of the registry
        at call time, so an agent registered later is counted."""
        named = tuple(p.name for p in PROFILES.values() if self.code in p.check_codes)
        return named or EVERY_AGENT

    def concerns(self, profile: str) -> bool:
        agents = self.agents
        return agents == EVERY_AGENT or profile in agents


def _registry(*checks: Check) -> dict[str, Check]:
    out: dict[str, Check] = {}
    for check in checks:
        if check.code in out:
            raise ValueError(f"check code `{check.code}` registered twice")
        out[check.code] = check
    return out


def _notes(code: str) -> str:
    """What `code` means for the agents in particular, as their profiles word it
    (`Profile.code_notes`)."""
    return "; ".join(note for p in PROFILES.values() for c, note in p.code_notes if c == code)


def _noted(text: str) -> str:
    """`text` with each `{notes:CODE}` replaced by `_notes(CODE)`: worded when asked, so that
    the registry imports no profile (`rulemap check --help` lists codes without them)."""
    while (start := text.find("{notes:")) >= 0:
        end = text.index("}", start)
        text = text[:start] + _notes(text[start + len("{notes:"):end]) + text[end + 1:]
    return text


# The order is the SARIF rules' order (`ruleIndex`) and the table's: keep new codes at the end.
# Variants come from the emit sites (`Finding(` in server/rulemap); a code emitted in `checks/`
# concerns every agent, one emitted only under `profiles/<name>` the profiles declaring it.
CHECKS: Final[dict[str, Check]] = _registry(
    Check(
        "broken-import", "error", "an @import whose target does not exist",
        fix="unsafe",  # "did you mean" and "create the file" are guesses
        variants=(
            Variant("information", "the token does not look like a file (an npm scope, a "
                    "decorator, a mention, a bundler alias such as `@/`)"),
            Variant("warning", "Claude Code alone drops an import the default model loads "
                    "(a `#` read as a fragment, a path resolved from a symlink's real "
                    "directory)"),
        ),
    ),
    Check(
        "suspicious-import", "warning",
        "an @import with trailing punctuation whose trimmed form exists",
        fix="safe",
        variants=(
            Variant("information", "the trimmed path loads anyway (the file itself, an "
                    "instruction file of the importer's directory or one above, or an import "
                    "above it in the same file: fixing it would only bring the file twice)"),
        ),
    ),
    Check("import-cycle", "warning", "imports that lead back to a file already loading"),
    Check("import-too-deep", "warning", "an @import past maxImportDepth hops, which never loads"),
    Check("import-outside-workspace", "warning", "an @import outside the workspace, skipped"),
    Check(
        "budget-overflow", "warning",
        "a load over its agent's budget (characters, bytes or tokens) that cuts or leaves out "
        "this file",
    ),
    Check(
        "instructions-shadowed", "warning",
        "an instruction file an agent does not read because another file takes its place",
        fix="safe",
    ),
    Check(
        "import-not-followed", "information",
        "an @import in a file whose only readers have no imports: it reaches them as text",
        variants=(
            Variant("warning", "Claude Code ignores an import of a file that exists (a "
                    "target that is not a text file, such as `.mdc`, or a line in an indented "
                    "code block), or Gemini CLI's import parser rejects a wrapped path "
                    "(`@{ policy.md }`)"),
        ),
    ),
    Check(
        "file-too-large", "warning",
        "an instruction file over its agent's size warning ({notes:file-too-large})",
    ),
    Check(
        "invalid-frontmatter", "error",
        "frontmatter that is not valid YAML or has a wrong `paths`",
        variants=(
            Variant("warning", "the file still loads, but not as written (an empty `paths`, "
                    "another tool's key without `paths`, a Copilot or Cursor header key with "
                    "a wrong value)"),
        ),
    ),
    Check("invalid-glob", "error", "a `paths` glob that can never match as written"),
    Check(
        "unmatched-glob", "warning", "a `paths` glob that matches no file in the workspace",
        fix="unsafe",  # the nearest match may be the wrong glob
        variants=(
            Variant("information", "another glob of the rule matches, or the rule applies to "
                    "every file anyway (a dead alternative)"),
        ),
    ),
    Check(
        "unreachable-rule", "warning", "a rule the loader never reads from this location",
        variants=(
            Variant("information", "it is likely, not sure, that the rule is never read: a "
                    "Copilot file with no `applyTo` (attached by hand), a `.md` rule among "
                    "Cursor's rules (unconfirmed)"),
        ),
    ),
    Check("empty-instructions", "warning", "an instruction file or rule with no content"),
    Check(
        "unreadable-file", "error", "a binary, non-UTF-8, oversized or unreadable file",
        variants=(
            Variant("warning", "the file is a broken symlink or a symlink loop where the "
                    "loader looks"),
        ),
    ),
    Check(
        "non-utf8-name", "warning",
        "a file name that is not valid UTF-8, shown with a \\xNN escape per bad byte",
    ),
    Check(
        "duplicate-load", "information", "a file brought twice, read only once",
    ),
    Check(
        "untrusted-config", "warning",
        "a repository's configuration sets a key only the user may set; ignored",
    ),
    Check(
        "loaded-twice", "warning",
        "the same text loaded twice for one agent and file (a symlink, a copy or an import); "
        "the size it wastes is in that agent's unit",
        variants=(
            Variant("information", "only the load of a file beside it brings the text twice, "
                    "not the start-up load every session has"),
        ),
    ),
    Check(
        "link-only", "warning",
        "a file an agent reads that only links instruction files the agent never loads: it "
        "gets the link, not the instructions",
    ),
    Check(
        "duplicate-text", "information",
        "a paragraph one agent's load brings twice (two files, or twice in one); the size it "
        "wastes is in that agent's unit, for the files that pay it",
    ),
    Check(
        "drifted-copy", "information",
        "files meant to say the same to different agents that are mostly the same paragraphs, "
        "but not all: where they differ",
    ),
    Check(
        "stale-reference", "information",
        "a repository path the instructions name (a code span, a link, a mention) that names "
        "nothing in the workspace",
        fix="unsafe",  # "moved to X?" comes from git's rename guess or a file of the same name
        variants=(
            Variant("warning", "the path is a Markdown link target (`[x](path)`, "
                    "{notes:stale-reference}): a link promises a file"),
        ),
    ),
    Check(
        "stale-command", "information",
        "a script, target or recipe a command in the instructions runs (`npm run X`, `make X`, "
        "`just X`) that its package.json, Makefile or justfile does not define",
        fix="unsafe",  # the closest name may not be the one meant
        variants=(
            Variant("warning", "a script-only form (`npm run X`, `pnpm run X`, `npm test`) "
                    "against a package.json that parsed and no other package.json defining X"),
        ),
    ),
    Check(
        "misplaced-file", "warning",
        "a file named as an agent's instructions in a place that agent never looks (a "
        "project's copy of a user-level file, a package's own copy of a file the agent reads "
        "at the repository root only): where it would have to be",
        variants=(
            Variant("information", "the agent may still read it by another route (an editor "
                    "that reads the file of every workspace folder, so a package opened as "
                    "one; a home directory kept in git, whose files are the user's own)"),
        ),
    ),
    Check(
        "name-case", "warning",
        "a file whose name differs only in letter case from one an agent opens by name "
        "(lower case for upper case): read on macOS and Windows, not on Linux",
        variants=(
            Variant("information", "the platform assumed (`--platform`, `platform`, else "
                    "the host's) is macOS or Windows, where the agents read it"),
        ),
    ),
    Check(
        "invalid-agent-settings", "error",
        "an agent's own settings file that the agent cannot use (not JSON, or a setting of "
        "the wrong type): Gemini CLI refuses to start on one that does not parse",
        variants=(
            Variant("warning", "a key of the agent's older settings format that current "
                    "releases ignore (Gemini CLI's top-level `contextFileName`)"),
        ),
    ),
    Check(
        "unread-context-file", "warning",
        "a file of the agent's default context file name that the configured names leave "
        "out, so the agent never reads it",
    ),
)

CHECK_CODES: Final = frozenset(CHECKS)


def doc_url(code: str) -> str:
    """The documentation of `code` (its section of docs/checks.md)."""
    check = CHECKS.get(code)
    return check.url if check is not None else f"{DOCS_URL}#{code}"


def codes_where(fix: FixSafety) -> frozenset[str]:
    """The codes whose fix safety is `fix` (`fixes.SAFE_CODES` is `codes_where("safe")`)."""
    return frozenset(code for code, check in CHECKS.items() if check.fix == fix)
