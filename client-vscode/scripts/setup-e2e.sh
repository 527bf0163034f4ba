#!/usr/bin/env bash
# Installs what `npm run test:e2e` needs on a fresh Debian 12 machine (Node 20 and npm present):
# Debian's Chromium, code-server 4.100.3 (via install-code-server.sh beside this script), the
# npm dependencies of client-vscode, and a Python environment with Rulemap installed.
# Idempotent; prints one line when everything is already there. Reaches Debian's apt
# repositories (as root, or with sudo for Chromium), the npm registry and PyPI; never GitHub.
#
#   RULEMAP_CODE_SERVER_PREFIX  code-server prefix (default: ~/.cache/rulemap-e2e/code-server)
#   RULEMAP_PYTHON              Python that has (or gets) rulemap (default: <repo>/.venv/bin/python)
set -euo pipefail

client=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repo=$(git -C "$client" rev-parse --show-toplevel 2>/dev/null || (cd "$client/.." && pwd))
prefix=${RULEMAP_CODE_SERVER_PREFIX:-$HOME/.cache/rulemap-e2e/code-server}
python=${RULEMAP_PYTHON:-$repo/.venv/bin/python}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
did=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

quiet() { # run a step; show its output only when it fails
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup-e2e: failed: $*" >&2
    exit 1
  fi
}

# 1. Chromium from Debian (Playwright's own browser downloads are not reachable)
if ! dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q 'install ok installed'; then
  quiet $sudo apt-get update
  quiet $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
  did+=(chromium)
fi

# 2. code-server 4.100.3 (VS Code 1.100.3)
if [ ! -f "$prefix/node_modules/code-server/out/node/entry.js" ]; then
  quiet bash "$client/scripts/install-code-server.sh" "$prefix"
  did+=(code-server)
fi

# 3. npm dependencies (playwright-core, vsce, esbuild, …) from package-lock.json
if [ ! -f "$client/node_modules/.package-lock.json" ] || [ ! -d "$client/node_modules/playwright-core" ] ||
   [ "$client/package-lock.json" -nt "$client/node_modules/.package-lock.json" ]; then
  (cd "$client" && quiet npm ci --no-audit --no-fund)
  did+=(npm-deps)
fi

# 4. a Python with the rulemap server
if ! "$python" -c 'import rulemap.lsp.server' >/dev/null 2>&1; then
  if [ ! -x "$python" ]; then
    quiet python3 -m venv "$(dirname "$(dirname "$python")")"
  fi
  quiet "$python" -m pip install --disable-pip-version-check -e "$repo"
  did+=(python-rulemap)
fi

if [ ${#did[@]} -eq 0 ]; then
  echo "setup-e2e: everything is installed"
else
  echo "setup-e2e: installed ${did[*]}"
fi
