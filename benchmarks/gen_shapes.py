#!/usr/bin/env python3
"""Generate one deterministic workspace SHAPE at a SCALE, to look for cliffs in Rulemap.

    python benchmarks/gen_shapes.py DEST --shape S --scale K [--seed 1] [--git] [--force]

Each shape stresses one dimension of a workspace and scales it (and the source tree with it)
linearly with K, so a linear engine costs the same per unit at 1x and at 10x. At 1x most shapes
have ~2,000 source files, a tenth of the synthetic monorepo (gen_monorepo.py), so 10x is the
monorepo's 20,000; the shape's own dimension at 10x is ten times the monorepo's.

Shapes (unit = what K multiplies; its count at 1x):

- files: source files (2,000), in 20 flat directories (1,000 per directory at 10x); six
  rules. Targets per-file work: the walk, the index, glob tests.
- dirs: directories (2,000), one file each, wide (`dirs/dNNNN/` has 20 children; 1,000
  `dNNNN` siblings at 10x); three live rules, five with a glob one letter off a real
  directory. Targets per-directory work: the walk, the .gitignore stack, directory indexes,
  "did you mean" over directories.
- depth: levels x branches (2,000): 50 branches 40*K levels deep (400 at 10x, paths of ~2,000
  characters), a file per level, a nested AGENTS.md every 8 levels and a CLAUDE.md importing
  it every 16. Targets ancestor walks and nested loads that grow with depth (at 10x the
  deepest file's load holds 75 files).
- instructions: instruction files (200): AGENTS.md, CLAUDE.md, .claude/CLAUDE.md,
  CLAUDE.local.md, GEMINI.md over a monorepo layout (packages/<pkg>/src/<area>/, ~10 files
  per area), 300-2,500 characters of Markdown each, ~40 % with @imports of docs (2 % of them
  broken by a typo), most CLAUDE.md beside an AGENTS.md importing it. Targets parsing, import
  resolution, a load per directory, the budget.
- rules: rules (200): 80 % `.claude/rules/**/*.md` (`paths:` in three YAML styles), 10 %
  `.github/instructions/*.instructions.md` (`applyTo`), 10 % `.cursor/rules/*.mdc`
  (`globs`); 1-3 live globs each (exact paths, `dir/**`, `**/*.ext`, braces, trailing `/`),
  5 % with one dead glob. Targets glob compilation and matching every file, per agent.
- dead-globs: dead globs (200), four per rule (70 % Claude, 15 % Copilot, 15 % Cursor): one
  letter off a real directory at any depth, an extension absent below a real directory, a
  directory that never existed, a real file's name one letter off, an extension absent
  everywhere; every third rule also has a live glob. Targets `unmatched-glob` and its "did
  you mean" suggestion.
- fanout: imports (2,000): `docs/INDEX.md`, imported by the root AGENTS.md, imports half of
  them (distinct source files, a list line each with a code span; 1 % broken by a typo);
  the other half are 5 each from a tenth as many AGENTS.md/CLAUDE.md files importing the
  same 5 shared docs. Targets resolving thousands of imports of one file, importer sets, the
  cycle search, a start-up load of thousands of files (every load overflows the budget),
  `broken-import` suggestions.

Every shape has a root AGENTS.md and CLAUDE.md (`@AGENTS.md`), a `.gitignore`
(`node_modules/`, `dist/`, `*.log`, the manifest) and ignored `node_modules/` / `dist/` files
with broken imports (never to be linted). Everything derives from `random.Random(seed)` (no wall
clock): the same arguments give the same bytes, and with `--git` the same commit id (fixed
identities and dates: gen_monorepo.git_commit). A one-line summary goes to stderr; counts go to
`DEST/.bench-manifest.json` (`summary.unit`, `summary.units`, `summary.files`), which the tree's
`.gitignore` hides from Rulemap. When `pathspec` is importable the dead globs are verified to
match no file and the live ones some (gitignore semantics, as gen_adversarial.py does).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_adversarial import (  # noqa: E402
    COMPONENT_WORDS,
    DEAD_DIRS,
    DEAD_EXTS,
    FILE_WORDS,
    PKG_WORDS,
    SENTENCES,
    WRONG_EXTS,
    expand_braces,
    typo,
)
from gen_monorepo import git_commit, prepare_dest  # noqa: E402  (one commit recipe, one dest rule)

GENERATOR_VERSION = 1
MANIFEST = ".bench-manifest.json"
BASE_SOURCES = 2_000
SHAPES = ("files", "dirs", "depth", "instructions", "rules", "dead-globs", "fanout")
UNITS = {
    "files": "source files",
    "dirs": "directories (one file each)",
    "depth": "levels x branches (50 branches)",
    "instructions": "instruction files",
    "rules": "rules",
    "dead-globs": "dead globs",
    "fanout": "imports",
}
AREAS = ("components", "hooks", "api", "models", "services", "utils", "store", "routes",
         "views", "lib", "schema", "jobs")
SHARED = ("style", "testing", "security", "review", "release")
INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md",
                     "GEMINI.md")


class Shape:
    def __init__(self, shape: str, scale: int, seed: int) -> None:
        self.shape = shape
        self.k = scale
        self.rng = random.Random(f"{shape}/{scale}/{seed}")
        self.files: dict[str, str] = {}
        self.sources: list[str] = []
        self.instructions: list[str] = []
        self.rules: list[str] = []
        self.ignored: list[str] = []
        self.dead_globs: list[dict[str, str]] = []
        self.live_globs: list[dict[str, str]] = []
        self.imports = 0
        self.broken_imports = 0
        self.units = 0
        self._dirs: set[str] | None = None

    # ------------------------------------------------------------------ helpers
    def pick(self, seq):  # noqa: ANN001,ANN201
        return seq[self.rng.randrange(len(seq))]

    def prose(self, n: int) -> str:
        return " ".join(self.pick(SENTENCES) for _ in range(n))

    def ext(self, area: str = "") -> str:
        if area == "components":
            return self.pick((".tsx", ".tsx", ".ts", ".test.tsx"))
        return self.pick((".ts", ".ts", ".ts", ".py", ".py", ".go", ".json", ".md", ".test.ts"))

    def add_source(self, path: str) -> None:
        assert path not in self.files, path
        stem = re.sub(r"\W", "_", posixpath.basename(path).split(".")[0])
        v = self.rng.randrange(1000)
        if path.endswith(".py"):
            text = f"{stem.upper()}_{v} = {v}\n"
        elif path.endswith(".go"):
            text = f"package {stem}\n\nconst V{v} = {v}\n"
        elif path.endswith(".json"):
            text = json.dumps({"name": stem, "version": f"1.{v % 10}.0"}) + "\n"
        elif path.endswith(".md"):
            text = f"# {stem}\n\nNotes about {stem} ({v}).\n"
        else:
            text = f"export const {stem}_{v} = {v};\n"
        self.files[path] = text
        self.sources.append(path)
        self._dirs = None

    def add_instruction(self, path: str, text: str) -> None:
        assert path not in self.files, path
        self.files[path] = text
        self.instructions.append(path)

    @property
    def dirs(self) -> set[str]:
        if self._dirs is None:
            out: set[str] = set()
            for path in self.sources:
                d = posixpath.dirname(path)
                while d and d not in out:
                    out.add(d)
                    d = posixpath.dirname(d)
            self._dirs = out
        return self._dirs

    @staticmethod
    def rel(from_file: str, target: str) -> str:
        return posixpath.relpath(target, posixpath.dirname(from_file) or ".")

    def markdown(self, title: str, chars: int, imports: list[str]) -> str:
        """Realistic instruction Markdown of about `chars` characters: headings, lists, a code
        span with a scoped package name (not an import), a fence with a decorator, and the
        given @imports in a "Read first" line."""
        rng = self.rng
        parts = [f"# {title}\n", self.prose(2) + "\n"]
        if imports:
            parts.append("Read first: " + " ".join(f"@{i}" for i in imports) + "\n")
        section = 0
        while sum(len(p) for p in parts) < chars:
            section += 1
            kind = rng.randrange(4)
            heading = self.pick(("Conventions", "Testing", "Layout", "Reviews", "Tooling"))
            if kind == 0:
                items = "".join(f"- {self.pick(SENTENCES)}\n" for _ in range(rng.randrange(2, 6)))
                parts.append(f"## {heading} {section}\n\n{items}")
            elif kind == 1:
                parts.append(f"## {heading} {section}\n\n{self.prose(rng.randrange(2, 5))} Use "
                             f"`@acme/{self.pick(PKG_WORDS)}` from the workspace, never a copy.\n")
            elif kind == 2:
                parts.append(f"## {heading} {section}\n\n```python\n@pytest.mark.parametrize("
                             f"\"case\", CASES)\ndef test_{self.pick(FILE_WORDS)}(case):\n"
                             f"    assert run(case)\n```\n")
            else:
                parts.append(f"| command | what |\n|---|---|\n| `make {self.pick(FILE_WORDS)}`"
                             f" | {self.pick(SENTENCES)} |\n")
        return "\n".join(parts)

    # ------------------------------------------------------------------ common parts
    def monorepo_sources(self, n: int) -> list[str]:
        """`n` source files in packages/<pkg>/src/<area>/: ~10 per area, 8 areas per package,
        so the number of packages grows with n and the depth stays."""
        n_pkgs = max(2, round(n / 80))
        names: list[str] = []
        seen: Counter[str] = Counter()
        for _ in range(n_pkgs):
            word = self.pick(PKG_WORDS)
            seen[word] += 1
            names.append(word if seen[word] == 1 else f"{word}{seen[word]}")
        areas = {p: self.rng.sample(AREAS, 8) for p in names}
        for i in range(n):
            pkg = names[i % n_pkgs]
            area = areas[pkg][(i // n_pkgs) % 8]
            self.add_source(f"packages/{pkg}/src/{area}/{self.pick(FILE_WORDS)}{i}"
                            f"{self.ext(area)}")
        return names

    def common(self) -> None:
        if "AGENTS.md" not in self.files:
            self.add_instruction("AGENTS.md", self.markdown("Workspace", 900, []))
        if "CLAUDE.md" not in self.files:
            self.add_instruction("CLAUDE.md", "@AGENTS.md\n")
        for path, text in (
            ("node_modules/some-lib/AGENTS.md", "@does/not/exist.md\n"),
            ("node_modules/some-lib/index.js", "module.exports = 1;\n"),
            ("dist/CLAUDE.md", "@../missing.md\n"),
            ("dist/bundle.js", "console.log(1);\n"),
            ("debug.log", "log\n"),
        ):
            self.files[path] = text
            self.ignored.append(path)
        self.files[".gitignore"] = f"node_modules/\ndist/\n*.log\n{MANIFEST}\n"

    def rule_file(self, agent: str, name: str, globs: list[str], title: str) -> str:
        """A rule for `agent` (claude, copilot or cursor) scoped to `globs`; returns its path."""
        body = f"# {title}\n\n{self.prose(self.rng.randrange(1, 4))}\n"
        assert agent == "claude" or not any("," in g for g in globs), globs
        if agent == "claude":
            path = f".claude/rules/{name}.md"
            style = self.rng.randrange(3)
            if style == 0 or any("{" in g or "," in g for g in globs):
                fm = "paths:\n" + "".join(f'  - "{g}"\n' for g in globs)
            elif style == 1:
                fm = "paths: [" + ", ".join(f'"{g}"' for g in globs) + "]\n"
            else:
                fm = f'paths: "{", ".join(globs)}"\n'
        elif agent == "copilot":
            path = f".github/instructions/{name.replace('/', '-')}.instructions.md"
            fm = f'applyTo: "{",".join(globs)}"\n'
        else:
            path = f".cursor/rules/{name.replace('/', '-')}.mdc"
            fm = f"description: {title}\nglobs: {','.join(globs)}\nalwaysApply: false\n"
        assert path not in self.files, path
        self.files[path] = f"---\n{fm}---\n\n{body}"
        self.rules.append(path)
        return path

    def live_glob(self, braces: bool = True) -> str:
        """A glob built from a real file, so it matches (`braces`: may use `{a,b}`, which
        Copilot's and Cursor's comma-separated lists cannot hold)."""
        src = self.pick(self.sources)
        parts = src.split("/")
        ext = posixpath.splitext(src)[1]
        r = self.rng.randrange(8)
        if not braces and r in (4, 6, 7):  # (and no trailing-slash directory glob)
            r = 2
        if r == 0 or len(parts) < 4:
            return src  # an exact path
        if r == 1:
            return f"{parts[0]}/{parts[1]}/**"
        if r == 2:
            return f"{'/'.join(parts[:4])}/**/*{ext}"
        if r == 3:
            return f"{parts[0]}/*/src/{parts[3]}/*{ext}"
        if r == 4:
            return f"{parts[0]}/{parts[1]}/src/{{{parts[3]},{self.pick(AREAS)}}}/**"
        if r == 5:
            return f"**/*{ext}"
        if r == 6:
            return f"{'/'.join(parts[:3])}/"
        return f"{parts[0]}/{parts[1]}/**/*.{{ts,tsx}}" if ext in (".ts", ".tsx") else \
            f"{parts[0]}/{parts[1]}/**/*{ext}"

    def dead_glob(self) -> tuple[str, str]:
        """A glob that matches nothing, and its kind."""
        rng = self.rng
        dirs = self.dir_list
        for _ in range(200):
            r = rng.random()
            if r < 0.5:  # one letter off a real directory, at any depth
                base = self.pick(dirs)
                parts = base.split("/")
                i = rng.randrange(len(parts))
                parts[i] = typo(rng, parts[i])
                bad = "/".join(parts)
                if "" in parts or bad in self.dirs:
                    continue
                kind, glob = "typo-dir", f"{bad}/{self.pick(('**', '**/*.ts', '*.py', '**/*'))}"
            elif r < 0.7:  # a real directory, an extension it has nowhere below it
                base = self.pick(dirs)
                ext = self.pick(WRONG_EXTS)
                kind, glob = "wrong-ext", f"{base}/**/*{ext}"
            elif r < 0.85:  # a directory that never existed (or has gone)
                d = self.pick(DEAD_DIRS)
                if rng.random() < 0.5:
                    d = f"packages/{self.pick(PKG_WORDS)}-{d}"
                kind, glob = "vanished-dir", f"{d}/**"
            elif r < 0.95:  # a real file with a typo in its name
                src = self.pick(self.sources)
                stem, ext = posixpath.splitext(posixpath.basename(src))
                kind, glob = "near-miss-file", f"{posixpath.dirname(src)}/{typo(rng, stem)}{ext}"
            else:
                kind, glob = "absent-ext", f"**/*{self.pick(DEAD_EXTS)}"
            if glob not in self._dead_seen and not self.matches(glob):
                self._dead_seen.add(glob)
                return kind, glob
        raise RuntimeError("no dead glob found")

    # ------------------------------------------------------------------ glob verification
    def prepare_matching(self) -> None:
        self.dir_list = sorted(self.dirs)
        ignored = set(self.ignored)
        self._tracked = sorted(p for p in self.files if p not in ignored)
        self._exts = {posixpath.splitext(p)[1] for p in self._tracked}
        self._dead_seen: set[str] = set()
        try:
            from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern
        except ImportError:
            self._to_regex = None
        else:
            self._to_regex = GitIgnoreBasicPattern.pattern_to_regex

    def matches(self, glob: str) -> bool:
        """Does `glob` match a tracked file (gitignore semantics)? Without pathspec, a
        conservative answer: only a glob naming an existing directory or file matches."""
        for pattern in expand_braces(glob):
            m = re.fullmatch(r"\*\*/\*(\.\w+)", pattern)
            if m:
                if m.group(1) in self._exts:
                    return True
                continue
            prefix = ""
            for part in pattern.split("/")[:-1]:
                if re.search(r"[*?\[]", part):
                    break
                prefix += part + "/"
            if self._to_regex is None:
                if pattern.rstrip("/") in self.dirs or pattern in self.files:
                    return True
                continue
            regex, _ = self._to_regex(pattern)
            if regex is None:
                continue
            compiled = re.compile(regex)
            lo = bisect.bisect_left(self._tracked, prefix)
            for path in self._tracked[lo:]:
                if not path.startswith(prefix):
                    break
                if compiled.match(path):
                    return True
        return False

    # ------------------------------------------------------------------ shapes
    def build(self) -> None:
        getattr(self, "shape_" + self.shape.replace("-", "_"))()
        self.common()
        if self.shape == "instructions":
            self.units = len(self.instructions)

    def shape_files(self) -> None:
        n = BASE_SOURCES * self.k
        for i in range(n):
            d = f"src/mod{i % 20:02d}"
            self.add_source(f"{d}/{self.pick(FILE_WORDS)}{i}{self.ext()}")
        self.units = n
        for i, glob in enumerate(("src/**/*.ts", "src/mod03/*.py", "**/*.test.ts",
                                  "src/mod1*/**", "src/mod07/index1.ts", "**/*.go")):
            self.rule_file("claude", f"scoped-{i}", [glob], f"Scoped {i}")

    def shape_dirs(self) -> None:
        n = BASE_SOURCES * self.k
        for i in range(n):
            d = f"dirs/d{i // 20:04d}/{self.pick(COMPONENT_WORDS)}{i}"
            self.add_source(f"{d}/index{self.ext()}")
        self.units = n
        self.prepare_matching()
        for i in range(3):
            self.rule_file("claude", f"live-{i}", [self.pick(("dirs/**/*.ts", "dirs/d00*/**",
                                                               "**/index.py"))], f"Live {i}")
        for i in range(5):  # typos of real directories: "did you mean" over every directory
            kind, glob = self.dead_glob()
            path = self.rule_file("claude", f"dead-{i}", [glob], f"Dead {i}")
            self.dead_globs.append({"rule": path, "glob": glob, "kind": kind})

    def shape_depth(self) -> None:
        branches, levels = 50, 40 * self.k
        rng = self.rng
        for b in range(branches):
            d = f"deep/b{b:02d}"
            for level in range(1, levels + 1):
                d = f"{d}/n{level}"
                self.add_source(f"{d}/m{level}{self.ext()}")
                if level % 8 == 0:
                    self.add_instruction(f"{d}/AGENTS.md", self.markdown(
                        f"Level {level}", rng.randrange(300, 700), []))
                if level % 16 == 8:  # the common pattern: CLAUDE.md imports AGENTS.md
                    self.add_instruction(f"{d}/CLAUDE.md", "@AGENTS.md\n")
                    self.imports += 1
        self.units = branches * levels
        for i, glob in enumerate(("deep/**/*.ts", "deep/b07/**", "**/n3*/**", "deep/*/n1/*.py",
                                  "deep/b1*/**/*.go")):
            self.rule_file("claude", f"deep-{i}", [glob], f"Deep {i}")

    def docs(self, count: int) -> list[str]:
        out = []
        for i in range(count):
            path = f"docs/guides/{self.pick(FILE_WORDS)}-{i}.md"
            self.files[path] = f"# Guide {i}\n\n{self.prose(4)}\n"
            out.append(path)
        return out

    def shape_instructions(self) -> None:
        rng = self.rng
        pkgs = self.monorepo_sources(BASE_SOURCES * self.k)
        guides = self.docs(20 * self.k)
        target = 200 * self.k
        self.add_instruction("AGENTS.md", self.markdown("Workspace", 1500, [guides[0]]))
        self.add_instruction("GEMINI.md", self.markdown("Gemini", 600, ["AGENTS.md"]))
        self.add_instruction(".github/copilot-instructions.md", self.markdown("Copilot", 600, []))
        slots: list[str] = []
        for p in pkgs:  # every package root gets an AGENTS.md and a CLAUDE.md
            slots += [f"packages/{p}/AGENTS.md", f"packages/{p}/CLAUDE.md"]
        extra = []
        for d in sorted(self.dirs):
            if d.count("/") >= 2:
                extra += [f"{d}/{name}" for name in INSTRUCTION_NAMES]
        rng.shuffle(extra)
        slots += extra
        # (- 1: common() adds the root CLAUDE.md)
        slots = [s for s in slots if s not in self.files][: target - len(self.instructions) - 1]
        chosen = set(slots)
        for path in sorted(slots):
            d = posixpath.dirname(path).removesuffix("/.claude")
            name = path[len(d) + 1:]
            imports: list[str] = []
            if name == "CLAUDE.md" and f"{d}/AGENTS.md" in chosen and rng.random() < 0.6:
                self.add_instruction(path, "@AGENTS.md\n" + (
                    self.markdown("Claude", 300, []) if rng.random() < 0.3 else ""))
                self.imports += 1
                continue
            if rng.random() < 0.4:
                for g in rng.sample(guides, rng.randrange(1, 4)):
                    if rng.random() < 0.02:  # a typo: broken, with a suggestion to find
                        stem = posixpath.basename(g)[:-3]
                        g = f"{posixpath.dirname(g)}/{typo(rng, stem)}.md"
                        self.broken_imports += 1
                    imports.append(self.rel(path, g))
            self.imports += len(imports)
            self.add_instruction(path, self.markdown(d, rng.randrange(300, 2500), imports))
        self.imports += 2 + 1  # the root AGENTS.md and GEMINI.md, and common()'s CLAUDE.md

    def shape_rules(self) -> None:
        self.monorepo_sources(BASE_SOURCES * self.k)
        self.prepare_matching()
        self.add_instruction(".github/copilot-instructions.md", self.markdown("Copilot", 600, []))
        n = 200 * self.k
        for i in range(n):
            agent = "claude" if i % 10 < 8 else ("copilot" if i % 10 == 8 else "cursor")
            globs = list(dict.fromkeys(self.live_glob(agent == "claude")
                                       for _ in range(self.rng.choice((1, 1, 2, 3)))))
            for g in globs:
                self.live_globs.append({"rule": str(i), "glob": g, "kind": "live"})
            if self.rng.random() < 0.05:
                kind, glob = self.dead_glob()
                globs.append(glob)
                self.dead_globs.append({"rule": str(i), "glob": glob, "kind": kind})
            topic = self.pick(AREAS)
            self.rule_file(agent, f"{topic}/{i:04d}-{self.pick(FILE_WORDS)}", globs,
                           f"{topic.capitalize()} rule {i}")
        self.units = n

    def shape_dead_globs(self) -> None:
        self.monorepo_sources(BASE_SOURCES * self.k)
        self.prepare_matching()
        n_rules = 50 * self.k
        for i in range(n_rules):
            r = i % 20
            agent = "claude" if r < 14 else ("copilot" if r < 17 else "cursor")
            globs = []
            for _ in range(4):
                kind, glob = self.dead_glob()
                globs.append(glob)
                self.dead_globs.append({"rule": str(i), "glob": glob, "kind": kind})
            if i % 3 == 0:
                g = self.live_glob(agent == "claude")
                globs.append(g)
                self.live_globs.append({"rule": str(i), "glob": g, "kind": "live"})
            topic = self.pick(AREAS)
            self.rule_file(agent, f"{topic}/{i:04d}-{self.pick(FILE_WORDS)}", globs,
                           f"{topic.capitalize()} rule {i}")
        self.units = len(self.dead_globs)

    def shape_fanout(self) -> None:
        rng = self.rng
        pkgs = self.monorepo_sources(BASE_SOURCES * self.k)
        n_hub = 1000 * self.k
        n_fan = 200 * self.k  # files importing the same 5 shared docs
        for i, name in enumerate(SHARED):
            nxt = SHARED[i + 1] if i + 1 < len(SHARED) else None
            self.files[f"docs/shared/{name}.md"] = (
                f"# {name.capitalize()}\n\n{self.prose(5)}\n"
                + (f"\nSee also @{nxt}.md for the next topic.\n" if nxt else ""))
        self.imports += len(SHARED) - 1
        hub = "docs/INDEX.md"
        lines = ["# Index", "", "Every module, for the agent to read first:", ""]
        for target in sorted(rng.sample(self.sources, n_hub)):
            ref = self.rel(hub, target)
            if rng.random() < 0.01:
                stem, ext = posixpath.splitext(ref)
                ref = f"{posixpath.dirname(stem)}/{typo(rng, posixpath.basename(stem))}{ext}"
                self.broken_imports += 1
            lines.append(f"- `{posixpath.basename(target)}`: @{ref}")
            self.imports += 1
        self.files[hub] = "\n".join(lines) + "\n"
        self.add_instruction("AGENTS.md", self.markdown("Workspace", 900, [hub]))
        self.imports += 1
        slots = [f"packages/{p}/{n}" for p in pkgs for n in ("AGENTS.md", "CLAUDE.md")]
        slots += [f"{d}/AGENTS.md" for d in sorted(self.dirs) if d.count("/") >= 3]
        for path in sorted(slots[:n_fan]):
            imports = [self.rel(path, f"docs/shared/{s}.md") for s in SHARED]
            self.add_instruction(path, self.markdown(posixpath.dirname(path),
                                                     rng.randrange(200, 600), imports))
            self.imports += len(imports)
        self.units = self.imports

    # ------------------------------------------------------------------ output
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

    def verify(self) -> dict[str, object]:
        if not hasattr(self, "_tracked"):
            self.prepare_matching()
        else:  # rules and instruction files were added since: re-list
            ignored = set(self.ignored)
            self._tracked = sorted(p for p in self.files if p not in ignored)
        if self._to_regex is None:
            return {"verified": False}
        problems = [f"dead glob matches: {g['glob']}" for g in self.dead_globs
                    if self.matches(g["glob"])]
        problems += [f"live glob matches nothing: {g['glob']}" for g in self.live_globs
                     if not self.matches(g["glob"])]
        return {"verified": True, "problems": problems}

    def summary(self, seed: int, check: dict[str, object]) -> dict[str, object]:
        depths = [d.count("/") + 1 for d in self.dirs] or [0]
        return {
            "generator": "gen_shapes",
            "generator_version": GENERATOR_VERSION,
            "shape": self.shape,
            "scale": self.k,
            "seed": seed,
            "unit": UNITS[self.shape],
            "units": self.units,
            "files": {
                "source_files": len(self.sources),
                "directories": len(self.dirs),
                "max_depth": max(depths),
                "instruction_files": len(self.instructions),
                "rules": len(self.rules),
                "rules_by_agent": dict(sorted(Counter(
                    r.split("/")[0] for r in self.rules).items())),
                "imports": self.imports,
                "broken_imports": self.broken_imports,
                "dead_globs": len(self.dead_globs),
                "dead_globs_by_kind": dict(sorted(Counter(
                    g["kind"] for g in self.dead_globs).items())),
                "live_globs": len(self.live_globs),
                "ignored_files": len(self.ignored),
                "tracked": len(self.files) - len(self.ignored),
                "total_on_disk": len(self.files),
            },
            "globs": {k: v for k, v in check.items() if k != "problems"},
        }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Shapes and units: " + "; ".join(f"{s}: {u}" for s, u in UNITS.items()),
    )
    ap.add_argument("dest", metavar="DEST")
    ap.add_argument("--shape", choices=SHAPES, required=True)
    ap.add_argument("--scale", type=int, default=1, help="K: 1 = the base size, 10 = 10x (1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--git", action="store_true", help="git init + add + commit (fixed dates)")
    ap.add_argument("--force", action="store_true",
                    help="replace DEST if it is a tree a benchmark generator wrote")
    ap.add_argument("--quiet", action="store_true", help="no summary on stderr")
    args = ap.parse_args(argv)
    if not 1 <= args.scale <= 100:
        ap.error("--scale must be between 1 and 100")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    dest = os.path.abspath(args.dest)
    prepare_dest(dest, args.force, "gen_shapes")
    g = Shape(args.shape, args.scale, args.seed)
    g.build()
    check = g.verify()
    g.write(dest)
    summary = g.summary(args.seed, check)
    with open(os.path.join(dest, MANIFEST), "w", encoding="utf-8") as fh:
        json.dump({"summary": summary, "glob_problems": check.get("problems", []),
                   "dead_globs": g.dead_globs[:200]}, fh, indent=2, sort_keys=True)
        fh.write("\n")
    commit = git_commit(dest, f"shape {args.shape} x{args.scale}") if args.git else None
    if not args.quiet:
        f = summary["files"]
        assert isinstance(f, dict)
        problems = check.get("problems") or []
        assert isinstance(problems, list)
        verified = ("globs verified" if check.get("verified") else "globs not verified") + (
            f" ({len(problems)} PROBLEMS: {problems[:3]})" if problems else "")
        print(f"gen_shapes: {args.shape} x{args.scale}: {g.units:,} {UNITS[args.shape]}; "
              f"{f['source_files']:,} source files in {f['directories']:,} dirs (depth "
              f"{f['max_depth']}), {f['instruction_files']:,} instruction files, "
              f"{f['rules']:,} rules, {f['imports']:,} imports, {f['dead_globs']:,} dead globs; "
              f"{verified}{', git ' + commit[:12] if commit else ''} -> {dest}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
