"""A repository someone else wrote: every bad input we know of, in one workspace on disk.

`build(tmp_path)` lays it out and returns a `Hostile` with the paths the tests need. Each case
names the finding it must produce (or `None` for "no finding, just no harm"). Secrets live
outside the workspace (a sibling directory and a fake home): no command may print or open them.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

from tests.lsp.conftest import write

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- hostile-corpus-secret"

BILLION_LAUGHS = """---
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
paths: [*f]
---
laughs
"""


@dataclass
class Hostile:
    root: Path
    home: Path
    outside: Path
    # root-relative file → the check code it must get (at least one finding with that code)
    expected: dict[str, str] = field(default_factory=dict)
    sockets: list[socket.socket] = field(default_factory=list)

    def close(self) -> None:
        for s in self.sockets:
            s.close()


def _write(root: Path, rel: str, data: str | bytes) -> None:
    write(root, {rel: data})


def build(tmp_path: Path, empty_dirs: int = 0, big_mb: int = 50) -> Hostile:
    root = tmp_path / "repo"
    home = tmp_path / "home"
    outside = tmp_path / "outside"
    root.mkdir()
    (root / ".git").mkdir()  # the root marker
    _write(home, ".ssh/id_rsa", SECRET)
    _write(outside, "secret.md", SECRET)
    hostile = Hostile(root, home, outside)
    expected = hostile.expected

    files: dict[str, str | bytes] = {
        # imports that reach out: relative, absolute, home, through a symlink (below)
        "AGENTS.md": (
            "# Root\n"
            "See @../outside/secret.md and @" + str(outside / "secret.md") + "\n"
            "Keys: @~/.ssh/id_rsa\n"
            "Directory: @. and @./ and @pkg\n"
            "Linked out: @linked-secret.md\n"
            "Many: @docs/many.md\n"
            "Deep: @chain/c0.md\n"
        ),
        # the repository tries to grant itself the home directory
        "rulemap.toml": 'allowImportsFrom = ["~", "/"]\n',
        # binary, invalid UTF-8, UTF-16 with BOM, NUL bytes
        "pkg/bin/AGENTS.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "pkg/latin1/AGENTS.md": "caf\xe9 cr\xe8me".encode("latin-1"),
        "pkg/utf16/AGENTS.md": "\ufeffhello @x.md".encode("utf-16"),
        # frontmatter: billion laughs, python tags, tabs, deep nesting, invalid globs
        ".claude/rules/laughs.md": BILLION_LAUGHS,
        ".claude/rules/python-tag.md": (
            "---\npaths: !!python/object/apply:os.system ['echo pwned']\n---\nx\n"
        ),
        ".claude/rules/nested.md": "---\npaths: " + "[" * 2000 + "]" * 2000 + "\n---\nx\n",
        ".claude/rules/bad-range.md": '---\npaths: ["[z-a]", "src/[b-a]/**"]\n---\nx\n',
        ".claude/rules/dead.md": "---\npaths:\n  - 'srcc/**/*.ts'\n  - 'pakages/**'\n---\nx\n",
        ".claude/rules/not-yaml.md": "---\npaths: [unclosed\n---\nx\n",
        ".claude/rules/huge-brace.md": (
            "---\npaths: ['{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}']\n---\nx\n"
        ),
        # a gitignore whose pattern no regex accepts
        ".gitignore": "[z-a]\n*.log\n",
        # long lines and many imports
        "docs/long.md": "x" * 300_000 + " @nowhere.md\n",
        "src/app.ts": "export {}\n",
    }
    many = [f"docs/m/{i}.md" for i in range(3000)]
    for rel in many:
        files[rel] = "m\n"
    files["docs/many.md"] = "\n".join(f"- @m/{i}.md" for i in range(3000)) + "\n@m/missing.md\n"
    for i in range(50):
        files[f"chain/c{i}.md"] = f"@c{i + 1}.md\n"
    for rel, data in files.items():
        _write(root, rel, data)

    # a file that is over the size cap
    (root / "pkg/big").mkdir(parents=True)
    with open(root / "pkg/big/AGENTS.md", "wb") as handle:
        handle.truncate(big_mb * 1024 * 1024)  # sparse: no disk, same size

    # special files named like instruction files
    (root / "pkg/fifo").mkdir(parents=True)
    os.mkfifo(root / "pkg/fifo/AGENTS.md")
    os.mkfifo(root / "pkg/fifo/CLAUDE.md")
    sock_dir = root / "pkg/sock"
    sock_dir.mkdir(parents=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(sock_dir / "AGENTS.md"))
    hostile.sockets.append(sock)
    (root / "pkg/dev").mkdir(parents=True)
    os.symlink("/dev/zero", root / "pkg/dev/AGENTS.md")  # a device, outside the root
    os.mkfifo(root / ".claude/rules/pipe.md")

    # symlinks: out of the workspace, loops, dangling
    os.symlink(outside / "secret.md", root / "linked-secret.md")
    os.symlink(outside, root / "out-dir")
    (root / "loop").mkdir()
    os.symlink("..", root / "loop/up")
    os.symlink("self", root / "loop/self")
    os.symlink("missing-target.md", root / "CLAUDE.md")

    for i in range(empty_dirs):
        (root / "empty" / f"{i // 1000}" / f"{i}").mkdir(parents=True)

    expected.update(
        {
            "AGENTS.md": "import-outside-workspace",
            "rulemap.toml": "untrusted-config",
            "pkg/bin/AGENTS.md": "unreadable-file",
            "pkg/latin1/AGENTS.md": "unreadable-file",
            "pkg/big/AGENTS.md": "unreadable-file",
            "pkg/fifo/AGENTS.md": "unreadable-file",
            "pkg/fifo/CLAUDE.md": "unreadable-file",
            "pkg/sock/AGENTS.md": "unreadable-file",
            ".claude/rules/laughs.md": "invalid-frontmatter",
            ".claude/rules/python-tag.md": "invalid-frontmatter",
            ".claude/rules/nested.md": "invalid-frontmatter",
            ".claude/rules/bad-range.md": "invalid-glob",
            ".claude/rules/dead.md": "unmatched-glob",
            ".claude/rules/not-yaml.md": "invalid-frontmatter",
            ".claude/rules/pipe.md": "unreadable-file",
        }
    )
    return hostile
