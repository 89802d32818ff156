#!/usr/bin/env bash
# Setup if needed, build, and run the whole test suite with ctest; non-zero on any failure.
#   scripts/test.sh                 release build, every test; then the build without
#                                   LibTorch (build-notorch/) and its tests
#   scripts/test.sh asan            under AddressSanitizer + UBSan (build-asan/)
#   scripts/test.sh release -R Hex  extra arguments go to ctest
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-release}
shift || true
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$preset"
cd "$root"
ctest --preset "$preset" "$@"
# The compiler, games, search and arena must keep building and passing without LibTorch
# (-DPZ_WITH_TORCH=OFF). ccache shares their objects with the release build.
if [[ $preset == release && $# -eq 0 ]]; then
  "$root/scripts/build.sh" notorch
  ctest --preset notorch
fi
