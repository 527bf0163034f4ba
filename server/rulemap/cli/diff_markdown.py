"""`rulemap diff --format markdown`: one pull-request comment.

A summary table (per agent: files whose load changes, the start-up load, findings), then the
groups — the first `OPEN_GROUPS` open, the rest inside one collapsed `<details>`, each group's
file list collapsed too — then new and fixed findings. The whole stays under `LIMIT`
characters (GitHub refuses a comment over 65,536): what does not fit ends in one
"… N more" line pointing at `--json`. The first line is a marker the GitHub Action finds to
update its comment instead of adding one per push.
"""

from __future__ import annotations

from rulemap.cli.diff_phrases import CHANGES_SHOWN, areas_of, headline, no_change, where_of
from rulemap.host.diffing import WORKTREE, Change, Diff, FindingChange, Group, counts_by_profile

MARKER = "<!-- rulemap-diff -->"
LIMIT = 60_000
OPEN_GROUPS = 10  # groups shown open; the rest collapse
FILES_LISTED = 50  # per group's collapsed file list
FINDINGS_LISTED = 50  # per side


def render_markdown(d: Diff, limit: int = LIMIT) -> str:
    after = d.head if d.head == WORKTREE else f"`{d.head}`"
    head = [MARKER, f"### Rulemap: what agents load, `{d.base}` → {after}", ""]
    if not d.changed:
        return "\n".join([*head, no_change(d), ""])
    head += [headline(d) + ".", "", *_summary_table(d), ""]
    sections: list[str] = []
    for index, g in enumerate(d.groups):
        if index == OPEN_GROUPS:
            rest = len(d.groups) - OPEN_GROUPS
            sections.append(f"<details><summary>{rest:,} more change group"
                            f"{'s' if rest != 1 else ''}</summary>\n")
        sections.append(_group(g))
    if len(d.groups) > OPEN_GROUPS:
        sections.append("</details>\n")
    sections.extend(_findings(d))
    refs = d.base if d.head == WORKTREE else f"{d.base} {d.head}"
    return _fit(head, sections, limit, refs)


def _summary_table(d: Diff) -> list[str]:
    counts = counts_by_profile(d.groups)
    startup = {p for g in d.groups if g.startup for p in g.profiles}
    rows = ["| agent | files whose load changes | start-up load |", "|---|---:|---|"]
    for p in d.profiles:
        rows.append(f"| {p} | {counts.get(p, 0):,} | {'changes' if p in startup else '—'} |")
    rows += ["", f"**Findings of `rulemap check`:** {len(d.new_findings):,} new, "
                 f"{len(d.fixed_findings):,} fixed."]
    return rows


def _group(g: Group) -> str:
    title = f"#### {_code_paths(where_of(g))} — {', '.join(g.profiles)}"
    lines = [title, ""]
    lines += [f"- {_code_change(c)}" for c in g.changes[:CHANGES_SHOWN]]
    if len(g.changes) > CHANGES_SHOWN:
        lines.append(f"- … {len(g.changes) - CHANGES_SHOWN:,} more changes (`rulemap diff --json`)")
    areas = areas_of(g)
    if areas:
        lines += ["", f"In {areas}."]
    if len(g.files) > 3:
        shown = g.files[:FILES_LISTED]
        items = "\n".join(f"- `{f}`" for f in shown)
        more = len(g.files) - len(shown)
        if more:
            items += f"\n- … {more:,} more (`rulemap diff --json` lists all)"
        lines += ["", f"<details><summary>{len(g.files):,} files</summary>", "", items, "",
                  "</details>"]
    return "\n".join(lines) + "\n"


def _code_change(c: Change) -> str:
    return c.phrase().replace(c.path, f"`{c.path}`", 1)


def _code_paths(where: str) -> str:
    """Directories and files of a group's title in code spans."""
    words = []
    for word in where.split(" "):
        bare = word.rstrip(",")
        if ("/" in bare or "." in bare.strip("()")) and not bare.startswith("("):
            word = f"`{bare}`" + word[len(bare):]
        words.append(word)
    return " ".join(words)


def _findings(d: Diff) -> list[str]:
    out: list[str] = []
    for label, found in (("New findings", d.new_findings), ("Fixed findings", d.fixed_findings)):
        if not found:
            continue
        rows = [f"#### {label} ({len(found):,})", "", "| file | severity | code | message |",
                "|---|---|---|---|"]
        rows += [_finding_row(f) for f in found[:FINDINGS_LISTED]]
        if len(found) > FINDINGS_LISTED:
            rows.append(f"\n… {len(found) - FINDINGS_LISTED:,} more (`rulemap diff --json`)")
        out.append("\n".join(rows) + "\n")
    return out


def _finding_row(f: FindingChange) -> str:
    message = f.message.replace("|", "\\|").replace("\n", " ")
    return f"| `{f.path}:{f.line}` | {f.severity} | `{f.code}` | {message} |"


def _fit(head: list[str], sections: list[str], limit: int, refs: str) -> str:
    """The head and as many whole sections as fit in `limit`, then a "… N more" line."""
    text = "\n".join(head) + "\n"
    reserve = 200  # the closing line, and a `</details>` left open
    for index, section in enumerate(sections):
        if len(text) + len(section) + 1 > limit - reserve:
            left = len(sections) - index
            opened = sum(s.startswith("<details><summary>") and "change group" in s
                         for s in sections[:index])
            closed = sum(s == "</details>\n" for s in sections[:index])
            if opened > closed:
                text += "</details>\n\n"
            text += (f"… {left:,} more section{'s' if left != 1 else ''} not shown: the "
                     f"comment is limited to {limit:,} characters; run `rulemap diff "
                     f"{refs} --json` for everything.\n")
            return text
        text += "\n" + section
    return text
