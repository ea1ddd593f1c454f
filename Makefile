# Two commands do all set-up on a fresh machine (Python 3.11 with venv):
#   make demo   - the main job: a Keras model turned into an Estimator, trained on
#                 2 replicas (mirrored:2), evaluated and exported, on built-in data
#   make test   - lint and the whole test suite (slow tests included)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.tfport-installed

.PHONY: demo test lint bench

$(STAMP): pyproject.toml
	test -x $(PY) || python3.11 -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/tfport demo $(DEMO_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check src tests bench
	$(PY) -m ruff format --check src tests bench

test: $(STAMP)
	$(PY) -m ruff check src tests bench
	$(PY) -m pytest -q $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/train_throughput.py
