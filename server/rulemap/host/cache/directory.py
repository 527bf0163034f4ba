"""Where the caches live, whether they are on, and whether their directory may be trusted.

Both edges ask it: `rulemap check`'s result cache and the language server's start cache keep
their entries side by side, in `$RULEMAP_CACHE_DIR`, else `$XDG_CACHE_HOME/rulemap` (default
`~/.cache/rulemap`), never in a workspace. A directory another user could write in is not
used at all (docs/security.md, "The result cache trusts only the user's own entries"): the
edge says so once, in the words of `warning`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

DIR_ENV = "RULEMAP_CACHE_DIR"
OFF_ENV = "RULEMAP_NO_CACHE"
# what a check reads from the environment, besides the cache's own variables: part of every
# key, the language server's too
ENV_READ = (
    "HOME", "XDG_CONFIG_HOME", "RULEMAP_CONFIG", "COLUMNS", "RULEMAP_GIT_LIST",
    "RULEMAP_GIT_TIMEOUT",
    # the platform assumed when neither `--platform` nor the configuration names one
    # (config.host_platform; the host's own system is the same for every entry of a cache)
    "RULEMAP_PLATFORM",
    # `--color auto` reads them: a report coloured under one is not replayed under another
    "NO_COLOR", "FORCE_COLOR", "TERM",
)


def cache_dir(env: Mapping[str, str]) -> str:
    """$RULEMAP_CACHE_DIR, else $XDG_CACHE_HOME/rulemap (absolute, as XDG wants), else
    ~/.cache/rulemap."""
    explicit = env.get(DIR_ENV)
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    base = env.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rulemap")


def cache_off(env: Mapping[str, str]) -> bool:
    """Whether the environment turns the caches off: RULEMAP_NO_CACHE, or the listing from
    git (RULEMAP_GIT_LIST), which depends on git's index, which no entry records."""
    return (env.get(OFF_ENV, "") not in ("", "0")
            or env.get("RULEMAP_GIT_LIST", "").strip() not in ("", "0"))


def problem(directory: str) -> str | None:
    """Why `directory` may not hold the cache, in words for `warning`; None when it may (the
    user's own and writable by nobody else, or not there yet: it is created mode 0700)."""
    from rulemap.readers.cache_entries import directory_problem

    return directory_problem(directory)


def warning(directory: str, problem: str, what: str) -> str:
    """The warning that `what` (the result cache, the start cache) is not kept in
    `directory`, for `problem`, and what to do about it."""
    if problem.startswith("its group") or (problem.startswith("anyone")
                                            and "mode 1" not in problem):
        fix = f"run `chmod go-w {directory}`, or set {DIR_ENV} to a directory of your own"
    else:
        fix = f"set {DIR_ENV} to a directory of your own (it is created with mode 0700)"
    return (f"the {what} is not used: {directory}: {problem}, and another user who can "
            f"write there could plant a result; {fix}")


def entry_name(key: Mapping[str, Any]) -> str:
    """The file name of the entry of `key` (a JSON object): its digest."""
    from rulemap.readers import cache_entries, check_store

    return cache_entries.entry_name(
        check_store.digest(json.dumps(key, sort_keys=True).encode("ascii")))
