# Rulemap — every entry point a newcomer needs.
#   make demo     set up, then run Rulemap on the bundled example workspace
#   make check    the contributor's inner loop (under 2 minutes): lint, types, unit and
#                 property tests — nothing end to end
#   make test     set up, then run every test (lint, types, unit, fuzz, conformance, hostile, LSP,
#                 Neovim, VS Code extension unit + end-to-end, the map page in Chromium)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEMO   := examples/demo

.PHONY: setup demo check test test-python test-corpus test-vscode test-browser lint bench package clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

setup: $(VENV)/.installed

demo: setup
	@echo "== rulemap check $(DEMO)"
	@$(PY) -m rulemap check $(DEMO); code=$$?; \
	  if [ $$code -eq 1 ]; then echo "(exit 1: the demo's planted problems, as expected)"; \
	  else exit $$code; fi
	@echo
	@echo "== rulemap explain $(DEMO)/packages/web/src/components/Button.tsx"
	$(PY) -m rulemap explain $(DEMO)/packages/web/src/components/Button.tsx --root $(DEMO)
	@echo
	@echo "== rulemap reach $(DEMO)/.claude/rules/frontend/components.md"
	$(PY) -m rulemap reach $(DEMO)/.claude/rules/frontend/components.md --root $(DEMO)
	@echo
	@echo "== rulemap why \"keep this file under 2,000 characters\""
	@$(PY) -m rulemap why "keep this file under 2,000 characters" --root $(DEMO); code=$$?; \
	  if [ $$code -eq 1 ]; then echo "(exit 1: an agent does not get it, as expected)"; \
	  else exit $$code; fi
	@echo
	@echo "== rulemap graph $(DEMO) --format mermaid"
	$(PY) -m rulemap graph $(DEMO) --format mermaid

lint: setup
	$(PY) -m ruff check server tests benchmarks scripts
	$(PY) -m mypy

# the inner loop: what `make test` runs minus everything end to end (the CLI's conformance
# cases, the language server, Neovim, VS Code, the browser, git's deadlines, real repositories:
# the `slow` marker), on every core (pytest-xdist)
check: setup lint
	$(PY) -m pytest -q -p no:cacheprovider -n auto -m 'not slow and not corpus and not browser' \
	  tests/core tests/features tests/toy_agent

test-python: setup lint
	$(PY) -m pytest -q
	@echo "(the real-world corpus tests are their own target: make test-corpus, with ../shared/corpus)"

# the corpus is not part of this repository: fail loudly when it is missing rather than skip
test-corpus: setup
	@[ -f ../shared/corpus/materialize.py ] || { echo "make test-corpus: no corpus at ../shared/corpus (it lives beside the repository)" >&2; exit 1; }
	$(PY) -m pytest -q -m corpus tests/corpus

test-vscode: setup
	RULEMAP_PYTHON=$(abspath $(PY)) bash client-vscode/scripts/setup-e2e.sh
	cd client-vscode && npm run typecheck && npm run test:unit
	@# plain `vsce package`, as a publisher runs it (vscode:prepublish builds; offline: vsce is a devDependency)
	cd client-vscode && npx --no-install vsce package --out rulemap.vsix
	cd client-vscode && RULEMAP_PYTHON=$(abspath $(PY)) RULEMAP_E2E_SKIP_PACKAGE=1 npm run test:e2e

# the map page (`rulemap map --html`) in headless Chromium, on the demo and a 20,000-file
# monorepo; screenshots in tests/browser/out/. Installs Debian's Chromium and client-vscode's
# npm dependencies (playwright-core) when missing, as test-vscode's setup does; fails, never
# skips, when they cannot be had
test-browser: setup
	@dpkg-query -W -f='$${Status}' chromium 2>/dev/null | grep -q 'install ok installed' || { \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }
	@[ -d client-vscode/node_modules/playwright-core ] || (cd client-vscode && npm ci --no-audit --no-fund)
	$(PY) -m pytest -q -p no:cacheprovider -m browser tests/browser

test: test-python test-vscode test-browser

# bench_scaling exits 1 when time per file is not flat within 1.5x; the rest still runs.
# bench_shapes prints its verdicts (cold and warm ratios to agnix, flatness) and exits 0; it
# installs its peers into benchmarks/.cache/peers (PyPI) on its first run
bench: setup
	$(PY) benchmarks/bench_check.py --workspace both
	-$(PY) benchmarks/bench_scaling.py
	$(PY) benchmarks/bench_update.py
	$(PY) benchmarks/bench_lsp.py
	$(PY) benchmarks/bench_diff.py
	-$(PY) benchmarks/bench_shapes.py --runs 3 --explain-peers
	$(PY) benchmarks/bench_startup.py

package:
	cd client-vscode && npm ci --no-audit --no-fund && npm run package

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache client-vscode/node_modules client-vscode/dist
