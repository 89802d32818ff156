#!/usr/bin/env bash
# Configures (once) and builds a preset incrementally:
#   scripts/build.sh [release|debug|asan|tsan|notorch] [TARGET...]
# Every target by default (tests included); named targets only when given.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-release}
shift || true
cd "$root"
dir=build
[[ $preset != release ]] && dir=build-$preset
if [[ ! -f $dir/build.ninja ]]; then
  cmake --preset "$preset" >/dev/null
fi
if [[ $# -gt 0 ]]; then
  cmake --build --preset "$preset" --target "$@"
else
  cmake --build --preset "$preset"
fi
