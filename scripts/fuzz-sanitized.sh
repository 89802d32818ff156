#!/usr/bin/env bash
# The CLI fuzz corpus (tests/fuzz/cli_fuzz.cpp) against the ASan + UBSan build:
#   scripts/fuzz-sanitized.sh                                    the CI cases
#   PZ_CLI_FUZZ_CASES=2000 PZ_CLI_FUZZ_SEED=7 scripts/fuzz-sanitized.sh
# Configures build-asan/ (the asan preset) if needed, builds polyzero and cli_fuzz there and
# runs the fuzz driver against the sanitized binary. Any sanitizer report ends its case with
# status 86, which fails it (as do signals, timeouts and statuses other than 0 or 2).
# Failures are kept under build-asan/cli-fuzz/cli_fuzz_failures/. Leak checking is off by
# default (LibTorch and isl keep global allocations); ASAN_OPTIONS=... overrides.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [[ ! -f build-asan/build.ninja ]]; then
  cmake --preset asan >/dev/null
fi
cmake --build --preset asan --target polyzero cli_fuzz

report="halt_on_error=1:abort_on_error=0:exitcode=86"
export ASAN_OPTIONS=${ASAN_OPTIONS:-$report:detect_leaks=0:hard_rss_limit_mb=4096}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-$report:print_stacktrace=1}
export PZ_CLI_FUZZ_MEMORY_MB=${PZ_CLI_FUZZ_MEMORY_MB:-0}  # RLIMIT_AS cannot hold ASan's shadow memory
export PZ_CLI_FUZZ_TIMEOUT=${PZ_CLI_FUZZ_TIMEOUT:-60}     # sanitized code runs 2-3x slower

mkdir -p build-asan/cli-fuzz
cd build-asan/cli-fuzz
exec ../tests/cli_fuzz ../polyzero "$root"
