#!/usr/bin/env bash
# Every registered game trains: a few learner steps of self-play with a tiny network, for
# each game `polyzero games --json` lists (board, strategy with chance and hidden
# information, single-player and simultaneous action games). Each run must exit 0, write
# its model, log learner steps, and the model must then play a game as `mcts:model=…`.
# Usage: every_game_trains_test.sh path/to/polyzero
set -uo pipefail
pz=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

games=$("$pz" games --json | python3 -c 'import json,sys; print(" ".join(g["name"] for g in json.load(sys.stdin)))')
[[ -n $games ]] || { echo "FAIL: no games listed"; exit 1; }
tiny=(--quiet --steps 4 --set network.blocks=1 --set network.channels=8 --set selfplay.simulations=4
      --set selfplay.threads=1 --set selfplay.games_per_thread=4 --set replay.min_samples=32
      --set replay.max_replay_ratio=1000 --set learner.batch_size=16 --set eval.every_steps=0
      --set log.every_steps=1)
for g in $games; do
  spec=$g
  case $g in  # big boards: a small option keeps the self-play games short
    go) spec=go:size=5 ;;
    hex) spec=hex:size=5 ;;
    havannah) spec=havannah:base=4 ;;
    gomoku) spec=gomoku:size=9 ;;
    othello) spec=othello:size=6 ;;
  esac
  run=$tmp/$g
  if ! "$pz" train --game "$spec" "${tiny[@]}" --run-dir "$run" >"$tmp/$g.log" 2>&1; then
    fail "$spec: train exited non-zero: $(tail -5 "$tmp/$g.log")"
    continue
  fi
  [[ -s $run/models/latest.pt ]] || fail "$spec: no model written"
  grep -q '"kind":"train"' "$run/metrics.jsonl" || fail "$spec: no learner step in metrics.jsonl"
  if ! "$pz" match --game "$spec" --p1 "mcts:model=$run/models/latest.pt,sims=4" --p2 random --games 1 -q \
      >"$tmp/$g.match" 2>&1; then
    fail "$spec: the trained model does not play: $(tail -3 "$tmp/$g.match")"
  fi
done

if [[ $failures -gt 0 ]]; then
  echo "$failures game(s) failed to train"
  exit 1
fi
echo "every game trains: $games"
