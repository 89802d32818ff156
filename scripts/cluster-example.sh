#!/usr/bin/env bash
# A distributed run on one machine, as it would be spread over several: a Redis server, two
# data-parallel learners (c10d Gloo, rank 0 listening on --master-port) and four actor
# processes, `polyzero status` every 15 s, then a clean stop.
#
#   scripts/cluster-example.sh [--game tictactoe] [--minutes 2] [--learners 2] [--actors 4]
#                              [--port 6390] [--master-port 29500]
#
# Everything lives in a temporary directory (printed), the run directory included (rank R > 0
# keeps its files in RUN_DIR/rank-R), unless --dir DIR is given. On several hosts it is the
# same commands: redis-server on one host (with requirepass and appendonly yes),
# `polyzero train --redis redis://HOST:PORT --run NAME --rank R --world-size W --master
# HOST0:PORT` on each learner's host (or RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT as torchrun
# and Slurm job scripts set them), `polyzero selfplay --redis redis://HOST:PORT --run NAME` on
# each actor host, the password in POLYZERO_REDIS_PASSWORD or --redis-password-file on all.
# Learners must all be given the same --minutes (or --steps): they stop together.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pz=${PZ:-$root/build/polyzero}
game=tictactoe minutes=2 learners=2 actors=4 port=6390 master_port=29500 dir=
while [[ $# -gt 0 ]]; do
  case $1 in
    --game) game=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --actors) actors=$2; shift 2 ;;
    --learners) learners=$2; shift 2 ;;
    --master-port) master_port=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n 2,18p "$0"; exit 0 ;;
    *) echo "cluster-example.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -x $pz ]] || { echo "cluster-example.sh: no $pz; build first (scripts/build.sh) or set PZ" >&2; exit 2; }
command -v redis-server >/dev/null || { echo "cluster-example.sh: no redis-server; run scripts/setup.sh" >&2; exit 2; }
[[ -n $dir ]] || dir=$(mktemp -d)
mkdir -p "$dir/redis"
url=redis://127.0.0.1:$port
run=example-$game
learner_pids=() actor_pids=()
stop_all() {
  # Actors first (they send what they finished), then the learners (a signal to any of them
  # stops all at the same step, each with a checkpoint), then Redis.
  for p in "${actor_pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  for p in "${actor_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for p in "${learner_pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  for p in "${learner_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  redis-cli -p "$port" shutdown >/dev/null 2>&1 || true
}
trap stop_all EXIT

echo "redis-server on $url, files in $dir"
redis-server --port "$port" --bind 127.0.0.1 --dir "$dir/redis" --appendonly yes --save '' \
  --logfile "$dir/redis.log" --daemonize yes
for _ in $(seq 1 50); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done

for rank in $(seq 0 $((learners - 1))); do
  echo "learner $rank: $pz train --redis $url --run $run --game $game --rank $rank --world-size $learners" \
    "--master 127.0.0.1:$master_port (log: $dir/learner-$rank.log)"
  "$pz" train --redis "$url" --run "$run" --run-dir "$dir/run" --game "$game" --minutes "$minutes" \
    --rank "$rank" --world-size "$learners" --master "127.0.0.1:$master_port" >"$dir/learner-$rank.log" 2>&1 &
  learner_pids+=("$!")
done
sleep 3  # rank 0 registers the run and publishes its first model
for i in $(seq 1 "$actors"); do
  echo "actor $i: $pz selfplay --redis $url --run $run (log: $dir/actor-$i.log)"
  "$pz" selfplay --redis "$url" --run "$run" --id "actor-$i" >"$dir/actor-$i.log" 2>&1 &
  actor_pids+=("$!")
done
end=$((SECONDS + ${minutes%.*} * 60))
while ((SECONDS < end)) && kill -0 "${learner_pids[0]}" 2>/dev/null; do
  sleep 15
  echo "--- $(date +%T)"
  "$pz" status --redis "$url" --run "$run" || true
done
for p in "${learner_pids[@]}"; do wait "$p" 2>/dev/null || true; done
grep -h "weights fnv1a" "$dir"/learner-*.log || true
echo "learners finished; model: $dir/run/models/latest.pt"
