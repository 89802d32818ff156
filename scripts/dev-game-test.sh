#!/usr/bin/env bash
# Compiles and runs one game's tests without the rest of the project, for working on a game
# in isolation: scripts/dev-game-test.sh hex [gtest args...]
# Builds in /tmp/pz-dev-<game>/ with its own objects, so several can run side by side.
set -euo pipefail
game=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
out=/tmp/pz-dev-$game
mkdir -p "$out"
flags="-std=c++20 -O2 -g -Wall -Wextra -I$root"
srcs="util/spec.cpp games/game.cpp games/symmetry.cpp games/board_notation.cpp games/perft.cpp games/$game.cpp tests/games/game_properties.cpp tests/games/${game}_test.cpp"
objs=()
for s in $srcs; do
  o=$out/$(echo "$s" | tr '/' '_').o
  if [[ ! -f $o || $root/$s -nt $o || -n $(find "$root/games" "$root/util" "$root/tests/games" -name '*.h' -newer "$o" 2>/dev/null | head -1) ]]; then
    ccache g++ $flags -c "$root/$s" -o "$o"
  fi
  objs+=("$o")
done
g++ "${objs[@]}" -o "$out/test" -lgtest -lgtest_main -pthread
"$out/test" "$@"
