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
  nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcpp-httplib-dev libsqlite3-dev libisl-dev
  # distributed runs (distributed/): the Redis client and zlib; the server and redis-cli for the
  # tests and scripts/cluster-example.sh; Gloo (c10d's transport) for several learners per run
  libhiredis-dev zlib1g-dev redis-server redis-tools libgloo-dev
  # LibTorch (CPU). Its generic BLAS is reference BLAS unless OpenBLAS is installed:
  # without libopenblas0-openmp a batch-1 forward pass is ~8x slower.
  libtorch-dev libopenblas0-openmp libomp-dev
  # clang-14 carries LLVM Polly, the baseline of the polyhedral compiler's benchmarks
  clang
  # real engines to play against over GTP: Go (/usr/games/gnugo) and Othello (GRhino's
  # GTP front end, /usr/games/gtp-rhino)
  gnugo grhino
  # the Python module (python/, docs/python.md) and its tests (tests/python); PyTorch for
  # Python drives the search in examples/python/torch_policy.py
  python3-dev pybind11-dev python3-numpy python3-pytest python3-torch
  # tests (chromium, nodejs and npm, below: the browser test in tests/browser)
  python3 chromium nodejs
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# NodeSource's nodejs carries npm and conflicts with Debian's npm package: only without a
# working npm is the package installed.
command -v npm >/dev/null || missing+=(npm)

# The browser test's playwright-core, pinned by tests/browser/package-lock.json.
browser_test=$(cd "$(dirname "$0")/.." && pwd)/tests/browser
need_npm_ci=0
[[ -d $browser_test/node_modules/playwright-core ]] || need_npm_ci=1

if [[ ${#missing[@]} -eq 0 && $need_npm_ci -eq 0 ]]; then
  exit 0
fi
if [[ ${1:-} == --check ]]; then
  [[ ${#missing[@]} -eq 0 ]] || echo "missing packages: ${missing[*]}" >&2
  [[ $need_npm_ci -eq 0 ]] || echo "missing: tests/browser/node_modules (npm ci)" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
if [[ ${#missing[@]} -gt 0 ]]; then
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [[ $need_npm_ci -eq 1 ]]; then
  echo "setup: npm ci in tests/browser" >&2
  (cd "$browser_test" && npm ci --no-audit --no-fund)
fi
