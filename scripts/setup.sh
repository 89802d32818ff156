#!/usr/bin/env bash
# Installs every system package polyzero needs on Debian bookworm. Idempotent and quick
# when everything is already there (no apt-get update then).
#   scripts/setup.sh           install what is missing (needs root, or sudo)
#   scripts/setup.sh --check   exit 1 if something is missing, install nothing
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build ccache pkg-config git
  # libraries
  nlohmann-json3-dev libspdlog-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcpp-httplib-dev libsqlite3-dev libisl-dev
  # LibTorch (CPU). Its generic BLAS is reference BLAS unless OpenBLAS is installed:
  # without libopenblas0-openmp a batch-1 forward pass is ~8x slower.
  libtorch-dev libopenblas0-openmp libomp-dev
  # clang-14 carries LLVM Polly, the baseline of the polyhedral compiler's benchmarks
  clang
  # a real Go engine to play against (installs to /usr/games/gnugo)
  gnugo
  # tests
  python3
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
if [[ ${1:-} == --check ]]; then
  echo "missing packages: ${missing[*]}" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
