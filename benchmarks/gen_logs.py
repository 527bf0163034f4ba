"""Generate big logs of the shapes `rulemap session --file` and `rulemap verify` read, for
their throughput (bench_logs.py) and the hostile tests (tests/hostile/test_hostile_logs.py).
Standard library only; deterministic for a seed.

    gen_logs.py workspace DIR                        # the project the logs are of
    gen_logs.py transcript OUT --root DIR --mb 150   # a Claude Code session log
    gen_logs.py hook OUT --root DIR --mb 11          # InstructionsLoaded hook events
    gen_logs.py junk OUT --mb 200                    # lines that are no transcript

`workspace`: a git root with the packages the logs touch, each with its `AGENTS.md` and
`CLAUDE.md`, a root pair, and two path-scoped Claude Code rules (`.claude/rules/`).

`transcript`: the records a long Claude Code session writes to
`~/.claude/projects/<project>/<session>.jsonl`, in the proportions of a real one: each line
one record with the common fields (`parentUuid`, `cwd`, `sessionId`, `version`, `gitBranch`,
`uuid`, `timestamp`); user prompts; assistant records of one content block each (`thinking`
with its signature, `text`, `tool_use` of Read, Edit, Write, Bash, Grep, Glob) with the model's
`usage`; and user records of `tool_result`s with Claude Code's `toolUseResult` (a Read's file
twice, numbered and raw; an Edit's `originalFile` and `structuredPatch`; a command's output).
Tool results make up most of the bytes, as they do in real logs; a line averages ~5 KB.
Paths are absolute under DIR (the workspace a replay runs against), over a few hundred files
in nested packages.

`hook`: one session's `InstructionsLoaded` events (one JSON object a line): the start-up load,
then a `nested_traversal` or `path_glob_match` event for each of many distinct touched files
(the hostile case: every event starts a step).

`junk`: lines of ~2 bytes that no format reads (the issue's 200 MB file: 3.3 µs a line).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import string
import sys
from collections.abc import Iterator

VERSION = "2.0.14"
MODEL = "claude-sonnet-4-5-20250929"
WORDS = ("const", "let", "return", "import", "export", "from", "function", "async", "await",
         "if", "else", "for", "while", "user", "users", "handler", "request", "response",
         "error", "value", "result", "config", "test", "expect", "describe", "it", "should",
         "render", "props", "state", "id", "name", "path", "file", "data", "items", "map",
         "filter", "reduce", "string", "number", "boolean", "null", "undefined", "true", "false",
         "new", "class", "extends", "this")


def _code_lines(rng: random.Random, count: int) -> list[str]:
    out = []
    indent = 0
    for _ in range(count):
        words = rng.choices(WORDS, k=rng.randint(2, 10))
        line = " " * indent + " ".join(words)
        if rng.random() < 0.15:
            line += ' "' + rng.choice(WORDS) + '"'
        if rng.random() < 0.2:
            line += " {"
            indent = min(indent + 2, 12)
        elif rng.random() < 0.2 and indent:
            indent -= 2
            line = " " * indent + "}"
        else:
            line += ";"
        out.append(line)
    return out


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:]}"


def _files(root: str, rng: random.Random) -> list[str]:
    packages = [f"packages/{p}" for p in PACKAGES]
    out = []
    for pkg in packages:
        for sub in ("src", "src/lib", "src/components", "test", "src/handlers"):
            for i in range(12):
                ext = rng.choice(("ts", "tsx", "py", "md", "json"))
                out.append(f"{root}/{pkg}/{sub}/{rng.choice(WORDS)}_{i}.{ext}")
    return out


class _Session:
    def __init__(self, root: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.root = root
        self.session = _uuid(self.rng)
        self.parent: str | None = None
        self.clock = 0
        self.files = _files(root, self.rng)
        self.pool = _code_lines(self.rng, 4000)
        self.signature = "".join(self.rng.choices(string.ascii_letters + string.digits + "+/",
                                                  k=1200))

    def _common(self, kind: str) -> dict[str, object]:
        uid = _uuid(self.rng)
        self.clock += 1
        clock = self.clock
        record: dict[str, object] = {
            "parentUuid": self.parent, "isSidechain": False, "userType": "external",
            "cwd": self.root, "sessionId": self.session, "version": VERSION,
            "gitBranch": "main", "type": kind, "uuid": uid,
            "timestamp": f"2025-10-14T{10 + clock // 3600 % 12:02d}:{clock // 60 % 60:02d}:"
                         f"{clock % 60:02d}.{clock % 1000:03d}Z",
        }
        self.parent = uid
        return record

    def _text(self, lines: int) -> str:
        start = self.rng.randrange(len(self.pool) - lines)
        return "\n".join(self.pool[start:start + lines])

    def _assistant(self, block: dict[str, object]) -> dict[str, object]:
        record = self._common("assistant")
        record["message"] = {
            "id": f"msg_01{self.rng.getrandbits(88):022x}", "type": "message",
            "role": "assistant", "model": MODEL, "content": [block], "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": self.rng.randint(1, 9),
                      "cache_creation_input_tokens": self.rng.randint(0, 4000),
                      "cache_read_input_tokens": self.rng.randint(10000, 90000),
                      "output_tokens": self.rng.randint(1, 900), "service_tier": "standard"},
        }
        record["requestId"] = f"req_011{self.rng.getrandbits(80):020x}"
        return record

    def _result(self, tool_id: str, content: str, extra: object) -> dict[str, object]:
        record = self._common("user")
        record["message"] = {"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": content}]}
        record["toolUseResult"] = extra
        return record

    def _tool(self, name: str, tool_input: dict[str, object]) -> tuple[str, dict[str, object]]:
        tool_id = f"toolu_01{self.rng.getrandbits(80):020x}"
        return tool_id, self._assistant({"type": "tool_use", "id": tool_id, "name": name,
                                         "input": tool_input})

    def turn(self) -> Iterator[dict[str, object]]:
        rng = self.rng
        if rng.random() < 0.1:
            record = self._common("user")
            record["message"] = {"role": "user", "content": self._text(rng.randint(1, 4))}
            yield record
        yield self._assistant({"type": "thinking", "thinking": self._text(rng.randint(2, 12)),
                               "signature": self.signature})
        if rng.random() < 0.5:
            yield self._assistant({"type": "text", "text": self._text(rng.randint(1, 5))})
        tool = rng.choices(("Read", "Edit", "Write", "Bash", "Grep", "Glob"),
                           weights=(40, 20, 5, 20, 10, 5))[0]
        path = rng.choice(self.files)
        if tool == "Read":
            tool_id, call = self._tool("Read", {"file_path": path})
            yield call
            body = self._text(rng.randint(20, 300))
            numbered = "\n".join(f"{n:>6}\u2192{line}"
                                 for n, line in enumerate(body.split("\n"), 1))
            yield self._result(tool_id, numbered, {"type": "text", "file": {
                "filePath": path, "content": body, "numLines": body.count("\n") + 1,
                "startLine": 1, "totalLines": body.count("\n") + 1}})
        elif tool in ("Edit", "Write"):
            old, new = self._text(rng.randint(1, 8)), self._text(rng.randint(1, 12))
            if tool == "Edit":
                tool_id, call = self._tool("Edit", {"file_path": path, "old_string": old,
                                                    "new_string": new})
            else:
                tool_id, call = self._tool("Write", {"file_path": path,
                                                     "content": self._text(rng.randint(20, 200))})
            yield call
            original = self._text(rng.randint(20, 250))
            yield self._result(tool_id, f"The file {path} has been updated.", {
                "filePath": path, "oldString": old, "newString": new,
                "originalFile": original, "userModified": False, "replaceAll": False,
                "structuredPatch": [{"oldStart": 10, "oldLines": old.count("\n") + 1,
                                     "newStart": 10, "newLines": new.count("\n") + 1,
                                     "lines": ["-" + x for x in old.split("\n")]
                                     + ["+" + x for x in new.split("\n")]}]})
        elif tool == "Bash":
            tool_id, call = self._tool("Bash", {"command": "pnpm test -- " + path,
                                                "description": "Run the tests"})
            yield call
            out = self._text(rng.randint(5, 120))
            yield self._result(tool_id, out, {"stdout": out, "stderr": "",
                                              "interrupted": False, "isImage": False})
        else:
            tool_input = {"pattern": rng.choice(WORDS)}
            if rng.random() < 0.7:
                tool_input["path"] = path.rsplit("/", 2)[0]
            tool_id, call = self._tool(tool, tool_input)
            yield call
            found = "\n".join(rng.sample(self.files, 20))
            yield self._result(tool_id, found, {"filenames": found.split("\n"),
                                                "numFiles": 20, "durationMs": 12})


PACKAGES = ("api", "web", "core", "cli", "docs", "infra")


def workspace(root: str) -> None:
    """The project the generated logs are of, at `root` (made; a `.git` directory in it)."""
    files = {"AGENTS.md": "# Project\n\nRun `pnpm test` before you commit.\n",
             "CLAUDE.md": "# Project\n\n@AGENTS.md\n",
             ".claude/rules/api.md": "---\npaths:\n  - 'packages/api/**'\n---\nAPI rule.\n",
             ".claude/rules/tests.md": "---\npaths:\n  - '**/test/**'\n---\nTest rule.\n"}
    for pkg in PACKAGES:
        files[f"packages/{pkg}/AGENTS.md"] = f"# {pkg}\n\nThe {pkg} package.\n"
        files[f"packages/{pkg}/CLAUDE.md"] = f"# {pkg}\n\n@AGENTS.md\n"
        files[f"packages/{pkg}/src/index.ts"] = "export {};\n"
    os.makedirs(os.path.join(root, ".git"), exist_ok=True)
    for name, text in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def transcript(out: str, root: str, megabytes: float, seed: int = 1) -> int:
    """A Claude Code session log of about `megabytes` MB at `out`; its number of lines."""
    session = _Session(root.rstrip("/"), seed)
    target = int(megabytes * 1_000_000)
    size = lines = 0
    with open(out, "w", encoding="utf-8") as f:
        while size < target:
            chunk = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                            for r in session.turn())
            f.write(chunk)
            size += len(chunk.encode())
            lines += chunk.count("\n")
    return lines


def hook(out: str, root: str, megabytes: float, seed: int = 1) -> int:
    """One session's InstructionsLoaded events, each touching a new file; its line count."""
    rng = random.Random(seed)
    root = root.rstrip("/")
    base = {"session_id": _uuid(rng),
            "transcript_path": f"/home/dev/.claude/projects/-proj/{_uuid(rng)}.jsonl",
            "cwd": root, "hook_event_name": "InstructionsLoaded"}
    target = int(megabytes * 1_000_000)
    size = lines = 0
    with open(out, "w", encoding="utf-8") as f:
        for start in ("CLAUDE.md", "docs/style.md"):
            f.write(json.dumps({**base, "file_path": f"{root}/{start}", "memory_type": "Project",
                                "load_reason": "session_start"}) + "\n")
            lines += 1
        i = 0
        while size < target:
            pkg = ("api", "web")[i % 2]
            event = {**base, "file_path": f"{root}/packages/{pkg}/CLAUDE.md",
                     "memory_type": "Project", "load_reason": "nested_traversal",
                     "trigger_file_path": f"{root}/packages/{pkg}/src/file{i}.ts"}
            line = json.dumps(event) + "\n"
            f.write(line)
            size += len(line)
            lines += 1
            i += 1
    return lines


def junk(out: str, megabytes: float, line: bytes = b"x\n") -> int:
    """`megabytes` MB of one short line repeated; the line count."""
    count = int(megabytes * 1_000_000) // len(line)
    batch = line * 65536
    with open(out, "wb") as f:
        for _ in range(count // 65536):
            f.write(batch)
        f.write(line * (count % 65536))
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=("workspace", "transcript", "hook", "junk"))
    parser.add_argument("out")
    parser.add_argument("--root", default="/home/dev/proj")
    parser.add_argument("--mb", type=float, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.kind == "workspace":
        workspace(args.out)
        return 0
    if args.kind == "transcript":
        lines = transcript(args.out, args.root, args.mb, args.seed)
    elif args.kind == "hook":
        lines = hook(args.out, args.root, args.mb, args.seed)
    else:
        lines = junk(args.out, args.mb)
    print(f"{args.out}: {lines:,} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
