# Two commands do all set-up on a fresh machine (Python 3.10-3.13 with venv):
#   make demo   - the main job: a Keras model turned into an Estimator, trained on
#                 2 replicas (mirrored:2), evaluated and exported, on built-in data
#   make test   - lint, type check (mypy) and the whole test suite (both tiers)
# CI (.ci/run) also checks the rest of the supported TensorFlow range, each in a fresh venv
# made from the registry (docs/tensorflow-versions.md):
#   make test-oldest   - tensorflow==$(TF_OLDEST) installed first; `pip install .` keeps it
#   make test-nightly  - tf-nightly + tf-keras-nightly; nightly's own failures only warn
# (TF_JOB_PHASE=install or TF_JOB_PHASE=test: one phase of such a job; .ci/run installs
# both venvs while `make test` runs)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.tfport-installed

# `make test` and `make test-fast` spread the test files over TEST_WORKERS processes
# (pytest-xdist, whole files per process: the suite is CPU-bound, so one per core).
# Two tiers: the unit tests in tests/unit (its folders mirror src/tfport's packages;
# in-process, no golden programs) and every other test, marked slow by tests/conftest.py.
# `make test-fast` runs the unit tier (PYTEST_ARGS, when given, names what to run instead:
# the slow tests stay out); `make test` runs both.
TEST_WORKERS ?= 2
TF_OLDEST ?= 2.16.2
# The range jobs' tests (RANGE_TESTS): packaging (pip's resolution included), golden cases on
# one device and mirrored:2 (seed Keras model, custom model_fn, canned estimators,
# TPUEstimator on CPU), CLI smoke tests, TF2 summaries in a model_fn (TensorBoard from the
# project without extras: tf-nightly installs none). Chosen to fit CI's budget for both jobs (12 min).
GOLDEN_ACC := tests/estimator/test_accelerators.py
GOLDEN_CUSTOM := tests/estimator/test_golden_custom.py
GOLDEN_CANNED := tests/canned/test_canned_goldens.py::test_resume_from_step0_reproduces_step40
RANGE_TESTS ?= tests/test_packaging.py tests/keras/test_golden.py tests/estimator/test_tensorboard.py \
	tests/test_cli.py::test_help_does_not_import_tensorflow \
	tests/test_cli.py::test_run_missing_script_is_exit_2_one_line \
	tests/test_cli.py::test_run_passes_argv_and_returns_the_scripts_exit_code \
	$(GOLDEN_CUSTOM)::test_resume_from_step0_reproduces_step40_variables \
	$(GOLDEN_CUSTOM)::test_resume_reproduces_metrics_and_predictions \
	$(GOLDEN_CUSTOM)::test_model_dir_layout_and_summary_tags \
	$(GOLDEN_CUSTOM)::test_export_matches_golden_export \
	$(GOLDEN_CANNED)[canned_combined] $(GOLDEN_CANNED)[canned_dnn_v2] \
	$(GOLDEN_ACC)::test_golden_tpu_estimator_on_cpu \
	$(GOLDEN_ACC)::test_canned_legacy_checkpoint_resumes_on_mirrored_2_with_single_device_names[canned_dnn]

# tf-nightly's own test failures only warn (CI's logs of passing runs are not kept), so its
# job runs a smoke subset: packaging beside tf-nightly, the CLI, the seed Keras golden on one
# device and mirrored:2, a custom model_fn resumed from legacy's step 0. `make test-nightly
# NIGHTLY_TESTS='$(RANGE_TESTS)'` runs the whole range set.
NIGHTLY_TESTS ?= tests/test_packaging.py tests/keras/test_golden.py \
	tests/test_cli.py::test_help_does_not_import_tensorflow \
	tests/test_cli.py::test_run_missing_script_is_exit_2_one_line \
	tests/test_cli.py::test_run_passes_argv_and_returns_the_scripts_exit_code \
	$(GOLDEN_CUSTOM)::test_resume_from_step0_reproduces_step40_variables

.PHONY: demo test test-fast test-oldest test-nightly lint typecheck docs bench

# First run: one line, pip's output in $(VENV)/install.log (its end shown if pip fails).
$(STAMP): pyproject.toml
	@echo "tfport: first run - creating $(VENV) and installing TensorFlow 2.21, tfport and its test tools with pip (about 4 minutes; log: $(VENV)/install.log)"
	@test -x $(PY) || python3.11 -m venv $(VENV) 2>/dev/null || python3 -m venv $(VENV)
	@{ $(PY) -m pip install --progress-bar off --upgrade pip && \
	   $(PY) -m pip install --progress-bar off -e '.[test,jax]'; } > $(VENV)/install.log 2>&1 || \
	 { tail -n 25 $(VENV)/install.log; echo "tfport: pip failed (full log: $(VENV)/install.log)"; exit 1; }
	@touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/tfport demo $(DEMO_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check src tests bench legacy setup.py
	$(PY) -m ruff format --check src tests bench legacy setup.py
	$(VENV)/bin/vermin -t=3.10- --no-tips --violations --exclude file -q src tests bench legacy setup.py
	$(VENV)/bin/mkdocs build --strict  # no -q: it drops the warnings that --strict counts

typecheck: $(STAMP)
	$(PY) -m mypy

XDIST = -n $(TEST_WORKERS) --dist loadfile

test: lint typecheck
	$(PY) -m pytest -q $(XDIST) --durations=15 $(PYTEST_ARGS)

test-fast: lint typecheck
	$(PY) -m pytest -q $(XDIST) -m "not slow" -x $(or $(PYTEST_ARGS),tests/unit)

test-oldest:
	TEST_WORKERS=$(TEST_WORKERS) TF_OLDEST=$(TF_OLDEST) RANGE_TESTS="$(RANGE_TESTS)" bash .ci/tf_job.sh oldest $(TF_JOB_PHASE)

test-nightly:
	TEST_WORKERS=$(TEST_WORKERS) RANGE_TESTS="$(NIGHTLY_TESTS)" bash .ci/tf_job.sh nightly $(TF_JOB_PHASE)

bench: $(STAMP)
	$(PY) bench/train_throughput.py

docs: $(STAMP)
	$(PY) tests/api/api_walk.py --markdown docs/api-matrix.md
	$(VENV)/bin/mkdocs build --strict
