#!/usr/bin/env bash
# Setup if needed, incremental release build of polyzero alone (the tests are
# scripts/test.sh's), then build/polyzero ARGS...
#   scripts/run.sh train --game connect4
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" release polyzero >&2
exec "$root/build/polyzero" "$@"
