#!/usr/bin/env bash
# A training run whose loss becomes NaN/inf stops with a clear message (exit 1, "training
# diverged"), logs a "diverged" event, writes nothing more, and leaves its newest checkpoint
# and models/latest.pt with the last finite weights, loadable and playable. The divergence is
# forced by a multistep schedule that multiplies the lr by 1e30 after step 30.
# Usage: divergence_test.sh path/to/polyzero
set -uo pipefail
pz=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

run=$tmp/run
"$pz" train --game tictactoe --quiet --run-dir "$run" --steps 200 \
  --set eval.every_steps=0 --set log.every_steps=1 --set replay.min_samples=200 --set replay.max_replay_ratio=1000 \
  --set checkpoint.every_steps=10 --set checkpoint.keep=5 --set learner.batch_size=32 --set selfplay.simulations=16 \
  --set 'learner.scheduler={"type":"multistep","milestones":[30],"gamma":1e30}' >"$tmp/train.log" 2>&1
status=$?
[[ $status == 1 ]] || fail "diverged run: exit $status, want 1: $(cat "$tmp/train.log")"
grep -q "^error: training diverged: " "$tmp/train.log" || fail "no divergence message: $(cat "$tmp/train.log")"
grep -q "internal error" "$tmp/train.log" && fail "divergence reported as an internal error"
grep -q '"event":"diverged"' "$run/metrics.jsonl" || fail "no diverged event in metrics.jsonl"

newest=$(ls -d "$run"/checkpoints/step-* | sort | tail -1)
[[ "${newest##*/}" == "step-00000030" ]] || fail "newest checkpoint ${newest##*/}, want step-00000030"
grep -q "${newest}" "$tmp/train.log" || fail "the message does not name the newest checkpoint: $(cat "$tmp/train.log")"
"$pz" info "$run/models/latest.pt" >"$tmp/info.txt" 2>&1 || fail "info on latest.pt: $(cat "$tmp/info.txt")"
grep -q "step: 30" "$tmp/info.txt" || fail "latest.pt is not the step-30 model: $(cat "$tmp/info.txt")"
"$pz" match --game tictactoe --p1 "mcts:model=$run/models/latest.pt,sims=8" --p2 random --games 2 >"$tmp/match.txt" 2>&1 \
  || fail "the last good model does not play: $(cat "$tmp/match.txt")"

[[ $failures == 0 ]] && echo "divergence: all passed"
exit $((failures > 0))
