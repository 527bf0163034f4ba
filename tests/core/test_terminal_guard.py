"""The CLI's terminal guard (cli/terminal.py), as properties over any text: what it lets
through carries no control character a terminal acts on, JSON keeps its value, and text
without control characters is untouched."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from rulemap.cli.terminal import json_output, terminal_output, terminal_text

RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")
SGR = re.compile("\x1b\\[[0-9;]*m")
# text rich with what a repository could plant: controls, escapes, CR/LF, bidi, surrogates
TEXT = st.lists(st.one_of(
    st.characters(max_codepoint=0xA0),
    st.sampled_from(["\x1b[", "\x1b]0;", "\x07", "\x9b", "\r", "\r\n", "\u202e", "\u2066",
                     "\udcff", "é", "[1m", "\x1b[1m", "\x1b[8m"]),
), max_size=40).map("".join)


@given(TEXT)
def test_terminal_text_lets_no_control_through(text: str) -> None:
    shown = terminal_text(text)
    assert RAW.search(shown) is None and "\x1b" not in shown
    assert terminal_text(shown) == shown  # once is enough


@given(TEXT)
def test_styles_are_the_only_escapes_that_pass(text: str) -> None:
    # (a repository's own style sequence is escaped where it becomes a table's cell, by
    # terminal_text: test_terminal_escapes.py)
    assert RAW.search(SGR.sub("", terminal_output(text))) is None


@given(st.text().filter(lambda t: RAW.search(t) is None and "\x1b" not in t))
def test_text_without_controls_is_untouched(text: str) -> None:
    assert terminal_output(text) == text
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert terminal_text(text) == text


@given(st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), TEXT),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(TEXT, inner, max_size=4), max_leaves=12))
def test_json_keeps_its_value_and_carries_no_raw_control(value: object) -> None:
    text = json.dumps(value, ensure_ascii=False)
    guarded = json_output(text)
    assert json.loads(guarded) == json.loads(text)
    assert RAW.search(guarded) is None


def test_the_streams_error_handler_is_the_hosts() -> None:
    """The CLI spells the handler's name itself (no engine at start-up): the host's name."""
    from rulemap.cli.terminal import OUTPUT_ERRORS
    from rulemap.host.text import ERROR_HANDLER

    assert OUTPUT_ERRORS == ERROR_HANDLER
