"""The user's own configuration file, asked for by both edges (the CLI and the language server).

`$RULEMAP_CONFIG` (a file) if set, else `$XDG_CONFIG_HOME/rulemap/config.toml` (default
`~/.config/rulemap/config.toml`). It holds what only the user may grant, today
`allowImportsFrom`; a repository's `rulemap.toml` cannot (docs/security.md). The parsing is
`rulemap.config.load_user_config_text`; the file is read through `readers/host.py`. Here, under
the host, so that neither edge imports the other for it; light (no engine module): the language
server's start cache asks `user_config_path` before the engine is imported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from rulemap.host.disk import ReadError, read_user_file
from rulemap.host.settings import ConfigError, load_user_config_text, parse_allow_list

ENV_VAR = "RULEMAP_CONFIG"


def user_config_path(env: Mapping[str, str] | None = None) -> tuple[str, bool]:
    """(the path of the user's configuration file, whether $RULEMAP_CONFIG named it)."""
    env = os.environ if env is None else env
    explicit = env.get(ENV_VAR)
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit)), True
    base = env.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: the XDG default
        base = os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "rulemap", "config.toml"), False


def read_user_grants(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The directories the user's configuration file lets imports read outside the workspace
    (() without a file). Raises ConfigError naming the file for an unusable one, and when
    $RULEMAP_CONFIG names a file that does not exist."""
    path, explicit = user_config_path(env)
    try:
        # a FIFO in its place must not hang us: only a regular file is opened
        data = read_user_file(path)
    except ReadError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None
    if data is None:
        if explicit:
            raise ConfigError(f"{path} ({ENV_VAR}): no such file")
        return ()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: cannot be read: it is not UTF-8") from None
    return load_user_config_text(text, path)


def flag_grants(values: Iterable[str] | None, cwd: str | None = None) -> tuple[str, ...]:
    """`--allow-imports-from DIR` values: `~` and `~/...` kept (expanded with the home
    directory, as everywhere), other relative paths resolved against the current directory."""
    out: list[str] = []
    for value in values or ():
        if value == "~" or value.startswith("~/") or value.startswith("/"):
            out.append(value)
        else:
            out.append(os.path.abspath(os.path.join(cwd or os.getcwd(), value)))
    return parse_allow_list(out, "--allow-imports-from")


def merge_grants(*grants: Iterable[str]) -> tuple[str, ...]:
    """Every granted directory once, in the order given."""
    return tuple(dict.fromkeys(g for group in grants for g in group))
