#!/usr/bin/env bash
# A distributed run on a real redis-server (a free loopback port, a temporary directory):
#   1. clear errors: no such run, Redis unreachable, a wrong password, a remote Redis without
#      a password, a password in the URL;
#   2. one learner and two actor processes on tic-tac-toe: games flow, the model version
#      advances and both actors pick it up;
#   3. kill -9 one actor in the middle of its games: nothing partial reaches the learner;
#   4. stop and restart Redis: the actor and the learner reconnect and games flow again;
#   5. kill -9 the learner between checkpoints and start it again with the same command: it
#      resumes, its step and lr continue exactly, and at the end the learner has counted
#      every game of the stream exactly once (none lost, none twice) with nothing pending.
# Usage: redis_run_test.sh path/to/polyzero path/to/redis-server
set -uo pipefail
pz=$1
redis_server=$2
source "$(dirname "$0")/redis_test_lib.sh"

port=$(free_port)
url=redis://127.0.0.1:$port
mkdir -p "$tmp/redis"
start_redis() {
  # Append-only file, fsync'd per write: a restarted Redis has every acknowledged write.
  "$redis_server" --port "$port" --bind 127.0.0.1 --dir "$tmp/redis" --appendonly yes --appendfsync always \
    --save '' --logfile "$tmp/redis-server.log" &
  redis_pid=$!
  for _ in $(seq 1 100); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.1
  done
  die "redis-server did not start on port $port"
}
start_redis
echo "redis on $url"

status() { "$pz" status --redis "$url" --run ttt --json 2>/dev/null; }
# The run's state as `polyzero status --json` has it, read straight from Redis by a few lines
# of Python (a polyzero process costs a second to start on a busy machine: too slow to poll).
cat >"$tmp/snapshot.py" <<'PY'
import socket, sys, time
port, timeout, expr = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=2)
    return s, s.makefile("rb")
def command(conn, *args):
    sock, f = conn
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    sock.sendall(out)
    return read(f)
def read(f):
    line = f.readline()
    kind, rest = line[:1], line[1:-2]
    if kind in (b"+", b"-"): return rest.decode()
    if kind == b":": return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0: return None
        data = f.read(n + 2)[:-2]
        return data.decode(errors="replace")
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [read(f) for _ in range(n)]
    raise ConnectionError("bad reply")
def snapshot(conn):
    def hash_of(key):
        flat = command(conn, "HGETALL", key) or []
        return dict(zip(flat[::2], flat[1::2]))
    learner = hash_of("pz:ttt:learner")
    actors = []
    for key in sorted(command(conn, "KEYS", "pz:ttt:actor:*") or []):
        a = hash_of(key)
        if a:
            actors.append({"id": key.split(":")[-1], "version": int(a.get("version", 0)), "games": int(a.get("games", 0))})
    stream = {"length": command(conn, "XLEN", "pz:ttt:games"), "backlog": None}
    try:
        for g in command(conn, "XINFO", "GROUPS", "pz:ttt:games"):
            d = dict(zip(g[::2], g[1::2]))
            if d.get("name") == "learners":
                stream["backlog"], stream["pending"] = d.get("lag"), d.get("pending")
    except Exception:
        pass
    return {"learner": {"step": int(learner.get("step", 0)), "games": int(learner.get("games", 0))},
            "model": {"version": int(command(conn, "GET", "pz:ttt:model:latest") or 0)},
            "actors": actors, "stream": stream}
deadline = time.time() + timeout
while True:
    try:
        conn = connect()
        s = snapshot(conn)
        conn[0].close()
        value = eval(expr)
        if timeout == 0:
            print(value)
            sys.exit(0)
        if value:
            sys.exit(0)
    except (OSError, ConnectionError, TypeError, ValueError, KeyError, IndexError) as e:
        if timeout == 0:
            print("")
            sys.exit(1)
    if time.time() > deadline:
        sys.exit(1)
    time.sleep(0.2)
PY
field() { python3 "$tmp/snapshot.py" "$port" 0 "$1"; }     # field PYTHON-EXPR-OVER-s
wait_until() { python3 "$tmp/snapshot.py" "$port" "$1" "$2"; }  # wait_until SECONDS CONDITION

echo "[$SECONDS s] 1. start the learner; meanwhile, clear errors"
run=$tmp/run
learner=("$pz" train --redis "$url" --run ttt --run-dir "$run" --game tictactoe --steps 100000
         --set eval.every_steps=0 --set log.every_steps=1 --set replay.min_samples=64
         --set replay.max_replay_ratio=8 --set checkpoint.every_steps=20 --set checkpoint.keep=2
         --set learner.batch_size=16 --set learner.publish_every=10 --set selfplay.simulations=8
         --set selfplay.games_per_thread=2 --set selfplay.cache_entries=0)
"${learner[@]}" >"$tmp/learner.log" 2>&1 &
learner_pid=$!
pids+=("$learner_pid")
expect_error 2 "there is no run 'nosuch'" "$pz" selfplay --redis "$url" --run nosuch
expect_error 2 "an actor's id" "$pz" selfplay --redis "$url" --run nosuch --id 'a b'
expect_error 1 "cannot connect" "$pz" status --redis redis://127.0.0.1:1 --run ttt
expect_error 2 "refusing to use" "$pz" status --redis redis://10.255.255.1:6379 --run ttt
expect_error 2 "credentials" "$pz" status --redis "redis://u:secret@127.0.0.1:$port" --run ttt
grep -q secret "$tmp/err.out" && fail "the password in the URL was echoed"
expect_error 2 "needs --run" "$pz" train --redis "$url" --game tictactoe
redis-cli -p "$port" ACL SETUSER tester on '>right-password' '~*' '+@all' >/dev/null
POLYZERO_REDIS_USER=tester POLYZERO_REDIS_PASSWORD=wrong-password expect_error 2 "refused the password" \
  "$pz" status --redis "$url" --run ttt
grep -q wrong-password "$tmp/err.out" && fail "the wrong password was echoed"
echo right-password >"$tmp/pw"
POLYZERO_REDIS_USER=tester expect_error 2 "there is no run" "$pz" status --redis "$url" --run nosuch --redis-password-file "$tmp/pw"

echo "[$SECONDS s] 2. one learner, two actors"
wait_until 60 's["model"]["version"] >= 1' || die "the learner published no model"
actor() {  # id
  "$pz" selfplay --redis "$url" --run ttt --id "$1" --backend torch >"$tmp/actor-$1.log" 2>&1 &
  pids+=("$!")
  eval "pid_$1=$!"
}
actor a1
actor a2
wait_until 90 's["learner"]["step"] >= 25 and s["model"]["version"] >= 3 and len(s["actors"]) == 2 and all(a["version"] >= 2 and a["games"] > 0 for a in s["actors"])' \
  || die "no flow: $(status)"
echo "flow: $(field '"step %d, version %d, actors %s" % (s["learner"]["step"], s["model"]["version"], [(a["id"], a["version"], a["games"]) for a in s["actors"]])')"
"$pz" status --redis "$url" --run ttt >"$tmp/status.txt" || fail "status (text) failed"
grep -q "actors: 2 alive" "$tmp/status.txt" || fail "status text: $(cat "$tmp/status.txt")"

echo "[$SECONDS s] 3. kill -9 an actor mid-game"
kill -9 "$pid_a1"
games_before=$(redis-cli -p "$port" XLEN pz:ttt:games)
wait_until 30 "s['stream']['length'] > $games_before + 5" || fail "no games after the kill"

echo "[$SECONDS s] 4. stop and restart Redis"
redis-cli -p "$port" shutdown >/dev/null 2>&1
wait "$redis_pid" 2>/dev/null
redis_pid=
sleep 1
start_redis
length=$(redis-cli -p "$port" XLEN pz:ttt:games)
step=$(field 's["learner"]["step"]')
wait_until 40 "s['stream']['length'] > $length + 5 and s['learner']['step'] > $step and s['learner']['games'] > 0 and len(s['actors']) == 1" \
  || fail "no flow after the restart of Redis: $(status)"
grep -q "reconnected" "$tmp/actor-a2.log" || fail "the actor did not say it reconnected: $(tail -5 "$tmp/actor-a2.log")"
version=$(field 's["model"]["version"]')
wait_until 30 "s['model']['version'] > $version and s['actors'][0]['version'] > $version" \
  || fail "no new model version picked up after the restart: $(status)"
# The killed actor's heartbeat (10 s) has expired by now; `status` shows one actor.
wait_until 20 'len(s["actors"]) == 1 and s["actors"][0]["id"] == "a2"' || fail "the killed actor's heartbeat did not expire: $(status)"

echo "[$SECONDS s] 5. kill -9 the learner between checkpoints, start it again"
for _ in $(seq 1 600); do
  last=$(grep -o '"step":[0-9]*' "$run/metrics.jsonl" 2>/dev/null | tail -1 | cut -d: -f2)
  [[ -n "$last" ]] && ((last % 20 >= 5 && last % 20 <= 15)) && break
  sleep 0.05
done
kill -9 "$learner_pid"
wait "$learner_pid" 2>/dev/null
cp "$run/metrics.jsonl" "$tmp/before.jsonl"
ckpt=$(ls -d "$run"/checkpoints/step-* | grep -v '\.tmp-' | sort | tail -1)
ckpt_step=$((10#${ckpt##*step-}))
echo "learner killed at step $last; newest checkpoint at step $ckpt_step"
"${learner[@]}" >"$tmp/learner2.log" 2>&1 &
learner_pid=$!
pids+=("$learner_pid")
# The killed learner's last status may already show a step past the checkpoint (it ran on
# between the read of metrics.jsonl and the kill), so wait for the new learner's own word
# before reading its progress from Redis.
for _ in $(seq 1 600); do
  grep -q "resumed $run at step $ckpt_step" "$tmp/learner2.log" && break
  kill -0 "$learner_pid" 2>/dev/null || break
  sleep 0.1
done
grep -q "resumed $run at step $ckpt_step" "$tmp/learner2.log" || fail "no resume message: $(cat "$tmp/learner2.log")"
wait_until 60 "s['learner']['step'] >= $ckpt_step + 20" || fail "the learner did not resume: $(tail -5 "$tmp/learner2.log")"
version=$(field 's["model"]["version"]')
wait_until 30 "s['actors'][0]['version'] >= $version" || fail "the actor did not pick up the resumed learner's model"

# Stop the actor, let the learner take everything, stop it (a final checkpoint acknowledges all).
kill -INT "$pid_a2"
wait "$pid_a2"
[[ $? == 0 ]] || fail "the actor did not exit 0 on SIGINT: $(tail -5 "$tmp/actor-a2.log")"
wait_until 30 's["stream"]["backlog"] == 0' || fail "the learner did not read the whole stream: $(status)"
sleep 0.5
kill -INT "$learner_pid"
wait "$learner_pid"
[[ $? == 0 ]] || fail "the learner did not exit 0 on SIGINT: $(tail -5 "$tmp/learner2.log")"

python3 "$(dirname "$0")/../nn/check_resume.py" "$tmp/before.jsonl" "$run/metrics.jsonl" "$ckpt_step" \
  || fail "metrics after the learner's resume"
final=$(ls -d "$run"/checkpoints/step-* | sort | tail -1)
learner_games=$(python3 -c "import json; print(json.load(open('$final/state.json'))['games'])")
stream_games=$(redis-cli -p "$port" XLEN pz:ttt:games)
pending=$(redis-cli -p "$port" XPENDING pz:ttt:games learners | head -1)
echo "stream $stream_games games; the learner's final checkpoint counts $learner_games; $pending pending"
# Every game is in the learner's checkpoint or still pending for it (read again on a restart),
# and none is counted twice.
((learner_games + pending == stream_games)) \
  || fail "the checkpoint counts $learner_games games and $pending are pending, but the stream holds $stream_games"
grep -q "skipped" "$tmp/learner.log" "$tmp/learner2.log" && fail "the learner skipped stream entries: $(grep skipped "$tmp"/learner*.log | head -3)"

[[ $failures == 0 ]] && echo "distributed_redis_run: all passed in $SECONDS s"
exit $((failures > 0))
