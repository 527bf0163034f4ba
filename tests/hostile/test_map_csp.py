"""The map page's Content-Security-Policy (docs/security.md, "The map page's
Content-Security-Policy"): the page `rulemap map --html` writes and `rulemap/map` answers
carries a strict policy as its first active element — nothing runs or styles the page without
the render's own nonce, a fresh one each time, whatever names the repository holds — so that
one escaping bug in the page is not script execution inside the editor.

The browser tests (tests/browser/test_map_page.py) and the VS Code end-to-end test
(client-vscode/e2e/run.mjs) show the policy enforced, with no violation while the page works."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from tests.cli_runner import git_tree
from tests.lsp.conftest import open_doc, plain, pulled, session, write

from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile
from rulemap.readers import MemoryReader
from rulemap.repo_map import build_map
from rulemap.repo_map.page import render_page

REPO = Path(__file__).resolve().parents[2]
# names that would be markup, an event handler, a style or a policy of their own if one
# escaping step failed
HOSTILE = '"><img src=x onerror=alert(1) style="color:red"><style>*{}</style>'
FILES = {
    "AGENTS.md": (
        "# Project\n\nSee @docs/style.md and @docs/</script><script>alert(1)</script>.md\n"
        '<meta http-equiv="Content-Security-Policy" content="script-src *">\n'),
    "docs/style.md": "Four spaces.\n",
    f"src/{HOSTILE}/AGENTS.md": "# nested <script>alert(2)</script>\n",
    ".claude/rules/x.md": '---\npaths: ["src/**/<b onmouseover=alert(3)>"]\n---\nRule.\n',
    "src/a.ts": "",
}
# what the page itself holds: its style and the graph library's, the data, the library, the app
SCRIPTS, STYLES = 3, 2


class _Elements(HTMLParser):
    """Every start tag of a page, in order, with its attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    handle_startendtag = handle_starttag


def _elements(page: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Elements()
    parser.feed(page)
    parser.close()
    return parser.tags


def policy_of(page: str) -> tuple[dict[str, list[str]], list[tuple[str, dict[str, str]]]]:
    """The page's one CSP meta tag, parsed (directive -> tokens), and the page's elements;
    asserts that the tag is in the head before any element that loads or runs anything."""
    tags = _elements(page)
    metas = [i for i, (tag, a) in enumerate(tags)
             if tag == "meta" and a.get("http-equiv", "").lower() == "content-security-policy"]
    assert len(metas) == 1, f"one CSP meta tag, not {len(metas)}"
    first_active = min(i for i, (tag, _) in enumerate(tags)
                       if tag in ("script", "style", "link", "base", "body", "img"))
    assert metas[0] < first_active, "the policy comes before anything it governs"
    directives: dict[str, list[str]] = {}
    for part in tags[metas[0]][1]["content"].split(";"):
        words = part.split()
        if words:
            directives.setdefault(words[0].lower(), words[1:])
    return directives, tags


def check_strict(page: str, images: list[str]) -> str:
    """Asserts the page's policy and nonces are what docs/security.md promises; its nonce."""
    directives, tags = policy_of(page)
    assert directives["default-src"] == ["'none'"]
    nonce_tokens = directives["script-src"]
    assert len(nonce_tokens) == 1 and re.fullmatch(r"'nonce-[A-Za-z0-9_-]{22,}'",
                                                   nonce_tokens[0]), nonce_tokens
    nonce = nonce_tokens[0][len("'nonce-"):-1]
    assert directives["style-src"] == nonce_tokens
    assert directives["img-src"] == ["data:", *images]
    assert directives["base-uri"] == ["'none'"] and directives["form-action"] == ["'none'"]
    assert "unsafe" not in page[:page.index("<title")]
    scripts = [a for t, a in tags if t == "script"]
    styles = [a for t, a in tags if t == "style"]
    assert (len(scripts), len(styles)) == (SCRIPTS, STYLES), "an element the page did not make"
    assert all(a.get("nonce") == nonce for a in scripts + styles)
    # a strict style-src refuses style="…" and every on…= handler: the page has none
    handlers = [(t, k) for t, a in tags for k in a if k == "style" or k.startswith("on")]
    assert handlers == []
    return nonce


def test_the_page_carries_a_strict_policy_and_every_element_its_nonce() -> None:
    ws = new_workspace(MemoryReader("/w", FILES))
    data = build_map(ws, [get_profile("cogitator"), get_profile("claude-code")], "")
    assert any(HOSTILE in p for p in data["paths"])  # the hostile names are in the data
    first = check_strict(render_page(data), [])
    second = check_strict(render_page(data), [])
    assert first != second, "a fresh nonce for each page"
    # the editor's webview names its own source for images
    source = "https://*.vscode-cdn.net"
    check_strict(render_page(data, image_sources=[source]), [source])


def test_the_standalone_page_carries_the_policy(tmp_path: Path) -> None:
    root = git_tree(tmp_path, FILES)
    nonces = []
    for name in ("one.html", "two.html"):
        subprocess.run([sys.executable, "-m", "rulemap", "map", "--html", str(tmp_path / name),
                        "--root", str(root)], check=True, capture_output=True, text=True,
                       env={"PYTHONPATH": str(REPO / "server"), "HOME": str(tmp_path)})
        nonces.append(check_strict((tmp_path / name).read_text(encoding="utf-8"), []))
    assert nonces[0] != nonces[1]


def _page(answer: Any) -> str:
    assert isinstance(answer, dict) and isinstance(answer.get("html"), str), answer
    return answer["html"]


async def test_the_editor_s_page_names_its_image_source_and_refuses_a_forged_one(
        tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "# Project\n", "src/a.ts": ""})
    async with session(tmp_path, "vscode") as lsp:
        uri = open_doc(lsp, tmp_path / "AGENTS.md")
        await pulled(lsp, uri, lambda c: c == [])
        source = "https://*.vscode-cdn.net"
        got = plain(await lsp.protocol.send_request_async(
            "rulemap/map", {"uri": uri, "cspSource": source}))
        first = check_strict(_page(got), [source])
        again = plain(await lsp.protocol.send_request_async(
            "rulemap/map", {"uri": uri, "cspSource": source}))
        assert check_strict(_page(again), [source]) != first
        # code-server's webviews name their own origin
        check_strict(_page(plain(await lsp.protocol.send_request_async(
            "rulemap/map", {"uri": uri, "cspSource": "'self'"}))), ["'self'"])
        # without one (an older client): images from data: only
        check_strict(_page(plain(await lsp.protocol.send_request_async(
            "rulemap/map", {"uri": uri}))), [])
        # a source that would widen or end the policy, or leave the attribute, is refused
        for forged in ("https://x.test; script-src 'unsafe-inline'", "'unsafe-inline'", "*",
                       "'self' 'unsafe-eval'", "'none'", "'nonce-abc'",
                       "https:", 'https://x.test"><script>alert(1)</script>', "https://a,b",
                       "data:", "https://x.test\nscript-src *", 7, ["https://x.test"]):
            with pytest.raises(Exception, match="cspSource"):
                await lsp.protocol.send_request_async(
                    "rulemap/map", {"uri": uri, "cspSource": forged})
