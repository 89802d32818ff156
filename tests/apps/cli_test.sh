#!/usr/bin/env bash
# End-to-end checks of the polyzero command line: real binary, real arguments.
# Usage: cli_test.sh path/to/polyzero
set -uo pipefail
pz=$1
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect_status CODE -- command...: runs it, keeps stdout/stderr in $out/$err
run() { "$@" >"$tmp/out" 2>"$tmp/err"; status=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err"); }
expect_status() { local want=$1; shift; run "$@"; [[ $status == "$want" ]] || fail "'$*' exited $status, want $want; stderr: $err"; }
expect_out() { [[ $out == *"$1"* ]] || fail "stdout lacks '$1': $out"; }
expect_err() { [[ $err == *"$1"* ]] || fail "stderr lacks '$1': $err"; }

# --help lists every subcommand with one line each, and each has --help.
expect_status 0 "$pz" --help
main_help=$out
for cmd in train play games perft bench info; do
  [[ $main_help == *"  $cmd  "* ]] || fail "--help does not list $cmd: $main_help"
  expect_status 0 "$pz" $cmd --help
  expect_out "Usage:"
done

# games
expect_status 0 "$pz" games
for g in tictactoe connect4 hex othello go breakthrough; do expect_out "$g"; done
expect_out "size (int, 5..19, default 11)"
expect_status 0 "$pz" games --json
echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d)>=6; assert {"name","family","options"} <= set(d[0])' \
  || fail "games --json is not the expected JSON"

# perft, text and JSON, with options both ways
expect_status 0 "$pz" perft --game connect4 --depth 4 --json
[[ $out == '{"depth":4,"game":"connect4:height=6,width=7","nodes":2401}' ]] || fail "perft json: $out"
expect_status 0 "$pz" perft --game othello --depth 5
expect_out "= 1396"
expect_status 0 "$pz" perft --game hex --options size=5,swap=false --depth 2 --json
expect_out '"nodes":600'
expect_status 0 "$pz" perft --game hex:size=5 --depth 2 --json
expect_out '"nodes":625'

# Errors: unknown game or option → the valid ones, exit 2, no stack trace.
expect_status 2 "$pz" perft --game chess --depth 1
expect_err "unknown game 'chess'"
expect_err "connect4"
expect_status 2 "$pz" perft --game hex:colour=red --depth 1
expect_err "valid options: size, swap"
expect_status 2 "$pz" perft --game go:size=30 --depth 1
expect_err "5..19"
expect_status 2 "$pz" play --game connect4 --p1 alphago --p2 random
expect_err "known players: human, random"
expect_status 2 "$pz" frobnicate
expect_status 2 "$pz" perft --game connect4

# play: scripted human input against random, and two random players.
run "$pz" play --game connect4 --p1 human --p2 random --seed 1 <<<$'9\n4\nundo\nhelp\nquit\n'
[[ $status == 0 ]] || fail "play exited $status"
expect_out "Cannot read '9'"
expect_out "player 2 (random) plays"
expect_out "Undone."
expect_out "Commands:"
expect_status 0 "$pz" play --game tictactoe --p1 random --p2 random --seed 3
expect_out "Game over after"

# bench
expect_status 0 "$pz" bench games --game tictactoe --game connect4 --seconds 0.05 --json
[[ $(echo "$out" | wc -l) == 2 ]] || fail "bench games --json should print one line per game: $out"
expect_out '"moves_per_second"'

# train until the trainer lands: explains itself and shows the help.
expect_status 0 "$pz" train --game connect4
expect_out "not part of this build yet"

if [[ $failures -gt 0 ]]; then
  echo "$failures CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
