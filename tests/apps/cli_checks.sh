# The checks the CLI tests share; sourced after `pz` is set. Gives a temporary directory
# $tmp (removed on exit), a failure count, and:
#   run CMD...                  runs it, keeping stdout/stderr in $out/$err and the status
#   expect_status CODE CMD...   runs it and fails unless it exits with CODE
#   expect_out TEXT, expect_err TEXT   the last run's stdout/stderr contains TEXT (literal)
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$@" >"$tmp/out" 2>"$tmp/err"; status=$?; out=$(cat "$tmp/out"); err=$(cat "$tmp/err"); }
expect_status() { local want=$1; shift; run "$@"; [[ $status == "$want" ]] || fail "'$*' exited $status, want $want; stderr: $err"; }
expect_out() { [[ $out == *"$1"* ]] || fail "stdout lacks '$1': $out"; }
expect_err() { [[ $err == *"$1"* ]] || fail "stderr lacks '$1': $err"; }
