#!/usr/bin/env bash
# Setup if needed, build, and run the whole test suite with ctest; non-zero on any failure.
#   scripts/test.sh                 release build, every test; then the build without
#                                   LibTorch (build-notorch/) and the tests only it runs
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
# The CLI and the Python module must keep working without LibTorch (-DPZ_WITH_TORCH=OFF).
# The other test executables of that build are the release build's, the same code with the
# same flags (every library below nn/'s LibTorch one is torch-free, with no #if on it), so
# this pass builds and runs only what differs or runs there alone: the tests labelled
# `notorch` (after a whole build of it, `ctest --preset notorch` runs them all). ccache
# shares the objects.
if [[ $preset == release && $# -eq 0 ]]; then
  "$root/scripts/build.sh" notorch polyzero polybench_matrix_test
  # The Python module is optional (PZ_PYTHON, python3-dev and pybind11): built where configured.
  if ninja -C "$root/build-notorch" -t targets all | grep -q '^polyzero_python:'; then
    "$root/scripts/build.sh" notorch polyzero_python
  fi
  ctest --preset notorch -L notorch
fi
