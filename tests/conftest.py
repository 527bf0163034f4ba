"""Every `rulemap check` the tests run (in process or as a child) keeps its result cache in a
directory of this session, never in the user's `~/.cache/rulemap` — and the suite still runs
with the cache on, as users do (tests/core/test_check_cache.py pins its own directory)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_CACHE_ENV = "RULEMAP_CACHE_DIR"
_made: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    if _CACHE_ENV not in os.environ:
        directory = tempfile.mkdtemp(prefix="rulemap-test-cache-")
        _made.append(directory)
        os.environ[_CACHE_ENV] = directory


def pytest_unconfigure(config: pytest.Config) -> None:
    for directory in _made:
        shutil.rmtree(directory, ignore_errors=True)
        if os.environ.get(_CACHE_ENV) == directory:
            del os.environ[_CACHE_ENV]
