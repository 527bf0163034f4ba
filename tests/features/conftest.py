from __future__ import annotations

from collections.abc import Iterator

import pytest

from rulemap.lsp.features import _util


@pytest.fixture(autouse=True)
def _features_raise() -> Iterator[None]:
    """Feature functions swallow exceptions for the server; in these tests a bug must fail."""
    previous = _util.RAISE
    _util.RAISE = True
    yield
    _util.RAISE = previous
