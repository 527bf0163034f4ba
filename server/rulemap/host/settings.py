"""The configuration as the edges see it: its file names, its errors, the allow-list syntax.

`rulemap.config` reads `rulemap.toml`/`.rulemap.json` and the user's own file; the CLI names
the configuration files in its messages and the language server validates the editor's
`allowImportsFrom` the same way. Handed to the edges here so that `cli/` and `lsp/` import
nothing past `rulemap.host` and `rulemap.model`.
"""

from __future__ import annotations

from rulemap.config import (
    CONFIG_FILES,
    Config,
    ConfigError,
    load_user_config_text,
    parse_allow_list,
)

__all__ = [
    "CONFIG_FILES", "Config", "ConfigError", "check_setting", "load_user_config_text",
    "parse_allow_list", "setting_keys",
]


def setting_keys() -> tuple[str, ...]:
    """Every top-level key of rulemap.toml (and of an editor's `rulemap` settings): Rulemap's
    own, then the options profiles take (the engine, imported when asked)."""
    from rulemap.analysis import setting_keys as keys

    return keys()


def check_setting(key: str, value: object, source: str) -> None:
    """Raise ConfigError when `key = value` is not a valid top-level setting."""
    from rulemap.analysis import check_setting as check

    check(key, value, source)
