# Two commands do all set-up on a fresh machine (Python 3.10-3.13 with venv):
#   make demo   - the main job: a Keras model turned into an Estimator, trained on
#                 2 replicas (mirrored:2), evaluated and exported, on built-in data
#   make test   - lint and the whole test suite (slow tests included)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.tfport-installed

.PHONY: demo test test-fast lint docs bench

$(STAMP): pyproject.toml
	@echo "tfport: first run - creating $(VENV) and installing TensorFlow 2.21 and the project (a few minutes)"
	test -x $(PY) || python3.11 -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --progress-bar off --upgrade pip
	$(PY) -m pip install --progress-bar off -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/tfport demo $(DEMO_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check src tests bench legacy
	$(PY) -m ruff format --check src tests bench legacy
	$(VENV)/bin/vermin -t=3.10- --no-tips --violations --exclude file -q src tests bench legacy
	$(VENV)/bin/mkdocs build --strict -q

test: lint
	$(PY) -m pytest -q $(PYTEST_ARGS)

test-fast: lint
	$(PY) -m pytest -q -m "not slow" -x $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/train_throughput.py

docs: $(STAMP)
	$(PY) tests/api/api_walk.py --markdown docs/api-matrix.md
	$(VENV)/bin/mkdocs build --strict
