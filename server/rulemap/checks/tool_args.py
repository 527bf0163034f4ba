"""What each task runner's arguments name: the script, target or recipe of `npm run X`,
`pnpm --filter web test`, `make -C docs html X`, `just X` (`PARSERS`, one function a tool, each
given the words after the tool's name). The rules are docs/checks.md's ("stale-command"):
options that take a value, the tool's own commands, and the forms that are never about one
script (`--if-present`, `-r`, `npx`).
"""

from __future__ import annotations

import re
from typing import Final, Literal

from rulemap.records import record

# run: a script-only form (`npm run X`, `pnpm run X`, `npm test`); maybe-bin: the tool runs a
# script of that name or else a binary of node_modules/.bin (`yarn X`, `bun run X`); target: a
# make target; recipe: a just recipe; program: `uv run X` / `poetry run X` (any executable)
Form = Literal["run", "maybe-bin", "target", "recipe", "program"]

@record(frozen=True)
class Word:
    text: str  # unquoted
    start: int
    end: int
    dynamic: bool


Found = tuple[Form, Word, dict[str, str]]


def _set(names: str) -> frozenset[str]:
    return frozenset(names.split())


def _options(args: list[Word], with_value: dict[str, str], skip: frozenset[str] = frozenset()
             ) -> tuple[dict[str, str], int] | None:
    """Read leading options: those in `with_value` (option → meaning) take the next word or
    `=value`; one in `skip` means the command is not about one script (None)."""
    extra: dict[str, str] = {}
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        word = args[index].text
        option, _, inline = word.partition("=")
        if option in skip or word in skip or args[index].dynamic:
            return None
        meaning = with_value.get(option)
        if meaning is None and len(option) > 2 and option[:2] in with_value and option[1] != "-":
            meaning, inline = with_value[option[:2]], option[2:]  # `-Cdir`
        if meaning is not None:
            if not inline:
                index += 1
                if index >= len(args) or args[index].dynamic:
                    return None
                inline = args[index].text
            extra[meaning] = inline
        index += 1
    return extra, index


_NPM_VALUES: Final = {"--prefix": "cwd", "-w": "package", "--workspace": "package",
                      "--loglevel": "", "--registry": "", "--userconfig": ""}
_NPM_SKIP: Final = frozenset({"--if-present", "-ws", "--workspaces", "-g", "--global"})


def _npm(args: list[Word]) -> list[Found]:
    read = _options(args, _NPM_VALUES, _NPM_SKIP)
    if read is None or read[1] >= len(args):
        return []
    extra, index = read
    sub = args[index].text
    if sub in ("test", "t", "tst"):
        return [("run", args[index], extra)] if _plain(args[index + 1:]) else []
    if sub not in ("run", "run-script", "rum", "urn"):
        return []
    more = _options(args[index + 1:], _NPM_VALUES, _NPM_SKIP)
    if more is None or index + 1 + more[1] >= len(args):
        return []
    rest = args[index + 1 + more[1]:]
    if not _plain(rest[1:]):
        return []
    return [("run", rest[0], {**extra, **more[0]})]


def _plain(rest: list[Word]) -> bool:
    """No option after the script that makes a missing script fine."""
    return not any(w.text == "--if-present" for w in rest)


_PNPM_BUILTINS: Final = _set(
    "add install i update up upgrade remove rm uninstall un link ln unlink import rebuild "
    "rb prune fetch install-test it patch patch-commit patch-remove audit list ls ll la "
    "outdated why licenses exec dlx create publish pack store root bin setup init env "
    "server deploy config c get set doctor cache catalog self-update approve-builds "
    "ignored-builds help version login logout whoami view info recursive multi m start "
    "restart stop dedupe completion sbom docs home repo owner dist-tag search star stars "
    "unstar ping profile team token hook access adduser bugs edit explore fund org query "
    "shrinkwrap xmas")
_PNPM_VALUES: Final = {"-C": "cwd", "--dir": "cwd", "--filter": "package", "-F": "package",
                       "--workspace-root": "root", "-w": "root", "--reporter": "",
                       "--loglevel": ""}
_PNPM_SKIP: Final = frozenset({"-r", "--recursive", "--if-present", "--filter-prod",
                               "--parallel", "-g", "--global", "--stream"})


def _pnpm(args: list[Word]) -> list[Found]:
    values = {k: v for k, v in _PNPM_VALUES.items() if v != "root"}
    # -w / --workspace-root take no value
    flags = [a for a in args if a.text in ("-w", "--workspace-root")]
    args = [a for a in args if a.text not in ("-w", "--workspace-root")]
    read = _options(args, values, _PNPM_SKIP)
    if read is None or read[1] >= len(args):
        return []
    extra, index = read
    if flags:
        extra["root"] = "1"
    if not _filter_is_a_name(extra.get("package")):
        return []
    sub = args[index].text
    if sub in ("test", "t", "tst"):
        return [("run", args[index], extra)] if _plain(args[index + 1:]) else []
    if sub == "run":
        more = _options(args[index + 1:], values, _PNPM_SKIP)
        if more is None or index + 1 + more[1] >= len(args):
            return []
        rest = args[index + 1 + more[1]:]
        merged = {**extra, **more[0]}
        if not _plain(rest[1:]) or not _filter_is_a_name(merged.get("package")):
            return []
        return [("run", rest[0], merged)]
    if sub in _PNPM_BUILTINS or "/" in sub or "." in sub:
        return []
    return [("maybe-bin", args[index], extra)]


def _filter_is_a_name(value: str | None) -> bool:
    """A package selector that names one package (not `@scope/*`, `./dir...`, `^...`)."""
    return value is None or re.fullmatch(r"@?[A-Za-z0-9_][\w.-]*(?:/[\w.-]+)?", value) is not None


_YARN_BUILTINS: Final = _set(
    "add install remove upgrade up upgrade-interactive why info init link unlink pack "
    "publish global cache config dlx exec node npm plugin set workspaces version "
    "constraints dedupe explain bin rebuild patch patch-commit search stage unplug login "
    "logout owner tag team audit autoclean check create generate-lock-entry help import "
    "licenses list outdated policies start import self-update")


def _yarn(args: list[Word]) -> list[Found]:
    read = _options(args, {"--cwd": "cwd"}, frozenset({"--if-present"}))
    if read is None or read[1] >= len(args):
        return []
    extra, index = read
    sub = args[index].text
    if sub == "workspace":
        if index + 2 >= len(args) or args[index + 1].dynamic:
            return []
        package = args[index + 1].text
        inner = _yarn(args[index + 2:])
        return [(form, word, {**extra, **more, "package": package})
                for form, word, more in inner if "cwd" not in more]
    if sub == "test":
        return [("run", args[index], extra)]
    if sub == "run":
        if index + 1 >= len(args) or args[index + 1].text.startswith("-"):
            return []
        return [("maybe-bin", args[index + 1], extra)]
    if sub in _YARN_BUILTINS or "/" in sub or "." in sub or sub.startswith("-"):
        return []
    return [("maybe-bin", args[index], extra)]


_BUN_BUILTINS: Final = _set(
    "test x install i add a remove rm update outdated link unlink pm build init create c "
    "upgrade publish patch audit info why exec repl completions discord help")


def _bun(args: list[Word]) -> list[Found]:
    read = _options(args, {"--cwd": "cwd", "--filter": "package", "-F": "package"},
                    frozenset({"--if-present"}))
    if read is None or read[1] >= len(args):
        return []
    extra, index = read
    if not _filter_is_a_name(extra.get("package")):
        return []
    sub = args[index].text
    if sub == "run":
        more = _options(args[index + 1:], {}, frozenset({"--if-present"}))
        if more is None or index + 1 + more[1] >= len(args):
            return []
        index += 1 + more[1]
        sub = args[index].text
    elif sub in _BUN_BUILTINS:
        return []
    if "/" in sub or "." in sub or sub.startswith("-"):
        return []  # a file (`bun run index.ts`)
    return [("maybe-bin", args[index], extra)]


_MAKE_VALUES: Final = {"-C": "cwd", "--directory": "cwd", "-f": "file", "--file": "file",
                       "--makefile": "file", "-I": "", "--include-dir": "", "-o": "",
                       "--old-file": "", "-W": "", "--what-if": "", "--new-file": "",
                       "--eval": ""}


def _make(args: list[Word]) -> list[Found]:
    extra: dict[str, str] = {}
    out: list[Found] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word.text.startswith("-"):
            read = _options(args[index:index + 2], _MAKE_VALUES)
            if read is None:
                return []
            extra.update(read[0])
            index += read[1] if read[1] else 1
            if word.text in ("-j", "-l") and index < len(args) and args[index].text.isdigit():
                index += 1
            continue
        if "=" not in word.text:
            out.append(("target", word, extra))
        index += 1
    if "file" in extra:
        return []  # another makefile than the one make finds: not followed
    return [(form, w, extra) for form, w, _ in out]


_JUST_VALUES: Final = {"-f": "file", "--justfile": "file", "-d": "cwd",
                       "--working-directory": "", "--shell": "", "--shell-arg": "",
                       "--dotenv-filename": "", "--dotenv-path": "", "--color": "",
                       "--chooser": "", "--list-heading": "", "--list-prefix": ""}
_JUST_SKIP: Final = _set(
    "-l --list --summary --dump --evaluate --show -s --edit -e --init --choose --fmt "
    "--variables --groups --completions --changelog --help -h --version -V --command -c "
    "--set")


def _just(args: list[Word]) -> list[Found]:
    read = _options(args, _JUST_VALUES, _JUST_SKIP)
    if read is None:
        return []
    extra, index = read
    if "file" in extra or "cwd" in extra:
        return []
    while index < len(args) and "=" in args[index].text:
        index += 1  # `just mode=release build`: an override, then the recipe
    if index >= len(args):
        return []
    word = args[index]
    if "/" in word.text or word.text.startswith("-"):
        return []
    if "::" in word.text:
        head = word.text.split("::", 1)[0]
        word = Word(head, word.start, word.start + len(head), word.dynamic)
    return [("recipe", word, extra)]


def _run_program(args: list[Word]) -> list[Found]:
    values = {"--with": "", "--python": "", "-p": "", "--package": "", "--directory": "cwd",
              "--project": "", "--extra": "", "--group": "", "--env-file": "", "--index": "",
              "-C": "cwd", "-P": ""}
    if not args or args[0].text != "run":
        return []
    read = _options(args[1:], values)
    if read is None or 1 + read[1] >= len(args):
        return []
    return [("program", args[1 + read[1]], read[0])]


PARSERS: Final = {"npm": _npm, "pnpm": _pnpm, "yarn": _yarn, "bun": _bun, "make": _make,
                   "just": _just, "uv": _run_program, "poetry": _run_program}
