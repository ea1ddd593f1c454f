#!/usr/bin/env bash
# A v1 canned DNNClassifier checkpoint (TF1 names, Adagrad slots) converted to the v2
# estimator's names, as the legacy checkpoint_converter.py did.
#   bash examples/convert_canned_checkpoint.sh OUT
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$1"
mkdir -p "$out"
tfport run "$here/_v1_canned.py" "$out/v1"
tfport ckpt inspect "$out/v1"
tfport ckpt convert "$out/v1" "$out/v2" --estimator dnn --graph "$out/v1/graph.pbtxt"
tfport ckpt inspect "$out/v2"
