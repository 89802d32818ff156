#!/usr/bin/env bash
# A distributed run on one machine, as it would be spread over several: a Redis server, one
# learner and four actor processes, `polyzero status` every 15 s, then a clean stop.
#
#   scripts/cluster-example.sh [--game tictactoe] [--minutes 2] [--actors 4] [--port 6390]
#
# Everything lives in a temporary directory (printed), the run directory included, unless
# --dir DIR is given. On several hosts it is the same commands: redis-server on one host
# (with requirepass and appendonly yes), `polyzero train --redis redis://HOST:PORT --run NAME`
# on the learner's host, `polyzero selfplay --redis redis://HOST:PORT --run NAME` on each
# actor host, the password in POLYZERO_REDIS_PASSWORD or --redis-password-file on all.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pz=${PZ:-$root/build/polyzero}
game=tictactoe minutes=2 actors=4 port=6390 dir=
while [[ $# -gt 0 ]]; do
  case $1 in
    --game) game=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --actors) actors=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *) echo "cluster-example.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -x $pz ]] || { echo "cluster-example.sh: no $pz; build first (scripts/build.sh) or set PZ" >&2; exit 2; }
command -v redis-server >/dev/null || { echo "cluster-example.sh: no redis-server; run scripts/setup.sh" >&2; exit 2; }
[[ -n $dir ]] || dir=$(mktemp -d)
mkdir -p "$dir/redis"
url=redis://127.0.0.1:$port
run=example-$game
pids=()
stop_all() {
  # Actors first (they send what they finished), then the learner (it checkpoints), then Redis.
  for p in "${pids[@]:1}"; do kill -INT "$p" 2>/dev/null || true; done
  for p in "${pids[@]:1}"; do wait "$p" 2>/dev/null || true; done
  [[ ${#pids[@]} -gt 0 ]] && { kill -INT "${pids[0]}" 2>/dev/null || true; wait "${pids[0]}" 2>/dev/null || true; }
  redis-cli -p "$port" shutdown >/dev/null 2>&1 || true
}
trap stop_all EXIT

echo "redis-server on $url, files in $dir"
redis-server --port "$port" --bind 127.0.0.1 --dir "$dir/redis" --appendonly yes --save '' \
  --logfile "$dir/redis.log" --daemonize yes
for _ in $(seq 1 50); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done

echo "learner: $pz train --redis $url --run $run --game $game (log: $dir/learner.log)"
"$pz" train --redis "$url" --run "$run" --run-dir "$dir/run" --game "$game" --minutes "$minutes" \
  >"$dir/learner.log" 2>&1 &
pids+=("$!")
sleep 3  # the learner registers the run and publishes its first model
for i in $(seq 1 "$actors"); do
  echo "actor $i: $pz selfplay --redis $url --run $run (log: $dir/actor-$i.log)"
  "$pz" selfplay --redis "$url" --run "$run" --id "actor-$i" >"$dir/actor-$i.log" 2>&1 &
  pids+=("$!")
done
end=$((SECONDS + ${minutes%.*} * 60))
while ((SECONDS < end)) && kill -0 "${pids[0]}" 2>/dev/null; do
  sleep 15
  echo "--- $(date +%T)"
  "$pz" status --redis "$url" --run "$run" || true
done
wait "${pids[0]}" 2>/dev/null || true
echo "learner finished; model: $dir/run/models/latest.pt"
