#!/usr/bin/env bash
# Configures (once) and builds a preset incrementally: scripts/build.sh [release|debug|asan|tsan|notorch]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-release}
cd "$root"
dir=build
[[ $preset != release ]] && dir=build-$preset
if [[ ! -f $dir/build.ninja ]]; then
  cmake --preset "$preset" >/dev/null
fi
cmake --build --preset "$preset"
