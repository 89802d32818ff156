#!/usr/bin/env bash
# Two data-parallel learners (c10d Gloo on loopback) and two actors on a real redis-server:
#   1. clear errors (exit status 2) for bad ranks, world sizes and masters;
#   2. both learners train to step 40 and end with the same weights (the FNV-1a hash each
#      records in its checkpoints), each having read its own share of the games; only rank 0
#      publishes model versions;
#   3. kill -9 rank 1 while they train on: rank 0 stops with a clear error, not a hang;
#   4. both started again with the same commands resume from the newest checkpoint step they
#      both hold; a SIGINT to rank 0 alone stops both at the same step, each with a final
#      checkpoint, and their weights agree again.
# Usage: redis_learners_test.sh path/to/polyzero path/to/redis-server
set -uo pipefail
pz=$1
redis_server=$2
source "$(dirname "$0")/redis_test_lib.sh"

port=$(free_port)
master=127.0.0.1:$(free_port)
url=redis://127.0.0.1:$port
start_plain_redis "$port"

echo "[$SECONDS s] 1. clear errors"
base=("$pz" train --redis "$url" --run dp --game tictactoe --run-dir "$tmp/bad" --quiet)
expect_error 2 "is not a rank of --world-size 2" "${base[@]}" --rank 2 --world-size 2 --master "$master"
expect_error 2 "give --master HOST:PORT" "${base[@]}" --world-size 2
expect_error 2 "expected HOST:PORT" "${base[@]}" --world-size 2 --master localhost
WORLD_SIZE=two expect_error 2 "WORLD_SIZE='two'" "${base[@]}"
RANK=3 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=1 expect_error 2 "RANK 3 is not a rank of WORLD_SIZE 2" "${base[@]}"
expect_error 2 "needs --redis" "$pz" train --game tictactoe --world-size 2 --run-dir "$tmp/bad2"

echo "[$SECONDS s] 2. two learners, two actors"
run=$tmp/run
learner() {  # rank steps
  "$pz" train --redis "$url" --run dp --run-dir "$run" --game tictactoe --steps "$2" --rank "$1" --world-size 2 \
    --master "$master" --group-timeout 60 \
    --set eval.every_steps=0 --set log.every_steps=5 --set replay.min_samples=64 --set replay.max_replay_ratio=8 \
    --set checkpoint.every_steps=20 --set checkpoint.keep=3 --set learner.batch_size=16 --set learner.publish_every=10 \
    --set selfplay.simulations=8 --set selfplay.games_per_thread=2 --set selfplay.cache_entries=0 \
    >"$tmp/learner$1-$3.log" 2>&1 &
  pids+=("$!")
  eval "learner$1=$!"
}
learner 0 40 a
learner 1 40 a
for _ in $(seq 1 1200); do  # the actors need the run registered and a first model (rank 0)
  [[ -n $(redis-cli -p "$port" GET pz:dp:model:latest) ]] && break
  sleep 0.1
done
[[ -n $(redis-cli -p "$port" GET pz:dp:model:latest) ]] || die "rank 0 published no model"
for i in 1 2; do
  "$pz" selfplay --redis "$url" --run dp --id "a$i" --backend torch >"$tmp/actor$i.log" 2>&1 &
  pids+=("$!")
done
wait_exit() {  # pid seconds: the exit status, or 124 when still running after that long
  local pid=$1 i
  for ((i = 0; i < $2 * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid"; return $?; }
    sleep 0.1
  done
  return 124
}
wait_exit "$learner0" 180
status0=$?
wait_exit "$learner1" 30
status1=$?
[[ $status0 == 0 && $status1 == 0 ]] || die "the learners exited $status0 and $status1"
hash_of() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['weights_fnv1a'], s['rank'], s['world_size'], s['games'])" "$1/state.json"; }
read -r h0 r0 w0 g0 < <(hash_of "$run/checkpoints/step-00000040")
read -r h1 r1 w1 g1 < <(hash_of "$run/rank-1/checkpoints/step-00000040")
echo "step 40: rank $r0 weights $h0 ($g0 games), rank $r1 weights $h1 ($g1 games)"
[[ $h0 == "$h1" && -n $h0 ]] || fail "the learners' weights differ at step 40: $h0 vs $h1"
[[ $r0 == 0 && $r1 == 1 && $w0 == 2 && $w1 == 2 ]] || fail "ranks in the checkpoints: $r0/$w0 and $r1/$w1"
((g0 > 0 && g1 > 0)) || fail "each learner should have read games: $g0 and $g1"
grep -q "learner rank 0: weights fnv1a $h0 at step 40" "$tmp/learner0-a.log" || fail "rank 0 did not print its hash: $(tail -3 "$tmp/learner0-a.log")"
grep -q "learner rank 1: weights fnv1a $h0 at step 40" "$tmp/learner1-a.log" || fail "rank 1 did not print its hash: $(tail -3 "$tmp/learner1-a.log")"
publishers=$(redis-cli -p "$port" --raw HGET pz:dp:model:$(redis-cli -p "$port" GET pz:dp:model:latest) meta)
[[ $publishers == *'"learner":"learner-0"'* ]] || fail "the latest model should come from learner-0: $publishers"
[[ $(redis-cli -p "$port" HGET pz:dp:learner consumer) == learner-0 ]] || fail "pz:dp:learner should be rank 0's"

echo "[$SECONDS s] 3. kill -9 rank 1 while both train on"
learner 0 100000 b
learner 1 100000 b
for _ in $(seq 1 600); do
  last=$(grep -o '"step":[0-9]*' "$run/rank-1/metrics.jsonl" 2>/dev/null | tail -1 | cut -d: -f2)
  [[ -n $last ]] && ((last >= 65)) && break
  sleep 0.1
done
"$pz" status --redis "$url" --run dp >"$tmp/status.txt" 2>&1
grep -q "alive (2 data-parallel learners)" "$tmp/status.txt" || fail "status should count two learners: $(cat "$tmp/status.txt")"
last=$(grep -o '"step":[0-9]*' "$run/rank-1/metrics.jsonl" | tail -1 | cut -d: -f2)
kill -9 "$learner1"
start=$SECONDS
wait_exit "$learner0" 60
status0=$?
echo "rank 1 killed after step ${last:-?}; rank 0 exited $status0 after $((SECONDS - start)) s"
[[ $status0 == 1 ]] || fail "rank 0 should exit 1 when rank 1 is killed, got $status0: $(tail -3 "$tmp/learner0-b.log")"
grep -q "with the other learners failed" "$tmp/learner0-b.log" || fail "no clear error from rank 0: $(tail -3 "$tmp/learner0-b.log")"

echo "[$SECONDS s] 4. both again: resume from a common checkpoint; SIGINT to rank 0 stops both"
learner 0 100000 c
learner 1 100000 c
for _ in $(seq 1 1200); do
  resumed0=$(grep -o "resumed .* at step [0-9]*" "$tmp/learner0-c.log" | grep -o '[0-9]*$')
  step1=$(grep -o '"step":[0-9]*' "$run/rank-1/metrics.jsonl" 2>/dev/null | tail -1 | cut -d: -f2)
  [[ -n $resumed0 && -n $step1 ]] && ((step1 >= resumed0 + 10)) && break
  sleep 0.1
done
kill -INT "$learner0"
wait_exit "$learner0" 60
status0=$?
wait_exit "$learner1" 30
status1=$?
[[ $status0 == 0 && $status1 == 0 ]] || die "the resumed learners exited $status0 and $status1 on SIGINT to rank 0"
resumed1=$(grep -o "resumed .* at step [0-9]*" "$tmp/learner1-c.log" | grep -o '[0-9]*$')
echo "resumed at steps ${resumed0:-none} and ${resumed1:-none}"
[[ -n $resumed0 && $resumed0 == "$resumed1" ]] || fail "the learners should resume at the same step: ${resumed0:-none} vs ${resumed1:-none}"
final0=$(ls -d "$run"/checkpoints/step-* | sort | tail -1)
final1=$(ls -d "$run"/rank-1/checkpoints/step-* | sort | tail -1)
read -r h0 _ < <(hash_of "$final0")
read -r h1 _ < <(hash_of "$final1")
echo "stopped at ${final0##*/} and ${final1##*/}: weights $h0 and $h1"
[[ ${final0##*/} == "${final1##*/}" ]] || fail "the learners stopped at different steps: ${final0##*/} and ${final1##*/}"
[[ $h0 == "$h1" && -n $h0 ]] || fail "the learners' weights differ at the end: $h0 vs $h1"

[[ $failures == 0 ]] && echo "distributed_redis_learners: all passed in $SECONDS s"
exit $((failures > 0))
