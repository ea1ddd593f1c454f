#!/usr/bin/env bash
# One job of the supported TensorFlow range (`make test-oldest`, `make test-nightly`): a fresh
# venv made from the registry, tfport installed into it the way docs/tensorflow-versions.md
# says, then the range tests ($RANGE_TESTS: the packaging checks, golden cases on one device
# and mirrored:2, the CLI smoke tests).
#
#   .ci/tf_job.sh oldest    tensorflow==$TF_OLDEST, then `pip install '.[test]'`, which must
#                           keep that TensorFlow and add the tf_keras of its minor version
#   .ci/tf_job.sh nightly   tf-nightly + tf-keras-nightly, then `pip install '.[test]'`,
#                           which must add no `tensorflow` distribution beside tf-nightly
#
# A second argument runs one phase: `install` (the venv; .ci/run does it while `make test`
# runs) or `test` (the tests, in the venv the install phase left). Without it, both.
#
# Every failure of the oldest job fails. The nightly job fails only for what is tfport's: its
# install next to tf-nightly. What is nightly's is reported as a warning naming the nightly
# version, and the job succeeds: tf-nightly not installable from the registry, or tests that
# fail there (the same tests passed on the newest stable TensorFlow in `make test`, which
# .ci/run runs first, with the same tfport code).
set -uo pipefail
kind="${1:?usage: .ci/tf_job.sh oldest|nightly [install|test]}"
phase="${2:-all}"
venv="${TF_JOB_VENV:-build/venv-tf-$kind}"
start=$SECONDS

say() { echo "tfport CI [$kind]: $*"; }
fail() { say "FAILED: $*"; exit 1; }
warn() { say "WARNING (tf-nightly's, not tfport's; CI goes on): $*"; exit 0; }
versions() {
  "$venv/bin/python" - <<'EOF'
import importlib.metadata as md
names = ("tensorflow", "tf_keras", "tf-nightly", "tf-keras-nightly", "keras", "keras-nightly")
found = []
for name in names:
    try:
        found.append(f"{name} {md.version(name)}")
    except md.PackageNotFoundError:
        pass
print(", ".join(found))
EOF
}

installed="$venv/.tf-job-installed"  # what the install phase installed, for the test phase

install() {
  python="$(command -v python3.11 || command -v python3)"
  rm -rf "$venv"
  "$python" -m venv "$venv" || fail "could not create the venv $venv with $python"
  pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
  "${pip[@]}" install --upgrade pip || fail "could not upgrade pip in $venv"
  case "$kind" in
    oldest)
      "${pip[@]}" install "tensorflow==${TF_OLDEST:?}" || fail "tensorflow==$TF_OLDEST did not install"
      ;;
    nightly)
      "${pip[@]}" install tf-nightly tf-keras-nightly || warn "tf-nightly did not install from the registry"
      ;;
    *) fail "unknown job '$kind' (oldest or nightly)" ;;
  esac
  before="$(versions)"
  "${pip[@]}" install '.[test]' || fail "tfport did not install next to: $before"
  after="$(versions)"
  case "$kind" in  # pip kept the TensorFlow the venv held, and added the matching Keras 2
    oldest) want="tensorflow $TF_OLDEST, tf_keras ${TF_OLDEST%.*}." ;;
    nightly) want="${before%%, keras*}" ;;
  esac
  [[ "$after" == "$want"* ]] || fail "installing tfport changed TensorFlow: before: $before; after: $after"
  say "installed in $((SECONDS - start))s: $after"
  echo "$after" >"$installed"
}

run_tests() {
  tests="${RANGE_TESTS:?RANGE_TESTS (the test files of the range jobs) must be set}"
  if [ ! -f "$installed" ]; then  # the install phase failed, or said it was nightly's
    [ "$kind" = nightly ] && warn "no tf-nightly venv in $venv (the install phase said why)"
    fail "no venv installed by '.ci/tf_job.sh $kind install' in $venv"
  fi
  after="$(cat "$installed")"
  start=$SECONDS
  log="$venv/pytest.log"
  set -f  # RANGE_TESTS: test ids, some with [params]: split on spaces, never globbed
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pytest -q -p no:cacheprovider -n "${TEST_WORKERS:-2}" --dist loadfile --durations=8 $tests 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  say "tests ran in $((SECONDS - start))s (exit $rc): $after"
  [ "$kind" = oldest ] && exit "$rc"
  case "$rc" in
    0) exit 0 ;;
    1 | 2)
      failing="$(grep -E '^(FAILED|ERROR) ' "$log" | cut -d' ' -f2 | tr '\n' ' ')"
      warn "on $after these fail (they pass on the newest stable TensorFlow): $failing"
      ;;
    *) fail "pytest exit $rc (usage error, internal error or no tests: not nightly's)" ;;
  esac
}

case "$phase" in
  install) install ;;
  test) run_tests ;;
  all) install && run_tests ;;
  *) fail "unknown phase '$phase' (install or test; none for both)" ;;
esac
