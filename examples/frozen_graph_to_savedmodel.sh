#!/usr/bin/env bash
# A frozen GraphDef inspected without running it, then converted to a TF2 SavedModel
# whose outputs are checked against the graph's (--verify).
#   bash examples/frozen_graph_to_savedmodel.sh OUT
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$1"
mkdir -p "$out"
python "$here/_frozen.py" "$out"
tfport graph inspect "$out/frozen.pb"
tfport graph convert "$out/frozen.pb" "$out/savedmodel" --verify
