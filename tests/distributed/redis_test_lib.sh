# What the Redis end-to-end tests share; sourced after `pz` and `redis_server` are set.
#   $tmp              a temporary directory, removed on exit (kept with PZ_KEEP_TEST_DIR=1)
#   pids+=(PID)       processes killed on exit (continued first, in case a test stopped one)
#   redis_pid         a restartable redis-server, also killed on exit
#   fail MESSAGE      counts a failure; die MESSAGE prints the logs' tails and exits 1
#   free_port         an unused loopback port
#   start_plain_redis PORT   a redis-server without persistence, waited for
#   expect_error STATUS PATTERN CMD...   CMD exits with STATUS and its output has PATTERN
tmp=$(mktemp -d)
pids=()
redis_pid=
cleanup() {
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
  [[ -n $redis_pid ]] && kill -9 "$redis_pid" 2>/dev/null
  wait 2>/dev/null
  if [[ -n ${PZ_KEEP_TEST_DIR:-} ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
die() { echo "FAIL: $*"; for f in "$tmp"/*.log; do echo "--- $f"; tail -20 "$f"; done; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_plain_redis() {
  "$redis_server" --port "$1" --bind 127.0.0.1 --dir "$tmp" --save '' --appendonly no --logfile "$tmp/redis-server.log" &
  pids+=("$!")
  for _ in $(seq 1 100); do redis-cli -p "$1" ping 2>/dev/null | grep -q PONG && return 0; sleep 0.1; done
  die "redis-server did not answer on port $1"
}
expect_error() {  # status pattern command...
  local want=$1 pattern=$2
  shift 2
  "$@" >"$tmp/err.out" 2>&1
  local got=$?
  [[ $got == "$want" ]] || fail "$* exited $got, want $want: $(cat "$tmp/err.out")"
  grep -q -- "$pattern" "$tmp/err.out" || fail "$*: no '$pattern' in: $(cat "$tmp/err.out")"
}
