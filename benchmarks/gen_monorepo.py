#!/usr/bin/env python3
"""Generate a deterministic synthetic monorepo for Rulemap's benchmarks.

    python benchmarks/gen_monorepo.py DEST [--seed N] [--files 20000] [--instructions 400]
                                          [--rules 200] [--git] [--small] [--force]

The tree looks like a real TypeScript/Python/Go monorepo (`packages/`, `apps/`, `libs/`,
`tools/`, `docs/`, 3-7 levels deep) with agent instruction files (`AGENTS.md`, `CLAUDE.md`,
`CLAUDE.local.md`, `.claude/CLAUDE.md`) in many directories, `@imports` among them and into
`docs/*.md`, and `.claude/rules/**/*.md` rules with `paths:` globs. Source files are one-liners,
so the whole tree stays small on disk (about 100 MB of 4 KiB blocks for 20,000 files).

Everything derives from `random.Random(seed)`: the same arguments give byte-identical files
(and, with `--git`, the same commit id: author, committer and dates are fixed).

Planted problems (a summary with counts goes to stderr; the full list, with paths, is written
to `DEST/.bench-manifest.json`, which the tree's `.gitignore` ignores):
broken imports, import cycles, one import chain deeper than 4 hops, imports with trailing
punctuation, globs that match nothing, invalid YAML frontmatter, binary and non-UTF-8
instruction files, oversized instruction files (some loads exceed 32,000 chars), plus the
realistic noise of `@` signs that are not imports (decorators in code fences, `@scope/pkg` in
code spans, e-mail addresses) and a few bare `@scope/pkg` / `@team` mentions in prose.
Files inside `node_modules/` and `dist/` (instruction files included) are ignored by the tree's
`.gitignore` and must never be linted.

Only the standard library is needed. When `pathspec` is importable (it is in the project's
venv) every generated glob is verified: the ones meant to match do, the planted ones don't.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

GENERATOR_VERSION = 1
MANIFEST = ".bench-manifest.json"
MAX_CHARS = 32_000

# --------------------------------------------------------------------------- vocabulary

PKG_WORDS = [
    "api",
    "auth",
    "billing",
    "ui",
    "core",
    "search",
    "payments",
    "notifications",
    "analytics",
    "storage",
    "queue",
    "scheduler",
    "gateway",
    "identity",
    "catalog",
    "orders",
    "inventory",
    "shipping",
    "pricing",
    "reports",
    "metrics",
    "logging",
    "config",
    "cache",
    "events",
    "workflow",
    "editor",
    "render",
    "sync",
    "media",
    "feeds",
    "chat",
    "profile",
    "admin",
    "ledger",
    "tax",
    "cart",
    "checkout",
    "emails",
    "sdk",
    "cli",
    "schema",
    "graphql",
    "rpc",
    "i18n",
    "theme",
    "forms",
    "charts",
    "maps",
    "video",
    "audit",
    "flags",
    "limits",
    "tenant",
]
PKG_SUFFIX = ["", "-core", "-client", "-server", "-utils", "-kit", "-service", "-worker"]
APP_WORDS = [
    "web",
    "admin",
    "console",
    "mobile-web",
    "docs-site",
    "storefront",
    "dashboard",
    "partner-portal",
    "support",
    "playground",
    "status",
    "marketing",
]
TOOL_WORDS = [
    "codegen",
    "release",
    "lint-rules",
    "bench",
    "migrate",
    "scripts",
    "devserver",
    "fixtures",
    "legacy",
    "ci",
]
AREA_WORDS = [
    "handlers",
    "routes",
    "models",
    "services",
    "components",
    "hooks",
    "utils",
    "lib",
    "store",
    "views",
    "pages",
    "adapters",
    "clients",
    "middleware",
    "validators",
    "schemas",
    "jobs",
    "workers",
    "commands",
    "queries",
    "mutations",
    "resolvers",
    "state",
    "layout",
    "widgets",
    "internal",
    "common",
    "helpers",
    "types",
    "fixtures",
    "migrations",
    "repositories",
    "domain",
    "infra",
    "http",
    "db",
    "events",
    "selectors",
    "reducers",
    "styles",
    "icons",
    "forms",
]
FILE_WORDS = [
    "index",
    "user",
    "account",
    "session",
    "token",
    "order",
    "invoice",
    "payment",
    "client",
    "server",
    "router",
    "config",
    "logger",
    "cache",
    "queue",
    "retry",
    "timeout",
    "format",
    "parse",
    "validate",
    "serialize",
    "mapper",
    "factory",
    "builder",
    "registry",
    "context",
    "provider",
    "button",
    "modal",
    "table",
    "list",
    "card",
    "header",
    "footer",
    "sidebar",
    "search",
    "filter",
    "sort",
    "paginate",
    "upload",
    "download",
    "export",
    "import",
    "report",
    "chart",
    "metric",
    "event",
    "listener",
    "handler",
    "store",
    "slice",
    "selector",
    "effect",
    "hook",
    "util",
    "helpers",
    "constants",
    "types",
    "errors",
    "schema",
    "model",
    "service",
]
DOC_TOPICS = [
    "testing",
    "style",
    "architecture",
    "deployment",
    "security",
    "releases",
    "api-design",
    "database",
    "migrations",
    "observability",
    "performance",
    "accessibility",
    "i18n",
    "error-handling",
    "logging",
    "feature-flags",
    "code-review",
    "git-workflow",
    "dependencies",
    "frontend",
    "backend",
    "caching",
    "queues",
    "auth",
    "payments",
    "monitoring",
    "oncall",
    "incidents",
    "data-retention",
    "privacy",
    "linting",
    "typescript",
    "python",
    "go",
    "graphql",
    "rest",
    "grpc",
    "storybook",
    "e2e",
    "benchmarks",
    "ci",
    "docker",
    "kubernetes",
    "terraform",
    "secrets",
    "onboarding",
    "glossary",
    "naming",
    "comments",
    "docs",
]
PEOPLE = ["alice", "bob", "carol", "dmitri", "erin", "farah", "gus", "hiro", "ines", "jamal"]
TEAMS = ["platform-team", "web-core", "infra", "payments-oncall", "devex", "security"]
SCOPES = [
    "@acme/ui",
    "@acme/core",
    "@acme/config",
    "@tanstack/react-query",
    "@types/node",
    "@acme/eslint-config",
    "@nestjs/common",
    "@vitest/ui",
    "@acme/api-client",
]
DECORATORS_PY = [
    '@pytest.mark.parametrize("value", [1, 2, 3])',
    "@pytest.fixture",
    "@dataclass(frozen=True)",
    '@app.get("/health")',
    "@functools.cache",
    "@property",
    "@staticmethod",
    '@router.post("/v1/items")',
]
DECORATORS_TS = [
    "@Injectable()",
    "@Controller('users')",
    "@Component({ selector: 'app-x' })",
    "@Get(':id')",
    "@Input() value: string;",
    "@Entity()",
    "@Column()",
]
SENTENCES = [
    "Keep functions small and pure; push side effects to the edges.",
    "Prefer explicit return types on exported functions.",
    "Never commit secrets; use the vault CLI to fetch credentials locally.",
    "Write the test first when fixing a bug, and name it after the issue.",
    "Run the formatter before you open a pull request.",
    "Public APIs need a changelog entry and a docs update.",
    "Do not add new dependencies without asking in the channel.",
    "Errors are values: return them, wrap them with context, and log once at the boundary.",
    "Feature flags default to off and are removed within two releases.",
    "Database migrations must be backwards compatible with the previous release.",
    "Use the shared logger; never print to stdout in library code.",
    "Snapshot tests are for stable output only; prefer explicit assertions.",
    "Keep components presentational; data fetching lives in hooks.",
    "Generated files are not edited by hand; rerun the generator instead.",
    "Benchmarks must run on CI hardware before a performance claim is merged.",
    "Prefer composition over inheritance, and interfaces over abstract classes.",
    "Every endpoint validates its input and returns typed errors.",
    "Timeouts and retries are configured in one place, not per call.",
    "Accessibility: every interactive element has a label and a focus style.",
    "Dates are stored in UTC and formatted at the edge.",
]
UNICODE_LINES = [
    "注意：本目录的代码由团队共同维护 🚀",
    "Ünïcödé names are fine in docs — but not in identifiers. ✅",
    "日本語のコメントは英語に翻訳してください。📝",
    "Emoji in commit messages are allowed 🎉 but keep them short.",
]

# --------------------------------------------------------------------------- data model


@dataclass
class Project:
    path: str  # e.g. packages/auth-core
    kind: str  # ts | py | go
    dirs: list[str] = field(default_factory=list)  # every directory (relative to tree root)
    files: list[str] = field(default_factory=list)
    docs: list[str] = field(default_factory=list)  # package docs (level-1 import targets)


@dataclass
class Instr:
    path: str
    imports: list[str] = field(default_factory=list)  # raw import tokens (without @)
    size: int = 0
    kind: str = "regular"  # regular | oversized | binary | latin1 | symlink | empty
    target_for_symlink: str | None = None
    extra_lines: list[str] = field(default_factory=list)


@dataclass
class Planted:
    broken_imports: list[dict] = field(default_factory=list)
    cycles: list[list[str]] = field(default_factory=list)
    deep_chain: list[str] = field(default_factory=list)
    suspicious_imports: list[dict] = field(default_factory=list)
    unmatched_globs: list[dict] = field(default_factory=list)
    invalid_frontmatter: list[str] = field(default_factory=list)
    binary_files: list[str] = field(default_factory=list)
    non_utf8_files: list[str] = field(default_factory=list)
    oversized_files: list[str] = field(default_factory=list)
    empty_files: list[str] = field(default_factory=list)
    symlinked_instructions: list[str] = field(default_factory=list)
    other_tool_only_rules: list[str] = field(default_factory=list)
    bare_mentions: list[dict] = field(default_factory=list)
    commented_imports: list[str] = field(default_factory=list)
    unreachable_rules: list[str] = field(default_factory=list)
    ignored_instruction_files: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- helpers


def rel(from_dir: str, target: str) -> str:
    """Relative import path from a directory to a file (both tree-relative)."""
    r = posixpath.relpath(target, from_dir or ".")
    return r


def expand_braces(pattern: str, limit: int = 256) -> list[str]:
    i = pattern.find("{")
    if i < 0:
        return [pattern]
    depth = 0
    for j in range(i, len(pattern)):
        if pattern[j] == "{":
            depth += 1
        elif pattern[j] == "}":
            depth -= 1
            if depth == 0:
                break
    else:
        return [pattern]
    body = pattern[i + 1 : j]
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:k])
            start = k + 1
    parts.append(body[start:])
    out: list[str] = []
    for p in parts:
        for e in expand_braces(pattern[:i] + p + pattern[j + 1 :], limit):
            out.append(e)
            if len(out) >= limit:
                return out
    return out


class Gen:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.files: dict[str, bytes | str] = {}  # path -> content (str = utf-8 text)
        self.symlinks: dict[str, str] = {}  # path -> link target (relative)
        self.projects: list[Project] = []
        self.tracked_sources: list[str] = []
        self.ignored: list[str] = []
        self.instrs: dict[str, Instr] = {}
        self.rules: list[dict] = []
        self.planted = Planted()
        self.doc_levels: dict[int, list[str]] = {1: [], 2: [], 3: []}
        self.doc_imports: dict[str, list[str]] = {}  # doc path -> import tokens
        self.docs_other: list[str] = []
        self.dirs_all: list[str] = []
        self.mentions_left = max(5, args.instructions // 16)

    # ------------------------------------------------------------------ names
    def pick(self, seq):  # noqa: ANN001,ANN201
        return seq[self.rng.randrange(len(seq))]

    def unique_name(self, taken: set[str], words: list[str], suffixes: list[str]) -> str:
        for _ in range(1000):
            name = self.pick(words) + self.pick(suffixes)
            if name not in taken:
                taken.add(name)
                return name
        n = len(taken)
        name = f"{self.pick(words)}-{n}"
        taken.add(name)
        return name

    # ------------------------------------------------------------------ source tree
    def build_projects(self) -> None:
        n = self.args.files
        n_pkg = max(4, n // 500)
        n_app = max(2, n // 2500)
        n_lib = max(2, n // 1300)
        n_tool = max(2, n // 3300)
        taken: set[str] = set()
        kinds = ["ts"] * 6 + ["py"] * 3 + ["go"] * 2
        for _ in range(n_pkg):
            self.projects.append(
                Project(
                    f"packages/{self.unique_name(taken, PKG_WORDS, PKG_SUFFIX)}", self.pick(kinds)
                )
            )
        taken_app: set[str] = set()
        for _ in range(n_app):
            self.projects.append(
                Project(
                    f"apps/{self.unique_name(taken_app, APP_WORDS, ['', '-v2', '-next'])}", "ts"
                )
            )
        taken_lib: set[str] = set()
        for _ in range(n_lib):
            self.projects.append(
                Project(
                    f"libs/{self.unique_name(taken_lib, PKG_WORDS, ['', '-lib', '-shared'])}",
                    self.pick(kinds),
                )
            )
        taken_tool: set[str] = set()
        for _ in range(n_tool):
            self.projects.append(
                Project(
                    f"tools/{self.unique_name(taken_tool, TOOL_WORDS, ['', '-py', '-go'])}",
                    self.pick(["py", "py", "go", "ts"]),
                )
            )
        if not any(p.path == "tools/legacy" for p in self.projects):
            self.projects.append(Project("tools/legacy", "py"))

    def ext_for(self, kind: str, dirpath: str) -> str:
        r = self.rng.random()
        if kind == "ts":
            ui = any(
                w in dirpath for w in ("components", "pages", "views", "widgets", "layout", "apps/")
            )
            if r < 0.03:
                return ".json"
            if r < 0.05:
                return ".md"
            if ui and r < 0.6:
                return ".tsx"
            if r < 0.14:
                return ".test.ts"
            return ".ts"
        if kind == "py":
            if r < 0.03:
                return ".json"
            if r < 0.05:
                return ".md"
            return ".py"
        if r < 0.03:
            return ".json"
        if r < 0.05:
            return ".md"
        if r < 0.2:
            return "_test.go"
        return ".go"

    def content_for(self, path: str) -> str:
        stem = posixpath.basename(path).split(".")[0].replace("-", "_")
        v = self.rng.randrange(1000)
        if path.endswith((".ts", ".tsx")):
            if path.endswith(".test.ts"):
                return f"import {{ test }} from 'vitest'; test('{stem}', () => {{}});\n"
            return f"export const {stem}_{v} = {v};\n"
        if path.endswith(".py"):
            if posixpath.basename(path).startswith("test_"):
                return f"def {stem}_{v}():\n    assert {v} == {v}\n"
            return f"{stem.upper()}_{v} = {v}\n"
        if path.endswith(".go"):
            pkg = posixpath.basename(posixpath.dirname(path)).replace("-", "") or "main"
            return f"package {pkg}\n\nconst V{v} = {v}\n"
        if path.endswith(".json"):
            return json.dumps({"name": stem, "version": f"1.{v % 10}.0"}) + "\n"
        if path.endswith(".md"):
            return f"# {stem}\n\nNotes about {stem} ({v}).\n"
        return f"{v}\n"

    def build_tree(self) -> None:
        total = self.args.files
        n_docs = max(20, total // 100)
        # docs/ (part of the source-file budget): level-1 guides, level-2 reference,
        # level-3 glossary, plus ADRs and other pages nobody imports.
        n1, n2, n3 = max(6, n_docs // 8), max(5, n_docs // 8), max(4, n_docs // 14)
        topics = list(DOC_TOPICS)
        self.rng.shuffle(topics)

        def topic(i: int) -> str:
            t = topics[i % len(topics)]
            return t if i < len(topics) else f"{t}-{i // len(topics) + 1}"

        for i in range(n1):
            self.doc_levels[1].append(f"docs/guides/{topic(i)}.md")
        for i in range(n2):
            self.doc_levels[2].append(f"docs/reference/{topic(i + 7)}.md")
        for i in range(n3):
            self.doc_levels[3].append(f"docs/glossary/{topic(i + 13)}.md")
        n_other = n_docs - n1 - n2 - n3
        for i in range(n_other):
            sub = self.pick(["adr", "runbooks", "rfcs", "onboarding"])
            self.docs_other.append(f"docs/{sub}/{i + 1:04d}-{topic(i + 3)}.md")
        for p in self.docs_other:
            self.files[p] = self.content_for(p)
        docs_budget = n_docs

        # projects: weights -> file budgets
        remaining = total - docs_budget
        weights = [
            self.rng.uniform(0.4, 2.0) * (1.5 if p.path.startswith("apps/") else 1.0)
            for p in self.projects
        ]
        wsum = sum(weights)
        budgets = [max(8, int(remaining * w / wsum)) for w in weights]
        # fix rounding so the tracked source total is exact
        diff = remaining - sum(budgets)
        budgets[0] += diff
        for proj, budget in zip(self.projects, budgets, strict=True):
            self.build_project(proj, budget)

    def build_project(self, proj: Project, budget: int) -> None:
        root = proj.path
        meta: list[str] = []
        if proj.kind == "ts":
            meta = [f"{root}/package.json", f"{root}/tsconfig.json", f"{root}/README.md"]
        elif proj.kind == "py":
            meta = [f"{root}/README.md", f"{root}/settings.json"]
        else:
            meta = [f"{root}/README.md", f"{root}/go.json"]
        # package docs (level-1 import targets for the package's instruction files)
        n_pdocs = self.rng.choice([0, 0, 1, 2, 3]) if budget > 60 else 0
        taken_docs: set[str] = set()
        for _ in range(n_pdocs):
            name = self.unique_name(
                taken_docs,
                [
                    "architecture",
                    "testing",
                    "api",
                    "conventions",
                    "data-model",
                    "release",
                    "design",
                ],
                [""],
            )
            proj.docs.append(f"{root}/docs/{name}.md")
        src = f"{root}/src" if proj.kind != "go" else f"{root}/internal"
        proj.dirs = [root, src]
        # areas, nested 0-3 levels below src
        n_areas = max(2, min(12, budget // 60))
        taken_area: set[str] = set()
        leaves: list[str] = [src]
        for _ in range(n_areas):
            area = f"{src}/{self.unique_name(taken_area, AREA_WORDS, [''])}"
            proj.dirs.append(area)
            leaves.append(area)
            self.grow(proj, area, leaves, depth=self.rng.choice([0, 1, 1, 2, 2, 3]))
        if proj.kind in ("ts", "py"):
            tests = f"{root}/tests" if proj.kind == "py" else f"{root}/test"
            proj.dirs.append(tests)
            leaves.append(tests)
        files_left = budget - len(meta) - len(proj.docs)
        for p in meta:
            self.files[p] = self.content_for(p)
            proj.files.append(p)
        for p in proj.docs:
            proj.files.append(p)  # written later with real markdown
        taken_files: dict[str, set[str]] = {}
        for _ in range(max(0, files_left)):
            d = self.pick(leaves)
            ext = self.ext_for(proj.kind, d)
            tk = taken_files.setdefault(d, set())
            for _attempt in range(50):
                word = self.pick(FILE_WORDS)
                if self.rng.random() < 0.5:
                    word = f"{word}-{self.pick(FILE_WORDS)}"
                if proj.kind == "py":
                    word = word.replace("-", "_")
                    if d.endswith("/tests") and ext == ".py":
                        word = f"test_{word}"
                name = word + ext
                if name not in tk:
                    break
            else:
                name = f"{word}-{len(tk)}{ext}"
            tk.add(name)
            p = f"{d}/{name}"
            self.files[p] = self.content_for(p)
            proj.files.append(p)
        # keep only directories that hold files (plus the project root)
        used = {posixpath.dirname(f) for f in proj.files}
        parents: set[str] = set()
        for u in used:
            while u and u not in parents:
                parents.add(u)
                u = posixpath.dirname(u)
        proj.dirs = [d for d in proj.dirs if d in parents or d == root]
        self.tracked_sources.extend(proj.files)

    def grow(self, proj: Project, base: str, leaves: list[str], depth: int) -> None:
        if depth <= 0:
            return
        taken: set[str] = set()
        for _ in range(self.rng.choice([1, 2, 2, 3])):
            d = f"{base}/{self.unique_name(taken, AREA_WORDS + FILE_WORDS, [''])}"
            proj.dirs.append(d)
            leaves.append(d)
            self.grow(proj, d, leaves, depth - 1)

    def build_ignored(self) -> None:
        n = max(30, self.args.files * 300 // 20000)
        ignored_projects = [p for p in self.projects if p.kind == "ts"][:6] or self.projects[:3]
        bases = ["node_modules"] + [f"{p.path}/node_modules" for p in ignored_projects[:3]]
        dist = [f"{p.path}/dist" for p in ignored_projects] + ["dist"]
        i = 0
        while len(self.ignored) < n:
            if i % 3 == 2:
                d = dist[i % len(dist)]
                p = f"{d}/{self.pick(FILE_WORDS)}-{i}.js"
            else:
                b = bases[i % len(bases)]
                scope = self.pick(["@acme", "@types", "", "", "lodash", "react"])
                pkg = (
                    f"{scope}/{self.pick(FILE_WORDS)}"
                    if scope.startswith("@")
                    else (scope or self.pick(FILE_WORDS))
                )
                leaf = self.pick(["index.js", "package.json", "README.md", "lib/util.js"])
                p = f"{b}/{pkg}/{leaf}"
            if p not in self.files:
                self.files[p] = f"// ignored {i}\n"
                self.ignored.append(p)
            i += 1
        # instruction files that ship inside dependencies: must not be linted
        for j, name in enumerate(["AGENTS.md", "CLAUDE.md", "AGENTS.md", "CLAUDE.md", "AGENTS.md"]):
            d = bases[j % len(bases)] + f"/vendored-{j}" if j < 4 else dist[0]
            p = f"{d}/{name}"
            self.files[p] = (
                f"# Vendored package {j}\n\nSee @docs/missing-{j}.md and "
                f"@../../nowhere.md for details.\n"
            )
            self.ignored.append(p)
            self.planted.ignored_instruction_files.append(p)
        self.files["app.log"] = "ignored log\n"
        self.ignored.append("app.log")

    # ------------------------------------------------------------------ markdown
    def para(self, k: int = 2) -> str:
        return " ".join(self.pick(SENTENCES) for _ in range(k))

    def md_section(self, title_words: str, allow_mentions: bool) -> tuple[str, list[dict]]:
        """One realistic section. Returns (text, bare_mentions planted)."""
        kind = self.rng.randrange(8)
        mentions: list[dict] = []
        out = [f"## {title_words}", ""]
        if kind == 0:
            out += ["```bash", "pnpm install", "pnpm -F . test -- --run", "pnpm lint --fix", "```"]
        elif kind == 1:
            out += [
                "```python",
                self.pick(DECORATORS_PY),
                "def test_roundtrip(value):",
                "    assert decode(encode(value)) == value",
                "```",
            ]
        elif kind == 2:
            out += [
                "```ts",
                self.pick(DECORATORS_TS),
                "export class Handler {",
                "  constructor(private readonly repo: Repo) {}",
                "}",
                "```",
            ]
        elif kind == 3:
            out += [
                f"- Import shared UI from `{self.pick(SCOPES)}`, not from relative paths.",
                f"- Types come from `{self.pick(SCOPES)}`.",
                f"- Questions go to {self.pick(PEOPLE)}@acme.dev or the "
                f"#{self.pick(TEAMS)} channel.",
            ]
        elif kind == 4:
            out += [
                "| Command | What it does |",
                "|---|---|",
                "| `make test` | unit tests |",
                "| `make lint` | ruff + eslint |",
                "| `make e2e` | Playwright suite |",
            ]
        elif kind == 5:
            out += [
                f"1. {self.pick(SENTENCES)}",
                f"2. {self.pick(SENTENCES)}",
                f"3. {self.pick(SENTENCES)}",
            ]
        elif kind == 6:
            out += ["<!-- maintainer note: keep this section short -->", self.para(2)]
        else:
            out += [self.para(3)]
        if self.rng.random() < 0.08:
            out += ["", self.pick(UNICODE_LINES)]
        if allow_mentions and self.mentions_left > 0 and self.rng.random() < 0.02:
            who = self.pick(["scope", "team", "person"])
            if who == "scope":
                tok = self.pick(SCOPES)
                out += ["", f"We wrap {tok} for all new screens."]
            elif who == "team":
                tok = "@" + self.pick(TEAMS)
                out += ["", f"Ping {tok} before changing the schema."]
            else:
                tok = "@" + self.pick(PEOPLE)
                out += ["", f"Owner: {tok} (backup: {self.pick(PEOPLE)}@acme.dev)"]
            mentions.append({"token": tok})
            self.mentions_left -= 1
        out.append("")
        return "\n".join(out), mentions

    def markdown(
        self,
        title: str,
        target: int,
        imports: list[str],
        path: str,
        extra_lines: list[str] | None = None,
        mentions_ok: bool = True,
    ) -> str:
        parts = [f"# {title}", "", self.para(2), ""]
        if imports:
            parts.append("## Read first")
            parts.append("")
            for tok in imports:
                style = self.rng.randrange(4)
                if style == 0:
                    parts.append(f"- @{tok}")
                elif style == 1:
                    parts.append(f"- See @{tok} for the details")
                elif style == 2:
                    parts.append(f"@{tok}")
                else:
                    parts.append(f"Follow the conventions in @{tok} when in doubt")
            parts.append("")
        for line in extra_lines or []:
            parts.append(line)
            parts.append("")
        text = "\n".join(parts)
        sections = [
            "Conventions",
            "Testing",
            "Commands",
            "Code style",
            "Pull requests",
            "Architecture",
            "Gotchas",
            "Owners",
            "Release",
            "Security",
            "Performance",
        ]
        i = 0
        while len(text) < target:
            sec, ment = self.md_section(f"{sections[i % len(sections)]}", mentions_ok)
            for m in ment:
                m["path"] = path
                self.planted.bare_mentions.append(m)
            text += "\n" + sec
            i += 1
        return text

    # ------------------------------------------------------------------ docs graph
    def build_docs(self) -> None:
        lvl2, lvl3 = self.doc_levels[2], self.doc_levels[3]
        self.root_guides = list(self.doc_levels[1])
        for d in self.doc_levels[1]:
            toks = [
                rel(posixpath.dirname(d), t)
                for t in self.rng.sample(lvl2, k=self.rng.choice([0, 1, 1, 2]))
            ]
            self.doc_imports[d] = toks
        for d in lvl2:
            toks = [
                rel(posixpath.dirname(d), t)
                for t in self.rng.sample(lvl3, k=self.rng.choice([0, 0, 1]))
            ]
            self.doc_imports[d] = toks
        for d in lvl3:
            self.doc_imports[d] = []
        for proj in self.projects:
            for d in proj.docs:
                k = self.rng.choice([0, 1])
                self.doc_imports[d] = [
                    rel(posixpath.dirname(d), t) for t in self.rng.sample(lvl2, k=k)
                ]
                self.doc_levels[1].append(d)  # package docs behave as level 1

    def write_docs(self) -> None:
        for lvl in (1, 2, 3):
            for d in self.doc_levels[lvl]:
                if d in self.files:
                    continue
                size = int(self.rng.triangular(300, 2000, 600))
                title = posixpath.basename(d)[:-3].replace("-", " ").title()
                self.files[d] = self.markdown(
                    title, size, self.doc_imports.get(d, []), d, mentions_ok=False
                )

    # ------------------------------------------------------------------ instruction files
    def instruction_slots(self) -> list[str]:
        n = self.args.instructions
        slots: list[str] = ["AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"]
        for proj in self.projects:
            if self.rng.random() < 0.9:
                slots.append(f"{proj.path}/AGENTS.md")
            if self.rng.random() < 0.45:
                slots.append(f"{proj.path}/CLAUDE.md")
            if self.rng.random() < 0.08:
                slots.append(f"{proj.path}/CLAUDE.local.md")
            if self.rng.random() < 0.08:
                slots.append(f"{proj.path}/.claude/CLAUDE.md")
        deeper = [d for proj in self.projects for d in proj.dirs[1:]]
        self.rng.shuffle(deeper)
        taken = set(slots)
        di = 0
        while len(slots) < n and di < len(deeper) * 2:
            d = deeper[di % len(deeper)]
            name = "AGENTS.md" if (self.rng.random() < 0.7 or di >= len(deeper)) else "CLAUDE.md"
            if di >= len(deeper):
                name = "CLAUDE.md"
            p = f"{d}/{name}"
            if p not in taken:
                taken.add(p)
                slots.append(p)
            di += 1
        return slots[:n]

    def build_instructions(self) -> None:
        slots = self.instruction_slots()
        slot_set = set(slots)
        proj_of = {}
        for proj in self.projects:
            for s in slots:
                if s == proj.path or s.startswith(proj.path + "/"):
                    proj_of[s] = proj
        for s in slots:
            d = posixpath.dirname(s)
            base_dir = posixpath.dirname(d) if d.endswith("/.claude") or d == ".claude" else d
            imports: list[str] = []
            name = posixpath.basename(s)
            # CLAUDE.md commonly just imports the sibling AGENTS.md (an instruction file that
            # itself only imports docs, so the longest regular chain stays at 4 hops)
            sib = posixpath.join(base_dir, "AGENTS.md") if base_dir else "AGENTS.md"
            if (
                name in ("CLAUDE.md", "CLAUDE.local.md")
                and sib in slot_set
                and self.rng.random() < 0.6
            ):
                imports.append(rel(d, sib))
            elif name == "CLAUDE.md" and s.endswith(".claude/CLAUDE.md") and sib in slot_set:
                imports.append(rel(d, sib))  # `@../AGENTS.md`
            else:
                proj = proj_of.get(s)
                pool = list(proj.docs) if proj and proj.docs else []
                k_local = min(len(pool), self.rng.choice([0, 1, 1]))
                for t in self.rng.sample(pool, k=k_local):
                    imports.append(rel(d, t))
                k_root = self.rng.choice([0, 0, 1, 1, 2]) if s != "AGENTS.md" else 2
                for t in self.rng.sample(self.root_guides, k=k_root):
                    if t not in pool:
                        imports.append(rel(d, t))
            # keep the invariant: the imported instruction file imports only docs
            size = int(self.rng.triangular(200, 3000, 600))
            if s == "AGENTS.md":
                size = 2800
            elif "/" not in s or s == ".claude/CLAUDE.md":
                size = self.rng.randint(300, 1200)
            self.instrs[s] = Instr(s, imports=imports, size=size)

    def choose(self, pred, exclude: set[str]) -> Instr:  # noqa: ANN001
        cands = [
            i
            for p, i in self.instrs.items()
            if pred(i) and p not in exclude and i.kind == "regular" and "/" in p
        ]
        return self.pick(cands)

    def plant(self) -> None:
        used: set[str] = set()
        imported_instr = set()
        for i in self.instrs.values():
            for t in i.imports:
                imported_instr.add(posixpath.normpath(posixpath.join(posixpath.dirname(i.path), t)))

        def free(i: Instr) -> bool:
            return i.path not in imported_instr

        def agents(i: Instr) -> bool:
            return i.path.endswith("/AGENTS.md") and free(i)

        # --- one chain deeper than 4 hops: tools/legacy/AGENTS.md -> docs/deep/hop1..hop6
        chain = [f"docs/deep/hop{k}.md" for k in range(1, 7)]
        for k, p in enumerate(chain):
            self.doc_imports[p] = [rel("docs/deep", chain[k + 1])] if k + 1 < len(chain) else []
            self.doc_levels[3].append(p)
        owner = "tools/legacy/AGENTS.md"
        if owner not in self.instrs:
            victim = self.choose(
                lambda i: i.path.count("/") >= 3 and free(i) and i.path.endswith("/AGENTS.md"), used
            )
            del self.instrs[victim.path]
            self.instrs[owner] = Instr(owner, size=self.rng.randint(400, 1200))
        self.instrs[owner].imports = [rel("tools/legacy", chain[0])]
        self.instrs[owner].kind = "regular"
        used.add(owner)
        # nothing imports the owner, so the chain's hops are counted from it alone
        for other in self.instrs.values():
            if other.path != owner:
                other.imports = [
                    t
                    for t in other.imports
                    if posixpath.normpath(posixpath.join(posixpath.dirname(other.path), t)) != owner
                ]
        imported_instr.discard(owner)
        self.planted.deep_chain = [owner] + chain

        # --- broken imports (10): typos of real docs, moved/removed files
        n_broken = 10 if self.args.instructions >= 100 else 4
        for j in range(n_broken):
            inst = self.choose(free, used)
            used.add(inst.path)
            d = posixpath.dirname(inst.path)
            real = self.pick(self.root_guides)
            if j % 3 == 0:  # typo: drop a letter
                stem = real[:-3]
                k = self.rng.randrange(len(stem) - 4, len(stem) - 1)
                wrong = stem[:k] + stem[k + 1 :] + ".md"
            elif j % 3 == 1:
                wrong = f"docs/old/{posixpath.basename(real)}"
            else:
                wrong = posixpath.join(
                    posixpath.dirname(real), f"legacy-{posixpath.basename(real)}"
                )
            if wrong in self.files:
                wrong = f"docs/removed/gone-{j}.md"
            tok = rel(d, wrong)
            inst.imports.append(tok)
            self.planted.broken_imports.append(
                {"path": inst.path, "import": "@" + tok, "closest": real}
            )

        # --- trailing punctuation (5)
        for punct in [",", ")", ":", ";", "."]:
            inst = self.choose(free, used)
            used.add(inst.path)
            d = posixpath.dirname(inst.path)
            real = self.pick(self.root_guides)
            tok = rel(d, real)
            if punct == ")":
                line = f"Style questions (see @{tok})"
            elif punct == ".":
                line = f"Everything else is in @{tok}."
            else:
                line = f"Read @{tok}{punct} it is short"
            inst.extra_lines.append(line)
            self.planted.suspicious_imports.append(
                {"path": inst.path, "import": f"@{tok}{punct}", "trimmed": real}
            )

        # --- cycles (3): two among docs, one between a package's AGENTS.md and CLAUDE.md
        cyc_a = ["docs/cycles/alpha.md", "docs/cycles/beta.md"]
        cyc_b = ["docs/cycles/ring-a.md", "docs/cycles/ring-b.md", "docs/cycles/ring-c.md"]
        for cyc in (cyc_a, cyc_b):
            for k, p in enumerate(cyc):
                nxt = cyc[(k + 1) % len(cyc)]
                self.doc_imports[p] = [rel(posixpath.dirname(p), nxt)]
            inst = self.choose(free, used)
            used.add(inst.path)
            inst.imports.append(rel(posixpath.dirname(inst.path), cyc[0]))
            self.planted.cycles.append([inst.path] + cyc + [cyc[0]])
        for p in cyc_a + cyc_b:
            self.doc_levels[3].append(p)  # written by write_docs with the imports above
        # instruction cycle: pkg/AGENTS.md <-> pkg/CLAUDE.md (a new pair in a fresh directory)
        cands = [
            p
            for p in self.projects
            if f"{p.path}/AGENTS.md" in self.instrs
            and f"{p.path}/CLAUDE.md" not in self.instrs
            and f"{p.path}/AGENTS.md" not in used
            and f"{p.path}/AGENTS.md" not in imported_instr
        ]
        if cands:
            proj = self.pick(cands)
            a, c = f"{proj.path}/AGENTS.md", f"{proj.path}/CLAUDE.md"
            # replace a random regular deep instruction file by the new CLAUDE.md (count stays)
            victim = self.choose(
                lambda i: i.path.count("/") >= 3 and free(i) and i.path.endswith("/AGENTS.md"),
                used | {a},
            )
            del self.instrs[victim.path]
            self.instrs[a].imports = [i for i in self.instrs[a].imports if "CLAUDE" not in i][:1]
            self.instrs[a].imports.append("CLAUDE.md")
            self.instrs[c] = Instr(c, imports=["AGENTS.md"], size=self.rng.randint(200, 800))
            used.update({a, c})
            self.planted.cycles.append([a, c, a])

        # --- oversized instruction files: a few packages' AGENTS.md of 18-26k chars
        n_big = 3 if self.args.instructions >= 100 else 1
        for _ in range(n_big):
            inst = self.choose(lambda i: agents(i) and i.path.count("/") == 2, used)
            used.add(inst.path)
            inst.kind = "oversized"
            inst.size = self.rng.randint(18_000, 26_000)
            self.planted.oversized_files.append(inst.path)

        # --- binary (2): a UTF-16 AGENTS.md saved by a Windows editor, a PNG renamed .md
        for _ in range(2):
            inst = self.choose(free, used)
            used.add(inst.path)
            inst.kind = "binary"
            self.planted.binary_files.append(inst.path)
        # --- invalid UTF-8 (1): Latin-1 bytes
        inst = self.choose(free, used)
        used.add(inst.path)
        inst.kind = "latin1"
        self.planted.non_utf8_files.append(inst.path)
        # --- one empty instruction file (only a comment)
        inst = self.choose(free, used)
        used.add(inst.path)
        inst.kind = "empty"
        self.planted.empty_files.append(inst.path)
        # --- symlinks: CLAUDE.md -> AGENTS.md (read once; duplicate-load)
        n_sym = 2
        for proj in self.projects:
            if n_sym == 0:
                break
            a, c = f"{proj.path}/AGENTS.md", f"{proj.path}/CLAUDE.md"
            if (
                a in self.instrs
                and c in self.instrs
                and a not in used
                and c not in used
                and self.instrs[a].kind == "regular"
                and c not in imported_instr
            ):
                self.instrs[c].kind = "symlink"
                self.instrs[c].target_for_symlink = "AGENTS.md"
                used.update({a, c})
                self.planted.symlinked_instructions.append(c)
                n_sym -= 1
        # --- an import inside an HTML comment (not an import)
        inst = self.choose(free, used)
        used.add(inst.path)
        inst.extra_lines.append("<!-- TODO(docs): fold @docs/old/setup.md into this file -->")
        self.planted.commented_imports.append(inst.path)

    def write_instructions(self) -> None:
        for path in sorted(self.instrs):
            inst = self.instrs[path]
            d = posixpath.dirname(path)
            title_base = d or "Acme monorepo"
            if inst.kind == "symlink":
                self.symlinks[path] = inst.target_for_symlink or "AGENTS.md"
                continue
            if inst.kind == "binary":
                if path in self.planted.binary_files[:1]:
                    text = self.markdown(f"{title_base} agent guide", 600, [], path)
                    self.files[path] = "\ufeff".encode("utf-16-le") + text.encode("utf-16-le")
                else:
                    self.files[path] = (
                        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"
                        + bytes(self.rng.randrange(256) for _ in range(512))
                    )
                continue
            if inst.kind == "latin1":
                text = self.markdown(f"{title_base} — café notes", 700, [], path)
                self.files[path] = text.replace("—", "-").encode("latin-1", errors="replace")
                continue
            if inst.kind == "empty":
                self.files[path] = "<!-- intentionally left blank -->\n\n"
                continue
            title = (
                f"{title_base} agent guide"
                if path != "AGENTS.md"
                else "Acme monorepo — agent guide"
            )
            self.files[path] = self.markdown(
                title, inst.size, inst.imports, path, extra_lines=inst.extra_lines
            )

    # ------------------------------------------------------------------ rules
    def glob_for(self, base: str, files: list[str]) -> str:
        """A glob (relative to `base`) that matches at least one of `files` by construction."""
        f = self.pick(files)
        relf = posixpath.relpath(f, base) if base else f
        parts = relf.split("/")
        name = parts[-1]
        ext = name[name.index(".") :] if "." in name else ""
        simple_ext = "." + name.rsplit(".", 1)[-1] if "." in name else ""
        r = self.rng.random()
        if len(parts) >= 3 and r < 0.30:
            k = self.rng.randint(1, len(parts) - 2)
            return "/".join(parts[:k]) + f"/**/*{simple_ext}"
        if len(parts) >= 3 and r < 0.45 and simple_ext in (".ts", ".tsx"):
            k = self.rng.randint(1, len(parts) - 2)
            return "/".join(parts[:k]) + "/**/*.{ts,tsx}"
        if len(parts) >= 2 and r < 0.55:
            return "/".join(parts[:-1]) + f"/*{simple_ext}"
        if len(parts) >= 2 and r < 0.63:
            return parts[0] + "/" + (parts[1] + "/" if len(parts) > 2 else "**")
        if r < 0.68 and ext in (".test.ts", "_test.go"):
            return f"**/*{ext}"
        if r < 0.72:
            return f"*{ext}" if ext else name  # slash-less: matches at any depth
        if r < 0.80:
            return relf  # one exact file
        if len(parts) >= 3:
            return "/".join(parts[:2]) + "/**"
        return "/".join(parts[:-1] + [f"*{simple_ext}"]) if len(parts) > 1 else f"*{simple_ext}"

    def render_paths(self, globs: list[str]) -> list[str]:
        style = self.rng.random()
        if any("{" in g for g in globs):
            style = 0.5 + style / 2  # a comma string would split a brace glob: use a YAML list
        if len(globs) == 1 and style < 0.25:
            return [f'paths: "{globs[0]}"']
        if style < 0.45:
            return [f'paths: "{", ".join(globs)}"']  # comma-separated string
        if style < 0.55:
            return ["paths: [" + ", ".join(f"'{g}'" for g in globs) + "]"]
        return ["paths:"] + [
            f'  - "{g}"' if "{" in g or g.startswith("*") else f"  - {g}" for g in globs
        ]

    def build_rules(self) -> None:
        n = self.args.rules
        # a few packages hold their own .claude/rules (unreachable with cwd = root, which the
        # checker should say, but their globs are still evaluated)
        pkg_candidates = [
            p for p in self.projects if p.path.startswith("packages/") and len(p.files) > 50
        ]
        n_pkg_dirs = min(4, len(pkg_candidates))
        rule_pkgs = self.rng.sample(pkg_candidates, k=n_pkg_dirs)
        n_pkg_rules = n // 4 if rule_pkgs else 0
        placements: list[tuple[str, Project | None]] = [("", None)] * (n - n_pkg_rules)
        for k in range(n_pkg_rules):
            proj = rule_pkgs[k % len(rule_pkgs)]
            placements.append((proj.path, proj))
        all_files = self.tracked_sources
        rule_dirs = [
            "",
            "frontend",
            "backend",
            "backend/api",
            "testing",
            "infra",
            "docs",
            "security",
            "style",
        ]
        taken: dict[str, set[str]] = {}
        n_uncond_root = 0
        unmatched = [
            ("src/legacy/**/*.coffee", "a CoffeeScript rule from 2016"),
            ("packages/old-billing/**", "a package that was deleted"),
            ("**/*.rb", "Ruby, which the repo never had"),
            ("apps/mobile/**/*.swift", "the iOS app moved out"),
            ("docs/**/*.rst", "docs were converted to Markdown"),
        ]
        n_unmatched = 5 if n >= 50 else 2
        n_invalid = 3 if n >= 50 else 1
        planted_slots = list(range(0, n - n_pkg_rules))
        self.rng.shuffle(planted_slots)
        unmatched_idx = set(planted_slots[:n_unmatched])
        invalid_idx = set(planted_slots[n_unmatched : n_unmatched + n_invalid])
        other_tool_idx = set(planted_slots[n_unmatched + n_invalid : n_unmatched + n_invalid + 1])
        for idx, (base, proj) in enumerate(placements):
            rules_root = f"{base}/.claude/rules" if base else ".claude/rules"
            sub = self.pick(rule_dirs)
            tk = taken.setdefault(sub, set())
            name = self.unique_name(tk, DOC_TOPICS + AREA_WORDS, ["", "-rules", "-guide"]) + ".md"
            path = (
                posixpath.join(rules_root, sub, name) if sub else posixpath.join(rules_root, name)
            )
            files = proj.files if proj else all_files
            fm: list[str] = []
            globs: list[str] = []
            kind = "scoped"
            if base and proj is not None:
                self.planted.unreachable_rules.append(path)
            if idx in unmatched_idx:
                g, why = unmatched[len(self.planted.unmatched_globs) % len(unmatched)]
                globs = [g]
                if self.rng.random() < 0.5:
                    globs.append(self.glob_for(base, files))
                fm = self.render_paths(globs)
                self.planted.unmatched_globs.append({"path": path, "glob": g, "why": why})
                kind = "unmatched"
            elif idx in invalid_idx:
                j = len(self.planted.invalid_frontmatter)
                g = self.glob_for(base, files)
                fm = [
                    [f'paths: ["{g}"', "description: unclosed flow sequence"],
                    ["paths:", f"  - {g}", "\t- tab-indented item", "description: tabs"],
                    ["description: a: b: c", f"paths: {g}", "  bad: indentation"],
                ][j % 3]
                self.planted.invalid_frontmatter.append(path)
                kind = "invalid"
            elif idx in other_tool_idx:
                fm = ["globs: " + json.dumps(self.glob_for(base, files)), "alwaysApply: false"]
                self.planted.other_tool_only_rules.append(path)
                kind = "other-tool"
            elif (not base and n_uncond_root < max(2, n // 35)) or (
                base and self.rng.random() < 0.05
            ):
                kind = "unconditional"
                if not base:
                    n_uncond_root += 1
                fm = ["description: always on"] if self.rng.random() < 0.5 else []
            else:
                k = self.rng.choice([1, 1, 1, 2, 2, 3])
                globs = [self.glob_for(base, files) for _ in range(k)]
                globs = list(dict.fromkeys(globs))
                fm = self.render_paths(globs)
                if self.rng.random() < 0.15:
                    fm.insert(0, "description: " + json.dumps(self.pick(SENTENCES)))
                if self.rng.random() < 0.08:  # several tools' keys side by side, on purpose
                    fm.append("globs: " + json.dumps(", ".join(globs)))
                    fm.append("alwaysApply: false")
            size = (
                self.rng.randint(150, 1200)
                if kind != "unconditional"
                else self.rng.randint(150, 500)
            )
            imports: list[str] = []
            if kind == "scoped" and self.rng.random() < 0.1:
                imports.append(rel(posixpath.dirname(path), self.pick(self.doc_levels[2])))
            title = name[:-3].replace("-", " ").title()
            body = self.markdown(f"{title} rules", size, imports, path, mentions_ok=False)
            text = ("---\n" + "\n".join(fm) + "\n---\n\n" + body) if fm else body
            self.files[path] = text
            self.rules.append({"path": path, "base": base, "globs": globs, "kind": kind})

    # ------------------------------------------------------------------ checks & estimates
    def verify_globs(self) -> dict:
        """Check every glob against the tracked files with pathspec's gitignore dialect."""
        try:
            import pathspec  # type: ignore[import-not-found]
        except ImportError:
            return {"verified": False}
        tracked = sorted(self.files_written_tracked())
        planted_globs = {u["glob"] for u in self.planted.unmatched_globs}
        bad, counts = [], []
        for r in self.rules:
            if not r["globs"]:
                continue
            base = r["base"]
            cands = (
                [f[len(base) + 1 :] for f in tracked if f.startswith(base + "/")]
                if base
                else tracked
            )
            for g in r["globs"]:
                spec = pathspec.PathSpec.from_lines("gitignore", expand_braces(g))
                regexes = [pat.regex for pat in spec.patterns if pat.include]
                planted = g in planted_globs
                full = planted or len(counts) < 60  # count fully for stats, else stop at 1
                n = 0
                for f in cands:
                    if any(rx.match(f) for rx in regexes):
                        n += 1
                        if not full:
                            break
                if planted and n:
                    bad.append((r["path"], g, n, "planted unmatched glob matches"))
                if not planted and not n:
                    bad.append((r["path"], g, n, "glob matches nothing"))
                if not planted and full:
                    counts.append(n)
        counts.sort()
        return {
            "verified": True,
            "problems": bad,
            "median_matches_sample": counts[len(counts) // 2] if counts else 0,
            "max_matches_sample": counts[-1] if counts else 0,
        }

    def verify_frontmatter(self) -> dict:
        """Parse each rule's frontmatter with PyYAML (if importable): only the planted ones fail."""
        try:
            import yaml  # type: ignore[import-untyped]
        except ImportError:
            return {"verified": False}
        bad = []
        planted = set(self.planted.invalid_frontmatter)
        for r in self.rules:
            text = self.files[r["path"]]
            assert isinstance(text, str)
            if not text.startswith("---\n"):
                continue
            fm = text[4 : text.index("\n---\n", 3)]
            try:
                data = yaml.safe_load(fm)
                ok = isinstance(data, dict) and (
                    "paths" not in data or isinstance(data["paths"], (str, list))
                )
            except yaml.YAMLError:
                ok = False
            if ok == (r["path"] in planted):
                bad.append((r["path"], "parses" if ok else "does not parse"))
        return {"verified": True, "problems": bad}

    def files_written_tracked(self) -> list[str]:
        ign = set(self.ignored)
        return [p for p in self.files if p not in ign] + list(self.symlinks)

    def text_of(self, path: str) -> str | None:
        if path in self.symlinks:
            path = posixpath.normpath(posixpath.join(posixpath.dirname(path), self.symlinks[path]))
        c = self.files.get(path)
        if c is None:
            return None
        if isinstance(c, bytes):
            return None
        return c

    def estimate_loads(self) -> dict:
        """Rough unscoped load (root chain + nested chain + imports) per instruction directory."""
        import re

        imp_re = re.compile(r"(?:(?<=\s)|^)@(\S+)", re.M)

        def imports_of(path: str) -> list[str]:
            t = self.text_of(path)
            if t is None:
                return []
            t = re.sub(r"```.*?```", "", t, flags=re.S)
            t = re.sub(r"`[^`\n]*`", "", t)
            t = re.sub(r"<!--.*?-->", "", t, flags=re.S)
            out = []
            for m in imp_re.finditer(t):
                tgt = posixpath.normpath(posixpath.join(posixpath.dirname(path), m.group(1)))
                out.append(tgt)
            return out

        def load(path: str, seen: set[str], depth: int) -> int:
            real = path
            if real in self.symlinks:
                real = posixpath.normpath(
                    posixpath.join(posixpath.dirname(path), self.symlinks[path])
                )
            if real in seen:
                return 0
            t = self.text_of(real)
            if t is None:
                return 0
            seen.add(real)
            total = len(t)
            if depth < 4:
                for tgt in imports_of(real):
                    total += load(tgt, seen, depth + 1)
            return total

        order = ["AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"]
        dirs = sorted(
            {
                posixpath.dirname(p)
                if not p.endswith(".claude/CLAUDE.md")
                else posixpath.dirname(posixpath.dirname(p))
                for p in self.instrs
            }
        )
        uncond = sorted(
            r["path"] for r in self.rules if r["kind"] == "unconditional" and not r["base"]
        )
        over, worst, totals = [], 0, []
        for d in dirs:
            seen: set[str] = set()
            total = 0
            chain = (
                [""] + ["/".join(d.split("/")[: k + 1]) for k in range(len(d.split("/")))]
                if d
                else [""]
            )
            for k, cd in enumerate(chain):
                for nm in order:
                    p = posixpath.join(cd, nm) if cd else nm
                    if p in self.instrs:
                        total += load(p, seen, 0)
                if k == 0:
                    for r in uncond:
                        total += len(self.files[r])
            worst = max(worst, total)
            totals.append(total)
            if total > MAX_CHARS:
                over.append(d)
        totals.sort()
        return {
            "instruction_dirs": len(dirs),
            "dirs_over_budget": over,
            "max_unscoped_load": worst,
            "median_unscoped_load": totals[len(totals) // 2] if totals else 0,
        }

    # ------------------------------------------------------------------ write
    def write(self, dest: str) -> None:
        os.makedirs(dest, exist_ok=True)
        made: set[str] = set()
        for path in sorted(self.files):
            content = self.files[path]
            full = os.path.join(dest, *path.split("/"))
            parent = os.path.dirname(full)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            data = content.encode("utf-8") if isinstance(content, str) else content
            with open(full, "wb") as fh:
                fh.write(data)
        for path in sorted(self.symlinks):
            full = os.path.join(dest, *path.split("/"))
            os.makedirs(os.path.dirname(full), exist_ok=True)
            os.symlink(self.symlinks[path], full)

    def run(self) -> None:
        self.build_projects()
        self.build_tree()
        self.build_ignored()
        self.build_docs()
        self.build_instructions()
        self.plant()
        self.write_docs()
        self.write_instructions()
        self.build_rules()
        self.files[".gitignore"] = "node_modules/\ndist/\n*.log\n.env\n" + MANIFEST + "\n"


def git_commit(dest: str, message: str = "synthetic monorepo") -> str:
    """Commit DEST with fixed identities and dates: the same tree gives the same commit id."""
    env = dict(os.environ)
    env.update(
        {
            "GIT_AUTHOR_NAME": "Bench Bot",
            "GIT_AUTHOR_EMAIL": "bench@example.invalid",
            "GIT_COMMITTER_NAME": "Bench Bot",
            "GIT_COMMITTER_EMAIL": "bench@example.invalid",
            "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
            "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
        }
    )
    cfg = [
        "-c",
        "core.autocrlf=false",
        "-c",
        "commit.gpgsign=false",
        "-c",
        "init.defaultBranch=main",
        "-c",
        "core.symlinks=true",
    ]
    subprocess.run(["git", *cfg, "init", "-q", dest], check=True, env=env)
    subprocess.run(["git", *cfg, "-C", dest, "add", "-A"], check=True, env=env)
    subprocess.run(
        ["git", *cfg, "-C", dest, "commit", "-q", "-m", message], check=True, env=env
    )
    out = subprocess.run(
        ["git", "-C", dest, "rev-parse", "HEAD"],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dest", metavar="DEST")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=None, help="tracked source files (20000)")
    ap.add_argument("--instructions", type=int, default=None, help="instruction files (400)")
    ap.add_argument("--rules", type=int, default=None, help="rules (200)")
    ap.add_argument(
        "--small",
        action="store_true",
        help="quick preset: 2,000 files, 40 instruction files, 20 rules",
    )
    ap.add_argument("--git", action="store_true", help="git init + add + commit (fixed dates)")
    ap.add_argument(
        "--force", action="store_true", help="replace DEST if it is a tree this script generated"
    )
    ap.add_argument("--quiet", action="store_true", help="no summary on stderr")
    args = ap.parse_args(argv)
    preset = (2000, 40, 20) if args.small else (20000, 400, 200)
    args.files = args.files if args.files is not None else preset[0]
    args.instructions = args.instructions if args.instructions is not None else preset[1]
    args.rules = args.rules if args.rules is not None else preset[2]
    if args.files < 500 or args.instructions < 30 or args.rules < 15:
        ap.error("need at least --files 500 --instructions 30 --rules 15")
    return args


def prepare_dest(dest: str, force: bool, script: str = "gen_monorepo") -> None:
    """Empty `dest` for a new tree: refuse a non-empty one without --force, and never delete a
    directory no benchmark generator wrote (one without the manifest). Shared by every
    generator (`script` names it in the messages)."""
    if os.path.exists(dest) and (not os.path.isdir(dest) or os.listdir(dest)):
        if not force:
            sys.exit(
                f"{script}: {dest} exists and is not empty (use --force to replace a "
                "tree a benchmark generator wrote)"
            )
        if not os.path.isfile(os.path.join(dest, MANIFEST)):
            sys.exit(
                f"{script}: refusing to delete {dest}: it has no {MANIFEST}, so a "
                "benchmark generator did not write it"
            )
        shutil.rmtree(dest)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    dest = os.path.abspath(args.dest)
    prepare_dest(dest, args.force)
    g = Gen(args)
    g.run()
    g.write(dest)
    glob_check = g.verify_globs()
    fm_check = g.verify_frontmatter()
    loads = g.estimate_loads()
    p = g.planted
    special = set(g.instrs) | {r["path"] for r in g.rules} | {".gitignore"}
    tracked_sources = sum(1 for f in g.files_written_tracked() if f not in special)
    n_instr = len(g.instrs)
    summary = {
        "generator_version": GENERATOR_VERSION,
        "seed": args.seed,
        "files": {
            "source_files": tracked_sources,
            "instruction_files": n_instr,
            "rules": len(g.rules),
            "rules_unconditional": sum(1 for r in g.rules if r["kind"] == "unconditional"),
            "rules_below_root": len(p.unreachable_rules),
            "import_target_docs": sum(len(v) for v in g.doc_levels.values()),
            "ignored_files": len(g.ignored),
            "total_on_disk": len(g.files) + len(g.symlinks),
        },
        "planted": {
            "broken_imports": len(p.broken_imports),
            "import_cycles": len(p.cycles),
            "deep_chain_hops": len(p.deep_chain) - 1,
            "suspicious_imports": len(p.suspicious_imports),
            "unmatched_globs": len(p.unmatched_globs),
            "invalid_frontmatter": len(p.invalid_frontmatter),
            "binary_files": len(p.binary_files),
            "non_utf8_files": len(p.non_utf8_files),
            "oversized_files": len(p.oversized_files),
            "empty_files": len(p.empty_files),
            "symlinked_instructions": len(p.symlinked_instructions),
            "other_tool_only_rules": len(p.other_tool_only_rules),
            "bare_mentions": len(p.bare_mentions),
            "commented_imports": len(p.commented_imports),
            "ignored_instruction_files": len(p.ignored_instruction_files),
        },
        "loads": {
            "instruction_dirs": loads["instruction_dirs"],
            "dirs_over_32000_unscoped": len(loads["dirs_over_budget"]),
            "max_unscoped_load_chars": loads["max_unscoped_load"],
            "median_unscoped_load_chars": loads["median_unscoped_load"],
        },
        "globs": {k: v for k, v in glob_check.items() if k != "problems"},
    }
    # handy targets for the benchmarks
    agents = sorted(
        k
        for k, v in g.instrs.items()
        if v.kind == "regular" and k.endswith("/AGENTS.md") and k.count("/") >= 2
    )
    deep_sources = sorted(
        (f for f in g.tracked_sources if f.endswith((".ts", ".py", ".go"))),
        key=lambda f: (-f.count("/"), f),
    )
    manifest = {
        "summary": summary,
        "details": {k: getattr(p, k) for k in p.__dataclass_fields__},
        "dirs_over_budget_unscoped": loads["dirs_over_budget"],
        "glob_problems": glob_check.get("problems", []),
        "frontmatter_problems": fm_check.get("problems", []),
        "bench": {
            "edit_agents_md": agents[len(agents) // 2] if agents else "AGENTS.md",
            "agents_md_files": agents[:50],
            "hover_sources": deep_sources[:: max(1, len(deep_sources) // 50)][:50],
            "oversized_targets": [
                next(
                    (
                        f
                        for f in g.tracked_sources
                        if f.startswith(posixpath.dirname(o) + "/")
                        and f.endswith((".ts", ".py", ".go"))
                    ),
                    o,
                )
                for o in p.oversized_files
            ],
        },
    }
    with open(os.path.join(dest, MANIFEST), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=2, sort_keys=True)
        fh.write("\n")
    commit = git_commit(dest) if args.git else None
    if commit:
        manifest["commit"] = commit
    if not args.quiet:
        err = sys.stderr
        f, pl = summary["files"], summary["planted"]
        print(
            f"gen_monorepo: {dest} (seed {args.seed}{', git ' + commit[:12] if commit else ''})",
            file=err,
        )
        print(
            f"  source files        {f['source_files']:>6}   (docs import targets "
            f"{f['import_target_docs']})",
            file=err,
        )
        print(f"  instruction files   {f['instruction_files']:>6}", file=err)
        print(
            f"  rules               {f['rules']:>6}   (unconditional {f['rules_unconditional']}, "
            f"in package dirs {f['rules_below_root']})",
            file=err,
        )
        print(
            f"  ignored files       {f['ignored_files']:>6}   (node_modules/, dist/, *.log; "
            f"{pl['ignored_instruction_files']} instruction files among them)",
            file=err,
        )
        print("  planted problems:", file=err)
        for k, v in pl.items():
            if k != "ignored_instruction_files":
                print(f"    {k:<24}{v:>4}", file=err)
        print(
            f"  unscoped loads > 32000 chars: {summary['loads']['dirs_over_32000_unscoped']} of "
            f"{summary['loads']['instruction_dirs']} instruction dirs (median "
            f"{summary['loads']['median_unscoped_load_chars']}, max "
            f"{summary['loads']['max_unscoped_load_chars']}; estimate without scoped rules)",
            file=err,
        )
        gc = summary["globs"]
        if gc.get("verified"):
            print(
                f"  globs verified with pathspec: {len(glob_check['problems'])} problems; "
                f"matches per glob (sample of 60): median {gc['median_matches_sample']}, "
                f"max {gc['max_matches_sample']}",
                file=err,
            )
            for prob in glob_check["problems"][:10]:
                print(f"    ! {prob}", file=err)
        else:
            print("  globs not verified (pathspec not importable)", file=err)
        if fm_check.get("verified"):
            print(
                f"  frontmatter verified with PyYAML: {len(fm_check['problems'])} problems",
                file=err,
            )
            for prob in fm_check["problems"][:10]:
                print(f"    ! {prob}", file=err)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
