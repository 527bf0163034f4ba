#!/usr/bin/env python3
"""Generate a deterministic ADVERSARIAL workspace for Rulemap's benchmarks.

    python benchmarks/gen_adversarial.py DEST [--seed N] [--files 20000] [--git] [--force]

Where `gen_monorepo.py` builds a realistic monorepo, this tree is built to find the places
where a cold `rulemap check` stops being linear in the size of the workspace:

- about one source file per directory, in a wide and deep tree (`svc/a12/b7/c3/.../f.ts`,
  up to ~35 levels), plus a few branches exactly 40 levels deep (`deep/k1/n01/.../n40/`):
  as many directories as files, for everything that walks or indexes directories;
- a root `.claude/rules/` with ~120 rules whose globs are mostly dead: typos one letter off a
  real directory (`packges/**`, `src/compnents/**/*.tsx`, `svc/a12/b8/**`), wrong extensions
  (`src/components/**/*.jsx`), directories that never existed; plus live ones (`**/*.ts`);
- one document, `docs/INDEX.md` (imported by the root `AGENTS.md`), with ~3,000 `@imports` of
  distinct existing files and a few hundred broken ones (typos, removed files, wrong
  extensions, trailing punctuation), all in one Markdown list with a code span on every line;
- wide fan-in: hundreds of `AGENTS.md` / `CLAUDE.md` importing the same four `docs/shared/*.md`;
- a long import chain (`tools/chain/AGENTS.md` → `docs/chain/hop0001.md` → … ~200 hops, closed
  into a cycle);
- very long lines (100k+ characters, some non-BMP characters) in `legacy/AGENTS.md`, one of
  them with hundreds of bare `@team-N` mentions and code spans;
- nested `AGENTS.md` files deep in the tree (every fourth level of the 40-level branches, and
  in many directories 12+ levels down).

`--files N` (default 20,000) scales every count linearly (the branch depth of 40 and the four
fan-in targets stay), so runs at 5k/10k/20k/40k have the same shape; `bench_scaling.py` uses it.
Everything derives from `random.Random(seed)`: the same arguments give the same bytes (and,
with `--git`, the same commit id). A summary goes to stderr; counts and the planted paths go to
`DEST/.bench-manifest.json`, which the tree's `.gitignore` hides from Rulemap.

Only the standard library is needed. When `pathspec` is importable every rule glob is verified:
the dead ones match no file, the live ones match some.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import posixpath
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_monorepo import git_commit, prepare_dest  # noqa: E402  (one commit recipe, one dest rule)

GENERATOR_VERSION = 1
MANIFEST = ".bench-manifest.json"
BASE_FILES = 20_000
DEEP_DEPTH = 40  # levels of the deepest branches (constant: the shape does not change)
SVC_MAX_DEPTH = 34
SHARED_DOCS = ("style", "testing", "security", "review")  # the fan-in targets

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _words(text: str) -> list[str]:
    return text.split()


FILE_WORDS = _words(
    "index user account session token order invoice payment client server router config "
    "logger cache queue retry timeout format parse validate serialize mapper factory builder "
    "registry context provider button modal table list card header footer sidebar search "
    "filter sort paginate upload download export report chart metric event listener handler "
    "store slice selector effect hook util helpers constants types errors schema model service"
)
PKG_WORDS = _words(
    "api auth billing ui core search payments notifications analytics storage queue "
    "scheduler gateway identity catalog orders inventory shipping pricing reports metrics "
    "logging config cache events workflow editor render sync media feeds chat profile admin "
    "ledger tax cart checkout emails sdk cli schema graphql rpc i18n theme forms charts maps"
)
COMPONENT_WORDS = _words(
    "button modal table card header footer sidebar tabs tooltip dropdown avatar badge "
    "banner breadcrumb calendar carousel checkbox chip dialog drawer form grid icon input "
    "menu pagination popover progress radio select slider spinner stepper switch toast tree"
)
SENTENCES = (
    "Keep functions small and pure; push side effects to the edges.",
    "Prefer explicit return types on exported functions.",
    "Never commit secrets; use the vault CLI to fetch credentials locally.",
    "Write the test first when fixing a bug, and name it after the issue.",
    "Public APIs need a changelog entry and a docs update.",
    "Errors are values: return them, wrap them with context, and log once at the boundary.",
    "Use the shared logger; never print to stdout in library code.",
    "Generated files are not edited by hand; rerun the generator instead.",
    "Timeouts and retries are configured in one place, not per call.",
    "Dates are stored in UTC and formatted at the edge.",
)
PROSE_WORDS = _words(
    "the service owns its data and exposes it through a typed client so callers never reach "
    "into tables directly while migrations stay backwards compatible with the last release "
    "and every handler validates input before touching storage or queues"
)
DEAD_DIRS = (
    "legacy-v1", "old-billing", "archive", "vendor-patches", "experiments", "sandbox",
    "prototype", "deprecated", "migrations-2019", "ios", "android", "desktop", "wasm",
    "scripts-old", "third_party", "generated", "fixtures-old", "playground", "spikes",
)
DEAD_EXTS = (".rb", ".java", ".kt", ".scala", ".php", ".cs", ".swift", ".rs", ".ex", ".clj")
WRONG_EXTS = (".jsx", ".js", ".mjs", ".rb", ".scss", ".vue", ".svelte")
SOURCE_EXTS = ((".ts", 45), (".tsx", 10), (".py", 20), (".go", 10), (".md", 5), (".json", 10))


def scaled(n: int, scale: float, minimum: int = 1) -> int:
    return max(minimum, round(n * scale))


@dataclass
class Planted:
    index_imports: list[str] = field(default_factory=list)
    broken_imports: list[dict[str, str]] = field(default_factory=list)
    suspicious_imports: list[str] = field(default_factory=list)
    dead_globs: list[dict[str, str]] = field(default_factory=list)
    live_globs: list[dict[str, str]] = field(default_factory=list)
    fan_in_files: list[str] = field(default_factory=list)
    deep_nested_files: list[str] = field(default_factory=list)
    parent_imports: list[str] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)
    long_lines: list[dict[str, object]] = field(default_factory=list)
    ignored_instruction_files: list[str] = field(default_factory=list)


class Gen:
    def __init__(self, files: int, seed: int) -> None:
        self.n = files
        self.scale = files / BASE_FILES
        self.rng = random.Random(seed)
        self.files: dict[str, str] = {}  # path -> text (UTF-8)
        self.sources: list[str] = []  # tracked source files (the --files budget)
        self.dirs: set[str] = set()  # directories holding a file, and their ancestors
        self.instructions: list[str] = []
        self.rules: list[str] = []
        self.ignored: list[str] = []
        self.planted = Planted()
        self.svc_depth: dict[str, int] = {}

    # ------------------------------------------------------------------ helpers
    def pick(self, seq: tuple[str, ...] | list[str]) -> str:
        return seq[self.rng.randrange(len(seq))]

    def ext(self) -> str:
        r = self.rng.randrange(100)
        for ext, weight in SOURCE_EXTS:
            if r < weight:
                return ext
            r -= weight
        return ".ts"

    def content(self, path: str) -> str:
        stem = re.sub(r"\W", "_", posixpath.basename(path).split(".")[0])
        v = self.rng.randrange(1000)
        if path.endswith((".ts", ".tsx")):
            return f"export const {stem}_{v} = {v};\n"
        if path.endswith(".py"):
            return f"{stem.upper()}_{v} = {v}\n"
        if path.endswith(".go"):
            return f"package {stem}\n\nconst V{v} = {v}\n"
        if path.endswith(".json"):
            return json.dumps({"name": stem, "version": f"1.{v % 10}.0"}) + "\n"
        return f"# {stem}\n\nNotes about {stem} ({v}).\n"

    def add_source(self, path: str) -> None:
        assert path not in self.files, path
        self.files[path] = self.content(path)
        self.sources.append(path)

    def prose(self, sentences: int) -> str:
        return " ".join(self.pick(SENTENCES) for _ in range(sentences))

    def rel(self, from_file: str, target: str) -> str:
        return posixpath.relpath(target, posixpath.dirname(from_file) or ".")

    # ------------------------------------------------------------------ source tree
    def build_sources(self) -> None:
        s = self.scale
        # packages/<pkg>/...: ten directories, one file each (the typo'd globs aim here)
        taken: set[str] = set()
        for i in range(scaled(24, s, 2)):
            word = self.pick(PKG_WORDS)
            name = word if word not in taken else f"{word}-{i}"
            taken.add(name)
            root = f"packages/{name}"
            self.add_source(f"{root}/package.json")
            self.add_source(f"{root}/src/index.ts")
            self.add_source(f"{root}/src/components/index.ts")
            for comp in self.rng.sample(COMPONENT_WORDS, 3):
                self.add_source(f"{root}/src/components/{comp}/{comp.capitalize()}.tsx")
            self.add_source(f"{root}/src/hooks/use{self.pick(FILE_WORDS).capitalize()}.ts")
            self.add_source(f"{root}/src/utils/{self.pick(FILE_WORDS)}.ts")
            self.add_source(f"{root}/test/{self.pick(FILE_WORDS)}.test.ts")
            self.add_source(f"{root}/docs/{self.pick(FILE_WORDS)}.md")
        # src/components|hooks|lib/<name>/index.*
        for area, count, ext in (("components", 180, ".tsx"), ("hooks", 60, ".ts"),
                                 ("lib", 60, ".ts")):
            names: set[str] = set()
            words = COMPONENT_WORDS if area == "components" else tuple(FILE_WORDS)
            for i in range(scaled(count, s, 3)):
                word = self.pick(words)
                name = word if word not in names else f"{word}-{i}"
                names.add(name)
                self.add_source(f"src/{area}/{name}/index{ext}")
        # deep/k<b>/n01/.../n40: DEEP_DEPTH levels, a file at each
        for b in range(scaled(5, s)):
            d = f"deep/k{b + 1}"
            self.add_source(f"{d}/README.md")
            for level in range(1, DEEP_DEPTH + 1):
                d = f"{d}/n{level:02d}"
                self.add_source(f"{d}/mod{level:02d}{self.ext()}")
        # legacy/ (the long-line AGENTS.md governs it) and tools/chain/
        for i in range(scaled(20, s, 3)):
            self.add_source(f"legacy/m{i // 5}/{self.pick(FILE_WORDS)}{i}{self.ext()}")
        self.add_source("tools/chain/run.py")
        # svc/: the rest, one file per directory, wide and deep
        self.build_svc(self.n - len(self.sources))
        for path in self.sources:
            d = posixpath.dirname(path)
            while d and d not in self.dirs:
                self.dirs.add(d)
                d = posixpath.dirname(d)

    def build_svc(self, count: int) -> None:
        rng = self.rng
        top = max(8, round(60 * self.scale))
        order: list[str] = []
        shallow: list[str] = []
        kids: dict[str, set[str]] = {}

        def child(parent: str, depth: int) -> str:
            letter = LETTERS[depth % 26] * (1 + depth // 26)
            names = kids.setdefault(parent, set())
            span = 99 if len(names) < 60 else 999
            while True:
                name = f"{letter}{rng.randrange(1, span + 1)}"
                if name not in names:
                    names.add(name)
                    return f"{parent}/{name}"

        for _ in range(min(top, count)):
            d = child("svc", 0)
            self.svc_depth[d] = 1
            order.append(d)
            shallow.append(d)
        while len(order) < count:
            r = rng.random()
            if r < 0.45:  # deeper: a child of one of the last few directories
                parent = order[-1 - rng.randrange(min(3, len(order)))]
            elif r < 0.65:  # wider: a child near the top
                parent = shallow[rng.randrange(len(shallow))]
            else:
                parent = order[rng.randrange(len(order))]
            if self.svc_depth[parent] >= SVC_MAX_DEPTH:
                parent = shallow[rng.randrange(len(shallow))]
            depth = self.svc_depth[parent]
            d = child(parent, depth)
            self.svc_depth[d] = depth + 1
            order.append(d)
            if depth + 1 <= 3:
                shallow.append(d)
        for d in order:
            self.add_source(f"{d}/{self.pick(FILE_WORDS)}{rng.randrange(1000)}{self.ext()}")

    # ------------------------------------------------------------------ documents
    def build_docs(self) -> None:
        for name in SHARED_DOCS:
            other = SHARED_DOCS[(SHARED_DOCS.index(name) + 1) % len(SHARED_DOCS)]
            link = f"See also @{other}.md for the neighbouring topic.\n" if name != "review" else ""
            self.files[f"docs/shared/{name}.md"] = (
                f"# {name.capitalize()}\n\n{self.prose(6)}\n\n{link}"
            )
        # the long chain, closed into a cycle at the end
        hops = scaled(200, self.scale, 10)
        chain = [f"docs/chain/hop{i:04d}.md" for i in range(1, hops + 1)]
        for i, path in enumerate(chain):
            nxt = chain[(i + 1) % len(chain)]
            self.files[path] = (
                f"# Hop {i + 1}\n\n{self.prose(1)}\n\nNext: @{posixpath.basename(nxt)}\n"
            )
        start = "tools/chain/AGENTS.md"
        self.files[start] = (
            f"# Chain tool\n\n{self.prose(2)}\n\n@{self.rel(start, chain[0])}\n"
        )
        self.instructions.append(start)
        self.planted.chain = [start, *chain]

    def build_index(self) -> None:
        """docs/INDEX.md: ~3,000 imports of distinct existing files and a few hundred broken
        ones, in one list (one paragraph) with a code span on every line."""
        path = "docs/INDEX.md"
        n_ok = scaled(3000, self.scale, 20)
        n_broken = scaled(300, self.scale, 5)
        pool = [p for p in self.sources if not p.startswith("legacy/")]
        targets = sorted(self.rng.sample(pool, min(n_ok, len(pool))))
        existing = set(self.files) | set(self.sources)
        entries: list[tuple[str, str]] = [(t, self.rel(path, t)) for t in targets]
        self.planted.index_imports = targets
        kinds = ("name-typo",) * 4 + ("dir-typo",) * 2 + ("removed",) * 2 + ("wrong-ext",)
        broken: list[tuple[str, str]] = []
        while len(broken) < n_broken:
            base = self.pick(targets)
            kind = self.pick(kinds) if len(broken) % 10 else "trailing-punctuation"
            d, name = posixpath.split(base)
            stem, dot, ext = name.partition(".")
            if kind == "name-typo":
                bad = f"{d}/{typo(self.rng, stem)}{dot}{ext}"
            elif kind == "dir-typo":
                parts = d.split("/")
                k = self.rng.randrange(1, len(parts)) if len(parts) > 1 else 0
                parts[k] = typo(self.rng, parts[k])
                bad = "/".join([*parts, name])
            elif kind == "removed":
                bad = f"{d}/removed-{self.pick(FILE_WORDS)}{self.rng.randrange(1000)}.{ext}"
            elif kind == "wrong-ext":
                bad = f"{d}/{stem}{self.pick(WRONG_EXTS)}"
            else:
                token = self.rel(path, base) + self.pick((",", ".", ")", ";", ":"))
                broken.append((token, base))
                self.planted.suspicious_imports.append(token)
                continue
            if bad in existing or posixpath.dirname(bad) == bad:
                continue
            existing.add(bad)
            broken.append((self.rel(path, bad), bad))
            self.planted.broken_imports.append({"kind": kind, "target": bad})
        for token, target in broken:
            entries.insert(self.rng.randrange(len(entries) + 1), (target, token))
        lines = ["# Index of every module", "", self.prose(2), ""]
        i = 0
        while i < len(entries):
            take = 3 if i % 37 == 5 else 1  # now and then several imports on one line
            chunk = entries[i : i + take]
            i += take
            label = posixpath.basename(chunk[0][0]).split(".")[0]
            lines.append(f"- `{label}`: " + " ".join(f"@{token}" for _, token in chunk))
        lines += ["", "Regenerate this file with `make index` after moving modules.", ""]
        self.files[path] = "\n".join(lines)

    def build_root(self) -> None:
        shared = " ".join(f"@docs/shared/{n}.md" for n in SHARED_DOCS)
        self.files["AGENTS.md"] = (
            "# Agent instructions\n\n"
            f"{self.prose(4)}\n\n"
            f"The module index: @docs/INDEX.md\n\nShared guides: {shared}\n\n"
            "## Commands\n\n- `make test` runs everything.\n- Contact `@platform-team` "
            "for access.\n"
        )
        self.files["CLAUDE.md"] = "@AGENTS.md\n"
        self.instructions += ["AGENTS.md", "CLAUDE.md"]

    def build_long_lines(self) -> None:
        """legacy/AGENTS.md: three very long lines (a prose line, a line of code spans and
        bare mentions, a minified line in a code fence), all with a few non-BMP characters."""
        path = "legacy/AGENTS.md"
        s = self.scale
        rng = self.rng

        def words_line(length: int, mentions: int, spans_every: int) -> tuple[str, int]:
            out: list[str] = []
            size = 0
            placed = 0
            mention_every = length // (mentions + 1) if mentions else 0
            next_mention = mention_every
            k = 0
            while size < length:
                k += 1
                if mentions and size >= next_mention and placed < mentions:
                    token = f"@team-{placed % 97}"
                    placed += 1
                    next_mention += mention_every
                elif spans_every and k % spans_every == 0:
                    token = f"`cfg.{self.pick(FILE_WORDS)}`"
                elif k % 211 == 0:
                    token = self.pick(("🚀", "é", "日本語", "✅", "𝒳"))
                else:
                    token = PROSE_WORDS[rng.randrange(len(PROSE_WORDS))]
                out.append(token)
                size += len(token) + 1
            return " ".join(out), placed

        prose_line, _ = words_line(scaled(120_000, s, 10_000), 0, 0)
        mention_line, placed = words_line(scaled(150_000, s, 10_000), scaled(300, s, 10), 6)
        blob = json.dumps({f"k{i}": self.pick(FILE_WORDS) for i in
                           range(scaled(100_000, s, 10_000) // 14)}, separators=(",", ":"))
        self.files[path] = (
            "# Legacy\n\n" + prose_line + "\n\n" + mention_line + "\n\n```json\n" + blob
            + "\n```\n\n" + self.prose(2) + "\n"
        )
        self.instructions.append(path)
        self.planted.long_lines = [
            {"path": path, "line": 3, "chars": len(prose_line), "kind": "prose"},
            {"path": path, "line": 5, "chars": len(mention_line), "kind": "mentions",
             "mentions": placed},
            {"path": path, "line": 8, "chars": len(blob), "kind": "code fence"},
        ]

    def instruction_text(self, path: str, shared: list[str], extra: str = "") -> str:
        imports = " ".join(f"@{self.rel(path, f'docs/shared/{n}.md')}" for n in shared)
        return (
            f"# {posixpath.dirname(path) or 'root'}\n\n{self.prose(self.rng.randrange(2, 6))}\n\n"
            f"Read first: {imports}\n{extra}"
        )

    def build_nested(self) -> None:
        s = self.scale
        rng = self.rng
        taken = set(self.instructions)
        # fan-in: hundreds of AGENTS.md / CLAUDE.md importing the same few shared docs
        shallow = sorted(d for d in self.dirs if d.count("/") <= 12 and not d.startswith(
            ("legacy", "tools", "deep")))
        for d in rng.sample(shallow, min(len(shallow), scaled(300, s, 10))):
            name = "AGENTS.md" if rng.random() < 0.6 else "CLAUDE.md"
            path = f"{d}/{name}"
            k = rng.randrange(2, len(SHARED_DOCS) + 1)
            self.files[path] = self.instruction_text(path, rng.sample(list(SHARED_DOCS), k))
            taken.add(path)
            self.planted.fan_in_files.append(path)
            if name == "AGENTS.md" and rng.random() < 0.25:
                self.files[f"{d}/CLAUDE.md"] = "@AGENTS.md\n"
                taken.add(f"{d}/CLAUDE.md")
        # deep nesting: every fourth level of the 40-level branches, and dirs 12+ levels down
        deep_dirs = sorted(d for d in self.dirs if d.startswith("deep/")
                           and re.search(r"/n(\d\d)$", d) and int(d[-2:]) % 4 == 0)
        svc_deep = sorted(d for d in self.dirs if d.startswith("svc/") and d.count("/") >= 12)
        chosen = deep_dirs + rng.sample(svc_deep, min(len(svc_deep), scaled(100, s, 5)))
        for d in chosen:
            path = f"{d}/AGENTS.md"
            if path in taken:
                continue
            extra = ""
            parent = posixpath.dirname(d)
            while parent and f"{parent}/AGENTS.md" not in taken:
                parent = posixpath.dirname(parent)
            if parent and rng.random() < 0.15:
                # a nested file that imports its parent's AGENTS.md, which loads anyway
                extra = f"\nAs in the parent: @{self.rel(path, f'{parent}/AGENTS.md')}\n"
                self.planted.parent_imports.append(path)
            self.files[path] = self.instruction_text(path, [self.pick(SHARED_DOCS)], extra)
            taken.add(path)
            self.planted.deep_nested_files.append(path)
        self.instructions = sorted(taken)

    def build_ignored(self) -> None:
        for path, text in (
            ("node_modules/some-lib/AGENTS.md", "@does/not/exist.md\n"),
            ("node_modules/some-lib/index.js", "module.exports = 1;\n"),
            ("dist/CLAUDE.md", "@../missing.md\n"),
            ("dist/bundle.js", "console.log(1);\n"),
        ):
            self.files[path] = text
            self.ignored.append(path)
        self.planted.ignored_instruction_files = [
            "node_modules/some-lib/AGENTS.md", "dist/CLAUDE.md"]

    # ------------------------------------------------------------------ rules
    def build_rules(self) -> None:
        s = self.scale
        rng = self.rng
        n_rules = scaled(120, s, 20)
        dirs = sorted(self.dirs)
        exts_under: dict[str, set[str]] = {}
        for src in self.sources:
            top = src.split("/", 1)[0]
            exts_under.setdefault(top, set()).add(posixpath.splitext(src)[1])
        svc_dirs = [d for d in dirs if d.startswith("svc/") and d.count("/") >= 2]
        pkg_names = sorted({d.split("/")[1] for d in dirs if d.startswith("packages/")})

        def typo_dir() -> str:
            for _ in range(100):
                r = rng.random()
                if r < 0.15:
                    base = "packages"
                elif r < 0.35:
                    base = "src/components"
                elif r < 0.5:
                    base = f"packages/{self.pick(pkg_names)}/src/components"
                else:
                    base = self.pick(svc_dirs)
                parts = base.split("/")
                k = rng.randrange(len(parts))
                parts[k] = typo(rng, parts[k])
                bad = "/".join(parts)
                if bad not in self.dirs and not any(x == "" for x in parts):
                    return bad
            raise RuntimeError("no typo found")

        def dead_glob() -> tuple[str, str]:
            r = rng.random()
            if r < 0.55:
                d = typo_dir()
                tail = self.pick(("**", "**/*.ts", "**/*.tsx", "**/*", "*.py"))
                return "typo", f"{d}/{tail}"
            if r < 0.75:
                base = self.pick(("src/components", "packages", "deep",
                                  "/".join(self.pick(svc_dirs).split("/")[:2])))
                ext = self.pick(WRONG_EXTS)
                return "wrong-ext", f"{base}/**/*{ext}"
            if r < 0.9:
                d = self.pick(DEAD_DIRS)
                if rng.random() < 0.5:
                    d = f"packages/{d}-{rng.randrange(100)}"
                return "missing-dir", f"{d}/**"
            return "missing-ext", f"**/*{self.pick(DEAD_EXTS)}"

        live_pool = (
            "**/*.ts", "**/*.{ts,tsx}", "svc/**/*.py", "packages/*/src/**/*.tsx",
            "src/components/**", "docs/**/*.md", "deep/**", "**/*.go", "*.json",
            "packages/**/test/*.test.ts",
        )
        rules_dir = ".claude/rules"
        for i in range(n_rules):
            topic = self.pick(FILE_WORDS)
            sub = ("", "frontend/", "backend/", "legacy/")[i % 4]
            path = f"{rules_dir}/{sub}{i:03d}-{topic}.md"
            globs: list[tuple[str, str]] = []
            r = rng.random()
            if i < len(live_pool):
                globs.append(("live", live_pool[i]))
                if rng.random() < 0.5:
                    globs.append(dead_glob())
            elif r < 0.08:
                exact = self.pick(self.sources)
                globs.append(("live", exact))
                globs.append(dead_glob())
            else:
                for _ in range(rng.choice((1, 1, 2, 2, 3))):
                    globs.append(dead_glob())
            globs = list({g[1]: g for g in globs}.values())  # drop repeated patterns
            for kind, pattern in globs:
                entry = {"rule": path, "glob": pattern, "kind": kind}
                (self.planted.live_globs if kind == "live" else self.planted.dead_globs).append(
                    entry)
            style = i % 3
            patterns = [p for _, p in globs]
            if style == 0:
                fm = "paths:\n" + "".join(f'  - "{p}"\n' for p in patterns)
            elif style == 1:
                fm = "paths: [" + ", ".join(f'"{p}"' for p in patterns) + "]\n"
            else:
                fm = f'paths: "{", ".join(patterns)}"\n'
                if any("{" in p for p in patterns):
                    fm = "paths:\n" + "".join(f'  - "{p}"\n' for p in patterns)
            body = f"# {topic.capitalize()} rule\n\n{self.prose(rng.randrange(1, 4))}\n"
            if rng.random() < 0.2:
                body += f"\nBackground: @{self.rel(path, 'docs/shared/style.md')}\n"
            self.files[path] = f"---\n{fm}---\n\n{body}"
            self.rules.append(path)

    # ------------------------------------------------------------------ run + write
    def run(self) -> None:
        self.build_sources()
        self.build_root()
        self.build_docs()
        self.build_index()
        self.build_long_lines()
        self.build_nested()
        self.build_ignored()
        self.build_rules()
        self.files[".gitignore"] = "node_modules/\ndist/\n*.log\n" + MANIFEST + "\n"

    def write(self, dest: str) -> None:
        os.makedirs(dest, exist_ok=True)
        made: set[str] = set()
        for path in sorted(self.files):
            full = os.path.join(dest, *path.split("/"))
            parent = os.path.dirname(full)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            with open(full, "wb") as fh:
                fh.write(self.files[path].encode("utf-8"))

    def tracked(self) -> list[str]:
        ignored = set(self.ignored)
        return sorted(p for p in self.files if p not in ignored)

    def verify_globs(self) -> dict[str, object]:
        """Dead globs match no tracked file, live ones match some (with pathspec's gitignore
        translation, as Rulemap uses it); skipped when pathspec is not importable."""
        try:
            from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern
        except ImportError:
            return {"verified": False}
        files = self.tracked()
        problems: list[str] = []

        def matches(glob: str) -> bool:
            for pattern in expand_braces(glob):
                regex, _ = GitIgnoreBasicPattern.pattern_to_regex(pattern)
                if regex is None:
                    continue
                compiled = re.compile(regex)
                prefix = ""
                for part in pattern.split("/")[:-1]:
                    if re.search(r"[*?\[]", part):
                        break
                    prefix += part + "/"
                lo = bisect.bisect_left(files, prefix)
                for path in files[lo:]:
                    if not path.startswith(prefix):
                        break
                    if compiled.match(path):
                        return True
            return False

        for entry in self.planted.dead_globs:
            if matches(entry["glob"]):
                problems.append(f"dead glob matches: {entry['glob']} ({entry['rule']})")
        for entry in self.planted.live_globs:
            if not matches(entry["glob"]):
                problems.append(f"live glob matches nothing: {entry['glob']} ({entry['rule']})")
        return {"verified": True, "problems": problems}


def typo(rng: random.Random, word: str) -> str:
    """One letter off: a deletion, a swap of neighbours or a substitution."""
    for _ in range(20):
        kind = rng.randrange(3) if len(word) >= 3 else 2
        i = rng.randrange(len(word))
        if kind == 0:
            out = word[:i] + word[i + 1 :]
        elif kind == 1 and i < len(word) - 1:
            out = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        else:
            alphabet = "0123456789" if word[i].isdigit() else LETTERS
            out = word[:i] + alphabet[rng.randrange(len(alphabet))] + word[i + 1 :]
        if out and out != word:
            return out
    return word + "x"


def expand_braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    out: list[str] = []
    for option in match.group(1).split(","):
        out.extend(expand_braces(pattern[: match.start()] + option + pattern[match.end() :]))
    return out


def summarize(g: Gen, seed: int, glob_check: dict[str, object]) -> dict[str, object]:
    p = g.planted
    depths = [d.count("/") + 1 for d in g.dirs]
    index_text = g.files["docs/INDEX.md"]
    return {
        "generator": "gen_adversarial",
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "files_arg": g.n,
        "files": {
            "source_files": len(g.sources),
            "directories": len(g.dirs),
            "max_depth": max(depths),
            "dirs_deeper_than_10": sum(1 for d in depths if d > 10),
            "dirs_deeper_than_20": sum(1 for d in depths if d > 20),
            "instruction_files": len(g.instructions),
            "rules": len(g.rules),
            "docs": sum(1 for f in g.files if f.startswith("docs/")),
            "ignored_files": len(g.ignored),
            "total_on_disk": len(g.files),
            "by_extension": dict(sorted(Counter(
                posixpath.splitext(f)[1] or "(none)" for f in g.sources).items())),
        },
        "planted": {
            "index_imports_ok": len(p.index_imports),
            "index_imports_broken": len(p.broken_imports),
            "index_imports_broken_by_kind": dict(sorted(Counter(
                b["kind"] for b in p.broken_imports).items())),
            "index_imports_trailing_punctuation": len(p.suspicious_imports),
            "index_chars": len(index_text),
            "index_lines": index_text.count("\n") + 1,
            "dead_globs": len(p.dead_globs),
            "dead_globs_by_kind": dict(sorted(Counter(d["kind"] for d in p.dead_globs).items())),
            "live_globs": len(p.live_globs),
            "rules_with_only_dead_globs": len(
                {d["rule"] for d in p.dead_globs} - {x["rule"] for x in p.live_globs}),
            "fan_in_files": len(p.fan_in_files),
            "fan_in_targets": len(SHARED_DOCS),
            "deep_nested_files": len(p.deep_nested_files),
            "nested_importing_parent": len(p.parent_imports),
            "chain_hops": len(p.chain) - 1,
            "long_lines": [{k: v for k, v in x.items() if k != "path"} for x in p.long_lines],
            "ignored_instruction_files": len(p.ignored_instruction_files),
        },
        "globs": {k: v for k, v in glob_check.items() if k != "problems"},
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dest", metavar="DEST")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=BASE_FILES,
                    help="tracked source files, about one per directory (20000)")
    ap.add_argument("--git", action="store_true", help="git init + add + commit (fixed dates)")
    ap.add_argument("--force", action="store_true",
                    help="replace DEST if it is a tree this script (or gen_monorepo) generated")
    ap.add_argument("--quiet", action="store_true", help="no summary on stderr")
    args = ap.parse_args(argv)
    if args.files < 1000:
        ap.error("need at least --files 1000")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    dest = os.path.abspath(args.dest)
    prepare_dest(dest, args.force, "gen_adversarial")
    g = Gen(args.files, args.seed)
    g.run()
    g.write(dest)
    glob_check = g.verify_globs()
    summary = summarize(g, args.seed, glob_check)
    p = g.planted
    mid = sorted(p.fan_in_files, key=lambda f: (f.count("/"), f))
    agents = [f for f in mid if f.endswith("/AGENTS.md")]
    deep_sources = sorted((f for f in g.sources if f.endswith((".ts", ".py", ".go"))),
                          key=lambda f: (-f.count("/"), f))
    manifest = {
        "summary": summary,
        "details": {k: getattr(p, k) for k in p.__dataclass_fields__},
        "glob_problems": glob_check.get("problems", []),
        "bench": {
            "edit_agents_md": agents[len(agents) // 2] if agents else "AGENTS.md",
            "agents_md_files": agents[:50],
            "hover_sources": deep_sources[:: max(1, len(deep_sources) // 50)][:50],
            "oversized_targets": [next(f for f in g.sources if f.startswith("legacy/"))],
        },
    }
    with open(os.path.join(dest, MANIFEST), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=2, sort_keys=True)
        fh.write("\n")
    commit = git_commit(dest, "adversarial workspace") if args.git else None
    if not args.quiet:
        f, pl = summary["files"], summary["planted"]
        assert isinstance(f, dict) and isinstance(pl, dict)
        err = sys.stderr
        print(f"gen_adversarial: {dest} (seed {args.seed}, --files {args.files}"
              f"{', git ' + commit[:12] if commit else ''})", file=err)
        print(f"  source files {f['source_files']} in {f['directories']} directories (max depth "
              f"{f['max_depth']}; {f['dirs_deeper_than_20']} deeper than 20)", file=err)
        print(f"  instruction files {f['instruction_files']} (fan-in {pl['fan_in_files']}, deep "
              f"nested {pl['deep_nested_files']}), rules {f['rules']} (dead globs "
              f"{pl['dead_globs']}, live {pl['live_globs']})", file=err)
        print(f"  docs/INDEX.md: {pl['index_imports_ok']} imports + {pl['index_imports_broken']} "
              f"broken + {pl['index_imports_trailing_punctuation']} with trailing punctuation, "
              f"{pl['index_chars']:,} chars", file=err)
        lines = ", ".join(f"{x['chars']:,}" for x in p.long_lines)
        print(f"  chain of {pl['chain_hops']} hops; long lines of {lines} chars", file=err)
        problems = glob_check.get("problems")
        problems = problems if isinstance(problems, list) else []
        if glob_check.get("verified"):
            print(f"  globs verified with pathspec: {len(problems)} problems", file=err)
            for prob in problems[:10]:
                print(f"    ! {prob}", file=err)
        else:
            print("  globs not verified (pathspec not importable)", file=err)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
