#!/usr/bin/env bash
# The flow of games between actors and a learner on a real redis-server:
#   1. back-pressure: with the learner stopped (SIGSTOP), an actor with --max-backlog 40 stops
#      sending at 40 unread games (the stream's cap, 100000, is never reached), says so
#      in its heartbeat and `polyzero status`, and resumes when the learner reads again;
#   2. a dead learner's games: entries read but never acknowledged by a consumer without a
#      heartbeat are taken over by the live learner after --claim-idle; a live consumer's
#      (heartbeat key present) are left alone until its heartbeat goes; at the end every game
#      of the stream is in the learner's checkpoint or still pending for it, once.
# Usage: redis_flow_test.sh path/to/polyzero path/to/redis-server
set -uo pipefail
pz=$1
redis_server=$2
source "$(dirname "$0")/redis_test_lib.sh"

port=$(free_port)
url=redis://127.0.0.1:$port
start_plain_redis "$port"
rc() { redis-cli -p "$port" --raw "$@"; }
lag() { rc XINFO GROUPS pz:flow:games | awk 'prev == "lag" {print; exit} {prev = $0}'; }
pending_of() { rc XPENDING pz:flow:games learners - + 1000 "$1" | awk 'NR % 4 == 1' | grep -c . ; }
wait_for() {  # seconds 'condition' (evaluated anew each time)
  local t=$1 i
  for ((i = 0; i < t * 10; i++)); do
    eval "$2" && return 0
    sleep 0.1
  done
  return 1
}

"$pz" train --redis "$url" --run flow --run-dir "$tmp/run" --game tictactoe --steps 100000 --claim-idle 1 \
  --set eval.every_steps=0 --set log.every_steps=10 --set replay.min_samples=64 --set replay.max_replay_ratio=8 \
  --set checkpoint.every_steps=20 --set learner.batch_size=16 --set learner.publish_every=10 \
  --set selfplay.simulations=8 --set selfplay.games_per_thread=2 --set selfplay.cache_entries=0 >"$tmp/learner.log" 2>&1 &
learner=$!
pids+=("$learner")
wait_for 60 '[[ -n $(rc GET pz:flow:model:latest) ]]' || die "the learner published no model"

echo "[$SECONDS s] 1. back-pressure"
"$pz" selfplay --redis "$url" --run flow --max-backlog 2000 --stream-cap 1000 >"$tmp/err.out" 2>&1
[[ $? == 2 ]] && grep -q "must be below --stream-cap" "$tmp/err.out" || fail "--max-backlog above --stream-cap: $(cat "$tmp/err.out")"
kill -STOP "$learner"
"$pz" selfplay --redis "$url" --run flow --id a1 --backend torch --max-backlog 40 >"$tmp/actor.log" 2>&1 &
actor=$!
pids+=("$actor")
wait_for 60 '[[ $(rc HGET pz:flow:actor:a1 paused) == 1 ]]' || die "the actor did not pause: lag $(lag), $(tail -3 "$tmp/actor.log")"
length=$(rc XLEN pz:flow:games)
sleep 3
echo "paused: lag $(lag), stream length $length then $(rc XLEN pz:flow:games)"
(($(lag) <= 40)) || fail "the backlog passed --max-backlog 40: $(lag)"
[[ $(rc XLEN pz:flow:games) == "$length" ]] || fail "the actor went on sending while paused"
grep -q "sending paused" "$tmp/actor.log" || fail "the actor did not say it paused: $(tail -3 "$tmp/actor.log")"
"$pz" status --redis "$url" --run flow | grep -q "paused (backlog at its limit)" || fail "status does not show the pause"
games=$(rc HGET pz:flow:actor:a1 games)
kill -CONT "$learner"
wait_for 60 '[[ $(rc HGET pz:flow:actor:a1 paused) == 0 ]] && (($(rc HGET pz:flow:actor:a1 games) > games + 40))' \
  || fail "the actor did not resume: $(tail -3 "$tmp/actor.log")"
grep -q "sending resumed" "$tmp/actor.log" || fail "the actor did not say it resumed"

echo "[$SECONDS s] 2. a dead learner's pending games"
kill -STOP "$learner"
wait_for 30 '(($(lag) >= 20))' || fail "no backlog to read: $(lag)"
rc XREADGROUP GROUP learners learner-7 COUNT 5 STREAMS pz:flow:games '>' >/dev/null  # read, then gone
rc XREADGROUP GROUP learners learner-8 COUNT 5 STREAMS pz:flow:games '>' >/dev/null  # read, alive
rc SET pz:flow:learner:alive:learner-8 1 EX 300 >/dev/null
[[ $(pending_of learner-7) == 5 && $(pending_of learner-8) == 5 ]] || fail "setup: $(pending_of learner-7) and $(pending_of learner-8) pending"
sleep 1.2  # idle past --claim-idle 1
kill -CONT "$learner"
wait_for 30 '(($(pending_of learner-7) == 0))' || fail "the dead learner's games were not claimed: $(pending_of learner-7) pending"
sleep 3
[[ $(pending_of learner-8) == 5 ]] || fail "a live learner's games were claimed: $(pending_of learner-8) left"
rc DEL pz:flow:learner:alive:learner-8 >/dev/null
wait_for 30 '(($(pending_of learner-8) == 0))' || fail "learner-8's games were not claimed after its heartbeat went"
grep -q "skipped" "$tmp/learner.log" && fail "entries skipped: $(grep skipped "$tmp/learner.log" | head -3)"

kill -INT "$actor"
wait "$actor" || fail "the actor did not exit 0 on SIGINT: $(tail -3 "$tmp/actor.log")"
wait_for 30 '(($(lag) == 0))' || fail "the learner did not read the whole stream: lag $(lag)"
sleep 0.5
kill -INT "$learner"
wait "$learner" || fail "the learner did not exit 0 on SIGINT: $(tail -3 "$tmp/learner.log")"
final=$(ls -d "$tmp"/run/checkpoints/step-* | sort | tail -1)
learner_games=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['games'])" "$final/state.json")
added() { rc XINFO STREAM pz:flow:games | awk 'prev == "entries-added" {print; exit} {prev = $0}'; }
stream=$(added)
pending=$(rc XPENDING pz:flow:games learners | head -1)
echo "stream $stream games; the learner's checkpoint counts $learner_games; $pending pending"
((learner_games + pending == stream)) || fail "the checkpoint counts $learner_games games and $pending are pending, but the stream holds $stream"

[[ $failures == 0 ]] && echo "distributed_redis_flow: all passed in $SECONDS s"
exit $((failures > 0))
