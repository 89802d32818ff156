#!/usr/bin/env bash
# Browser end-to-end test of `polyzero serve`: starts the server on a free port with a
# throw-away database, plays games through the web page in headless Chromium
# (play_test.mjs) and stops the server. Exits with the test's status.
# Skips (exit 0) only when Chromium, node or tests/browser/node_modules is missing.
# Usage: tests/browser/run.sh build/polyzero
#   BROWSER_TEST_GAMES=game2048,snake,tron (play_test.mjs's game functions) runs only those.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
[[ $# -eq 1 ]] || { echo "usage: $0 path/to/polyzero" >&2; exit 2; }
pz=$(realpath "$1" 2>/dev/null) && [[ -x $pz ]] || { echo "FAIL: no executable polyzero at '$1'" >&2; exit 2; }

missing=()
[[ -x /usr/bin/chromium ]] || missing+=("/usr/bin/chromium (apt package chromium)")
command -v node >/dev/null || missing+=("node (apt package nodejs)")
[[ -d $here/node_modules/playwright-core ]] || missing+=("tests/browser/node_modules (cd tests/browser && npm ci)")
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "SKIP: browser test: missing ${missing[*]}; install them with scripts/setup.sh"
  exit 0
fi

tmp=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts the server on port $1 and sets $url from its first line of output
# ("serving on http://127.0.0.1:PORT"); returns 1 if it exits or stays silent for 20 s.
start_server() {
  : >"$tmp/out"
  (cd "$repo" && exec "$pz" serve --host 127.0.0.1 --port "$1" --db "$tmp/serve.sqlite") \
    >"$tmp/out" 2>"$tmp/err" &
  server_pid=$!
  url=
  for _ in $(seq 200); do
    url=$(sed -n '1s|^serving on \(https\?://[^ ]*\).*$|\1|p' "$tmp/out")
    [[ -n $url ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || { wait "$server_pid" 2>/dev/null; server_pid=; return 1; }
    sleep 0.1
  done
  return 1
}

# Port 0 lets the system choose; should the server refuse it, a free port is picked here.
if ! start_server 0 && ! start_server "$(free_port)"; then
  echo "FAIL: polyzero serve did not print 'serving on URL'. stdout:"; cat "$tmp/out"
  echo "stderr:"; tail -n 30 "$tmp/err"
  exit 1
fi
echo "server: $url (pid $server_pid)"

# Waits until the API answers.
api_ready=0
for _ in $(seq 100); do
  if node -e 'fetch(process.argv[1] + "/api/games").then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$url"; then
    api_ready=1
    break
  fi
  sleep 0.1
done
if [[ $api_ready -ne 1 ]]; then
  echo "FAIL: GET $url/api/games did not answer within 10 s. stderr:"; tail -n 30 "$tmp/err"
  exit 1
fi

(cd "$here" && timeout 120 node play_test.mjs "$url")
status=$?
if ! kill -0 "$server_pid" 2>/dev/null; then
  wait "$server_pid"
  echo "FAIL: polyzero serve exited during the test (status $?)"
  server_pid=
  status=1
fi
if [[ $status -ne 0 ]]; then
  echo "server stderr (last 30 lines):"; tail -n 30 "$tmp/err"
fi
exit $status
