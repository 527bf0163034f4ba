"""Every `rulemap check` the tests run (in process or as a child) keeps its result cache in a
directory of this session, never in the user's `~/.cache/rulemap` — and the suite still runs
with the cache on, as users do (tests/core/test_check_cache.py pins its own directory). Every
test assumes Linux unless it names a platform ($RULEMAP_PLATFORM)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_CACHE_ENV = "RULEMAP_CACHE_DIR"
# The platform every test assumes unless it names one (`--platform`, `platform`): Linux, so
# that what the tests pin is the same on a Mac, on Windows and on Linux CI
# (config.host_platform reads it before the host's own system).
_PLATFORM_ENV = "RULEMAP_PLATFORM"
_made: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault(_PLATFORM_ENV, "linux")
    if _CACHE_ENV not in os.environ:
        directory = tempfile.mkdtemp(prefix="rulemap-test-cache-")
        _made.append(directory)
        os.environ[_CACHE_ENV] = directory


def pytest_unconfigure(config: pytest.Config) -> None:
    for directory in _made:
        shutil.rmtree(directory, ignore_errors=True)
        if os.environ.get(_CACHE_ENV) == directory:
            del os.environ[_CACHE_ENV]
