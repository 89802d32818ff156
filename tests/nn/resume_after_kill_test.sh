#!/usr/bin/env bash
# A training run killed with SIGKILL resumes from its newest checkpoint: the step counter
# continues from the checkpoint and every step's lr equals the lr the killed run logged for
# that step. Also: Ctrl-C (SIGINT) ends a run cleanly with a checkpoint, a damaged
# newest checkpoint (a flipped byte) resumes from the previous one, and a run with no usable
# checkpoint is refused with a clear message (exit 2), never restarted.
# Usage: resume_after_kill_test.sh path/to/polyzero
set -uo pipefail
pz=$1
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

common=(--game tictactoe --quiet --set eval.every_steps=0 --set log.every_steps=1 --set replay.min_samples=200
        --set replay.max_replay_ratio=1000 --set checkpoint.every_steps=25 --set checkpoint.keep=2
        --set learner.batch_size=32 --set selfplay.simulations=16)

wait_for_checkpoint() {  # run_dir timeout_s
  for _ in $(seq 1 $(($2 * 10))); do
    compgen -G "$1/checkpoints/step-*" >/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# --- kill -9, resume -------------------------------------------------------------------
run=$tmp/run
"$pz" train "${common[@]}" --steps 100000 --run-dir "$run" >"$tmp/first.log" 2>&1 &
pid=$!
pids+=("$pid")
wait_for_checkpoint "$run" 120 || fail "no checkpoint within 120 s: $(cat "$tmp/first.log")"
# Kill between two checkpoints (every 25 steps), so that the killed run has logged steps past
# its newest checkpoint that the resumed run must redo with the same lr.
for _ in $(seq 1 1200); do
  last=$(grep -o '"step":[0-9]*' "$run/metrics.jsonl" 2>/dev/null | tail -1 | cut -d: -f2)
  [[ -n "$last" ]] && ((last > 25 && last % 25 >= 5 && last % 25 <= 20)) && break
  sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
# A checkpoint being written when the kill came is a step-N.tmp-PID directory: not a checkpoint.
newest_checkpoint() { ls -d "$1"/checkpoints/step-* | grep -v '\.tmp-' | sort | tail -1; }
ckpt=$(newest_checkpoint "$run")
step=$((10#${ckpt##*step-}))
cp "$run/metrics.jsonl" "$tmp/before.jsonl"
echo "killed; newest checkpoint at step $step"

target=$((step + 30))
"$pz" train --resume "$run" --steps "$target" --quiet >"$tmp/resume.log" 2>&1
status=$?
[[ $status == 0 ]] || fail "resume exited $status: $(cat "$tmp/resume.log")"
python3 "$(dirname "$0")/check_resume.py" "$tmp/before.jsonl" "$run/metrics.jsonl" "$step" "$target" || fail "metrics after resume"
[[ -f "$run/checkpoints/step-$(printf %08d "$target")/model.pt" ]] || fail "no final checkpoint at step $target"
"$pz" info "$run/models/latest.pt" >"$tmp/info.txt" 2>&1 || fail "info on the model failed"
grep -q "step: $target" "$tmp/info.txt" || fail "info does not show step $target: $(cat "$tmp/info.txt")"

# --- SIGINT: finish the step, checkpoint, exit 0 -----------------------------------------
run2=$tmp/run2
"$pz" train "${common[@]}" --set checkpoint.every_steps=100000 --steps 100000 --run-dir "$run2" >"$tmp/int.log" 2>&1 &
pid=$!
pids+=("$pid")
for _ in $(seq 1 1200); do
  grep -q '"kind":"train"' "$run2/metrics.jsonl" 2>/dev/null && break
  sleep 0.1
done
kill -INT "$pid"
wait "$pid"
status=$?
[[ $status == 0 ]] || fail "SIGINT: exit status $status, want 0: $(cat "$tmp/int.log")"
compgen -G "$run2/checkpoints/step-*" >/dev/null || fail "SIGINT: no checkpoint written"

# --- a damaged newest checkpoint: resume from the previous one -----------------------------
# One flipped byte in the middle of the replay buffer: the manifest's checksum finds it.
flip_byte() {  # file offset
  local byte
  byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $(((byte + 1) % 256)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
ckpt=$(newest_checkpoint "$run")
previous=$(ls -d "$run"/checkpoints/step-* | sort | tail -2 | head -1)
flip_byte "$ckpt/replay.bin" $(($(stat -c %s "$ckpt/replay.bin") / 2))
"$pz" train --resume "$run" --steps $((target + 5)) >"$tmp/damaged.log" 2>&1
status=$?
[[ $status == 0 ]] || fail "damaged newest checkpoint: exit $status, want 0: $(cat "$tmp/damaged.log")"
grep -q "replay.bin does not match its checksum" "$tmp/damaged.log" \
  || fail "damaged checkpoint message: $(cat "$tmp/damaged.log")"
grep -q "resumed $run at step $((10#${previous##*step-}))" "$tmp/damaged.log" \
  || fail "did not resume from the previous checkpoint $previous: $(cat "$tmp/damaged.log")"
[[ -d "$run/checkpoints/damaged-${ckpt##*/}" ]] || fail "the damaged checkpoint was not set aside"

# --- no usable checkpoint: refused, and refused again (never restarted over the models) ----
for c in "$run"/checkpoints/step-*; do printf 'garbage' >"$c/model.pt"; done
for attempt in 1 2; do
  "$pz" train --resume "$run" --steps $((target + 10)) --quiet >"$tmp/corrupt.log" 2>&1
  status=$?
  [[ $status == 2 ]] || fail "no usable checkpoint (attempt $attempt): exit $status, want 2: $(cat "$tmp/corrupt.log")"
  grep -q "no usable checkpoint" "$tmp/corrupt.log" || fail "no usable checkpoint message: $(cat "$tmp/corrupt.log")"
done
[[ -f "$run/models/latest.pt" ]] || fail "the run's models were removed"

# --- the checkpoint folder deleted, emptied or replaced by a file: still refused ----------
# (the run's metrics and models say it trained; starting over would overwrite them)
cp "$run/models/latest.pt" "$tmp/latest-before.pt"
for damage in emptied deleted file; do
  rm -rf "$run/checkpoints"
  case $damage in
    emptied) mkdir "$run/checkpoints" ;;
    file) printf 'not a folder' >"$run/checkpoints" ;;
  esac
  [[ $damage == deleted ]] && rm -f "$run/models/step-"*.pt  # only latest.pt and metrics remain
  "$pz" train --resume "$run" --steps $((target + 10)) --quiet >"$tmp/gone.log" 2>&1
  status=$?
  [[ $status == 2 ]] || fail "checkpoints $damage: exit $status, want 2: $(cat "$tmp/gone.log")"
  grep -q "no usable checkpoint" "$tmp/gone.log" || fail "checkpoints $damage message: $(cat "$tmp/gone.log")"
  cmp -s "$run/models/latest.pt" "$tmp/latest-before.pt" || fail "checkpoints $damage: models/latest.pt was overwritten"
done
rm -f "$run/models/latest.pt"
"$pz" train --resume "$run" --steps $((target + 10)) --quiet >"$tmp/metrics-only.log" 2>&1
[[ $? == 2 ]] || fail "a run with only its metrics left was restarted: $(cat "$tmp/metrics-only.log")"

# --- a byte-flipped model is refused by info, not described --------------------------------
cp "$tmp/latest-before.pt" "$tmp/flipped.pt"
python3 - "$tmp/flipped.pt" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
# Flip a byte of the weights' data (the archive's large entries lie in its middle).
i = len(data) // 2
data[i] ^= 0x40
open(path, 'wb').write(bytes(data))
PY
"$pz" info "$tmp/flipped.pt" >"$tmp/flipped.log" 2>&1
[[ $? == 2 ]] || fail "info described a byte-flipped model: $(cat "$tmp/flipped.log")"
"$pz" info "$tmp/latest-before.pt" >"$tmp/intact.log" 2>&1 || fail "info refused an intact model: $(cat "$tmp/intact.log")"

# --- mismatched: a run dir that is not a run --------------------------------------------
mkdir -p "$tmp/empty"
"$pz" train --resume "$tmp/empty" >"$tmp/empty.log" 2>&1
[[ $? == 2 ]] || fail "resume of a non-run should exit 2"
grep -q "not a training run" "$tmp/empty.log" || fail "non-run message: $(cat "$tmp/empty.log")"

[[ $failures == 0 ]] && echo "resume_after_kill: all passed"
exit $((failures > 0))
