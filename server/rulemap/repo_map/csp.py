"""The map page's Content-Security-Policy (docs/security.md): nothing but the page's own
elements, each carrying the render's nonce, runs or styles it; images only from `data:` and
the sources the editor names for its webview; nothing loaded, fetched, framed or submitted.

The page escapes what it shows; the policy is what still holds if an escaping step ever
fails: a name that became markup could neither run (no nonce) nor style anything (no
`'unsafe-inline'`, so no `style="…"` attribute either), nor load anything."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence

NONCE_BYTES = 18  # 144 random bits, spelled in 24 base64url characters (a CSP base64-value)
MAX_SOURCES = 8

# one host source, `scheme://host[:port][/path]` (RFC 3986's characters only), or `'self'`: what
# VS Code's `webview.cspSource` is (`https://*.vscode-cdn.net` on the desktop; `'self'` in
# code-server, which serves webviews from its own origin). Other keywords ('unsafe-…'), bare
# schemes (`https:`, `data:`) and `*` are refused: each would let the page load far more than
# its editor's own resources.
_HOST_SOURCE = re.compile(
    r"[a-z][a-z0-9+.-]*://"
    r"(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*"
    r"(:(\d{1,5}|\*))?"
    r"(/[a-z0-9._~%/-]*)?",
    re.IGNORECASE)


class SourceRefused(ValueError):
    """A source that is not one host source the policy can name."""


def new_nonce() -> str:
    """A fresh nonce for one render of the page (never reused: a page's nonce is in its
    text, so a fixed one would be known to whoever wrote a name into it)."""
    return secrets.token_urlsafe(NONCE_BYTES)


def image_sources(value: str) -> list[str]:
    """The sources of `value` (separated by spaces), each checked; SourceRefused names the
    first that is neither a plain host source nor `'self'`."""
    words = value.split(" ")
    if not value or len(words) > MAX_SOURCES:
        raise SourceRefused(f"between 1 and {MAX_SOURCES} host sources separated by spaces")
    for word in words:
        if word != "'self'" and not _HOST_SOURCE.fullmatch(word):
            raise SourceRefused(f"{word!r} is not a host source (scheme://host[:port][/path]) "
                                "nor 'self'")
    return words


def policy(nonce: str, images: Sequence[str] = ()) -> str:
    """The page's policy: scripts and styles by `nonce` only, images from `data:` and
    `images` (checked by `image_sources`), nothing else; `base-uri` and `form-action`, which
    `default-src` does not cover, closed too."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{22,}", nonce):
        raise ValueError("a nonce of at least 128 bits in base64url")
    for source in images:
        image_sources(source)
    return "; ".join((
        "default-src 'none'",
        f"script-src 'nonce-{nonce}'",
        f"style-src 'nonce-{nonce}'",
        " ".join(("img-src data:", *images)),
        "base-uri 'none'",
        "form-action 'none'",
    ))
