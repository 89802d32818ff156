#!/usr/bin/env bash
# Setup if needed, build, and run the whole test suite with ctest; non-zero on any failure.
#   scripts/test.sh                 release build, every test
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
