#!/usr/bin/env bash
# End-to-end checks of the polyzero command line: real binary, real arguments.
# Usage: cli_test.sh path/to/polyzero
set -uo pipefail
pz=$1
source "$(dirname "$0")/cli_checks.sh"

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
expect_out "size (int, 2..19, default 11)"
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
# The default opponent is the game's default AI: the shipped network of exactly its board.
run "$pz" play --game hex:size=8,swap=false <<<$'quit\n'
[[ $status == 0 ]] || fail "play exited $status: $err"
expect_out "player 2 (mcts:model="
expect_out "models/hex.safetensors,sims=400)"
run "$pz" play --game hex:size=9 <<<$'quit\n'
expect_out "player 2 (mcts:sims=800)"
# A gtp player whose program does not exist is an error, never a match won by forfeits.
expect_status 2 "$pz" match --game othello --p1 random --p2 'gtp:cmd=/nonexistent/engine' --games 2
expect_err "is the program installed?"
run "$pz" gtp --game hex:size=8,swap=false <<<$'genmove b\nboardsize 9\ngenmove b\nquit\n'
[[ $status == 0 && $out != *"?"* ]] || fail "gtp with the default AI across board sizes: $out $err"

# bench
expect_status 0 "$pz" bench games --game tictactoe --game connect4 --seconds 0.05 --json
[[ $(echo "$out" | wc -l) == 2 ]] || fail "bench games --json should print one line per game: $out"
expect_out '"moves_per_second"'
expect_status 0 "$pz" bench mcts --game tictactoe --threads 1 --seconds 0.05 --rounds 1 --json
[[ $(echo "$out" | wc -l) == 4 ]] || fail "bench mcts --threads 1 --json: two rows, the reference's row and its ratio: $out"
expect_out '"search":"mctsbot-design"'
expect_out '"rollout_vs_mctsbot_design"'

# train: the resolved config; mistakes name the field and exit 2 (runs: tests/nn).
expect_status 0 "$pz" train --game tictactoe --print-config --set learner.steps=300
expect_out '"total_iters": 250'
expect_status 2 "$pz" train --game connect4 --set selfplay.simulatons=5 --print-config
expect_err "simulatons"
expect_status 2 "$pz" train --resume "$tmp/no-such-run"
expect_err "no such directory"
# Values train would refuse once running are refused before --print-config shows them.
expect_status 2 "$pz" train --game tictactoe --set 'eval.opponents=["uct:simz=3"]' --print-config
expect_err "eval.opponents[0]: unknown option 'simz'"
expect_status 2 "$pz" train --game tictactoe --print-config \
  --set 'learner.optimizer={"type":"sgd","lr":0.1,"param_groups":[{"match":["nothing*"]}]}'
expect_err "selects no parameter"
expect_status 2 "$pz" train --game tictactoe --print-config --set 'learner.scheduler={"type":"multistep","milestones":[5,3]}'
expect_err "milestones"
expect_status 2 "$pz" train --game tictactoe --print-config --set 'learner.scheduler.warmup.steps="q"'
expect_err "warmup.steps"
# --resume keeps the run's game: another --game is refused before anything runs.
mkdir -p "$tmp/c4run" && echo '{"game": "connect4"}' >"$tmp/c4run/config.json"
expect_status 2 "$pz" train --resume "$tmp/c4run" --game tictactoe
expect_err "continues a run of connect4"
expect_status 2 "$pz" train --resume "$tmp/c4run" --options width=9
expect_err "ask for connect4:height=6,width=9"
# A mistyped command is named, with the nearest one.
expect_status 2 "$pz" trian --game tictactoe
expect_err "unknown command 'trian' (did you mean 'train'?)"
# A directory where a file is expected says so.
expect_status 2 "$pz" info "$tmp"
expect_err "not a training run"
expect_status 2 "$pz" play --game tictactoe --p1 mcts:model="$tmp" --p2 random
expect_err "a directory, not a file"
expect_status 2 "$pz" tournament --game tictactoe --players random uct --openings "$tmp"
expect_err "a directory, not a file"
echo "not a model" >"$tmp/fake.pt"
expect_status 2 "$pz" info "$tmp/fake.pt"
expect_err "cannot read model checkpoint"
expect_status 2 "$pz" play --game connect4 --p1 mcts:model="$tmp/fake.pt" --p2 random
expect_err "cannot read model checkpoint"

# lr: a schedule as text, JSON and SVG; config mistakes name the field and exit 2.
[[ $main_help == *"  lr  "* ]] || fail "--help does not list lr: $main_help"
expect_status 0 "$pz" lr --list
expect_out "poly (PolynomialLR): total_iters or total_steps (5)"
expect_status 2 "$pz" lr --steps 3
expect_err "--config is required (--list shows the scheduler types)"
sched='{"type":"poly","total_iters":4,"power":1,"warmup":{"type":"linear","steps":2,"start_factor":0.5}}'
expect_status 0 "$pz" lr --config "$sched" --steps 8 --lr 0.1
expect_out "step lr"
expect_out $'\n2 0.1\n'
expect_out $'\n6 0\n'
expect_status 0 "$pz" lr --config "$sched" --steps 8 --lr 0.1 --json
echo "$out" | python3 -c '
import json, sys
lr = json.load(sys.stdin)["lr"]
want = [0.05, 0.075, 0.1, 0.075, 0.05, 0.025, 0.0, 0.0]
assert len(lr) == 8 and all(abs(a - b) < 1e-15 for a, b in zip(lr, want)), lr' || fail "lr --json: $out"
echo '{"type": "cosine", "T_max": 50, "eta_min": 0.001}' >"$tmp/sched.json"
expect_status 0 "$pz" lr --config "$tmp/sched.json" --steps 60 --plot "$tmp/lr.svg"
[[ -s $tmp/lr.svg ]] && grep -q '<polyline' "$tmp/lr.svg" && grep -q '>learning rate</text>' "$tmp/lr.svg" \
  && grep -q '</svg>' "$tmp/lr.svg" || fail "lr --plot did not write a plot"
expect_status 2 "$pz" lr --config '{"type":"poly","powr":2}' --steps 3
expect_err "unknown field 'powr'"
expect_err "allowed fields:"
expect_status 2 "$pz" lr --config '{"type":"multistep","milestones":[5,3]}' --steps 3
expect_err "scheduler.milestones[1]"
expect_status 2 "$pz" lr --config '{"type":' --steps 3
expect_err "is not valid JSON"
expect_status 2 "$pz" lr --config "$tmp/missing.json" --steps 3
expect_err "cannot read --config: $tmp/missing.json: no such file"
expect_status 2 "$pz" lr --config "$tmp" --steps 3
expect_err "a directory, not a file"
expect_status 2 "$pz" lr --config '{"type":"one_cycle","max_lr":1,"total_steps":5}' --steps 10
expect_err "past the end of the cycle"
expect_status 2 "$pz" lr --config '{"type":"reduce_on_plateau"}' --steps 4
expect_err "3 metric values"
printf '1 0.9 0.95\n' >"$tmp/metrics.txt"
expect_status 0 "$pz" lr --config '{"type":"reduce_on_plateau","patience":0,"factor":0.5}' --steps 4 --metrics "$tmp/metrics.txt" --json
[[ $out == '{"lr":[1.0,1.0,1.0,0.5]}' ]] || fail "lr with metrics: $out"

# single-player games: play takes no --p2; match compares players on the same seeds
expect_status 2 "$pz" play --game 2048 --p1 random --p2 random
expect_err "single-player game"
expect_status 0 "$pz" match --game mastermind:length=3,colours=4 --p1 uct:sims=2000 --p2 random --games 4 --json
echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["games"]==4 and d["p1_score"]["mean"] > d["p2_score"]["mean"], d' \
  || fail "single-player match json: $out"
expect_status 0 "$pz" match --game snake --p1 random --games 2 -q
expect_out "mean score"
expect_status 2 "$pz" match --game connect4 --p1 random --games 2
expect_err "give the second player with --p2"

# polyc: two tiling levels given on the command line; a bad size names itself.
cat >"$tmp/mm.c" <<'C'
#define N 200
static double A[N][N], B[N][N], C[N][N];
void mm(void) {
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++) for (k = 0; k < N; k++) for (j = 0; j < N; j++) C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
C
expect_status 0 "$pz" polyc "$tmp/mm.c" -o "$tmp/mm_out.c" --tile 32,32,64/8,8,16 --report
expect_out "tiled 32x32x64 (given)"
expect_out "tiled again inside each tile 8x8x16 (given)"
gcc -c -Wall -Wextra -Werror -fopenmp "$tmp/mm_out.c" -o "$tmp/mm_out.o" || fail "polyc two-level output does not compile"
expect_status 2 "$pz" polyc "$tmp/mm.c" -o "$tmp/mm_out.c" --tile 32,32/8,x
expect_err "'x' is not a tile size"

# polyc on a network: the poly backend's plan; usage errors say what to give.
cat > "$tmp/c4net.json" <<'EOF2'
{"game": "connect4", "network": {"type": "resnet", "blocks": 1, "channels": 16}}
EOF2
expect_status 0 "$pz" polyc --report-net "$tmp/c4net.json" --json --train-batch 0
expect_out '"flops_per_position"'
expect_out 'register-blocked reduction chain'
expect_out '"training_step": null'
expect_status 0 "$pz" polyc --report-net "$tmp/c4net.json" --train-batch 16
expect_out "training step of the poly learner (learner.backend \"poly\"), batch 16"
expect_out "batch-norm  residual add, ReLU"
expect_out "(0 of "
expect_out "tower.0.conv1"
expect_out "7x16 register block (rows w, vectors o)"
expect_out "stored as [n][h+2][w+2][c]"
expect_out "per position, all layers: L1 loads"
expect_out "backward fusions weighed on polyc's footprints"
expect_out "placed by the storage planner"
expect_status 2 "$pz" polyc
expect_err "expected IN.c -o OUT.c"
expect_status 2 "$pz" polyc --report-net "$tmp/missing.json"
expect_err "missing.json: no such file"
expect_status 2 "$pz" polyc "$tmp" -o "$tmp/out.c"
expect_err "a directory, not a file"

# bench nn: both backends on a small net, one row per batch size, then the summary.
expect_status 0 "$pz" bench nn --game connect4 --set network.blocks=1 --set network.channels=8 --batches 1,3 --seconds 0.02 --rounds 1 --json
expect_out '"batch":3'
expect_out '"poly_over_torch"'
expect_out '"peak_gflops"'
expect_out '"poly_over_direct"'
expect_status 0 "$pz" bench nn --game connect4 --set network.blocks=1 --set network.channels=8 --batches 2 --seconds 0.02 --rounds 1
expect_out "poly/direct"
expect_status 2 "$pz" bench train --backends tensorflow
# bench recsys: each row's rates with one core's FMA peak measured in the same run.
expect_status 0 "$pz" bench recsys --batch 8 --features 3 --dims 4 --kernels fm --seconds 0.02 --rounds 1 --json
expect_out '"kernel":"fm"'
expect_out '"peak_gflops"'
expect_out '"poly_peak_share"'

# solve: exact values of a position and of each move; games without a solver are refused.
expect_status 0 "$pz" solve --game tictactoe
expect_out "player 1 to move: draw"
expect_status 0 "$pz" solve --game connect4 --moves 121212 --json
expect_out '"value":"win"'
expect_out '"plies":1'
expect_status 0 "$pz" solve --game connect4 --moves "1 2 1 2 1 2"
expect_out "win in 1 plies"
expect_status 0 "$pz" solve --game connect4 --moves 44 --seconds 0.05
expect_out "unknown: not solved within 0.05 s"
expect_status 2 "$pz" solve --game 2048
expect_err "two-player"
expect_status 2 "$pz" solve --game connect4 --moves 1111111
expect_err "move 7"
expect_status 2 "$pz" solve --game tictactoe --moves "a1 a2 b1 b2 c1"
expect_err "the game is over"

# accuracy: labelled positions, the perfect player at 100%, a saved set reloads.
expect_status 0 "$pz" accuracy --game connect4 --player solver --player random --positions generate:12 --plies 26-34 --save "$tmp/c4.jsonl" --json
expect_out '"all":{"correct":12,'
expect_out '"player":"solver"'
expect_status 0 "$pz" accuracy --game connect4 --player solver --positions "$tmp/c4.jsonl"
expect_out "100.0%"
expect_status 2 "$pz" accuracy --game tictactoe --player random --positions "$tmp/c4.jsonl"
expect_err "the positions are for connect4"
expect_status 2 "$pz" accuracy --game connect4 --player random --positions generate:0
expect_err "generate:N"
expect_status 2 "$pz" accuracy --game connect4 --player random --plies 9-3
expect_err "--plies '9-3'"
expect_status 2 "$pz" accuracy --game connect4 --player nosuch --positions generate:100000
expect_err "unknown player 'nosuch'"
expect_status 2 "$pz" accuracy --game connect4 --player random --positions "$tmp"
expect_err "is a directory"
# Ctrl-C while labelling keeps the positions labelled so far: saved, then the command ends.
"$pz" accuracy --game connect4 --player random --positions generate:1000000 --plies 20-30 --save "$tmp/part.jsonl" \
  >"$tmp/part.out" 2>"$tmp/part.err" &
part_pid=$!
# Interrupt once a position is labelled (the progress line says so), however busy the machine.
for _ in $(seq 600); do
  grep -Eq '^labelled [1-9][0-9]* of' "$tmp/part.err" && break
  sleep 0.1
done
kill -INT $part_pid
wait $part_pid || fail "accuracy stopped by Ctrl-C exited $?"
grep -q "stopped by Ctrl-C" "$tmp/part.err" || fail "accuracy's Ctrl-C message is missing: $(cat "$tmp/part.err")"
[[ $(wc -l <"$tmp/part.jsonl") -ge 2 ]] || fail "Ctrl-C saved no labelled positions"
expect_status 0 "$pz" accuracy --game connect4 --player random --positions "$tmp/part.jsonl"
expect_status 0 "$pz" bench solve --game connect4 --plies 20,26 --positions 2 --json
expect_out '"ply":26'
expect_out '"nodes_per_second"'
expect_status 2 "$pz" bench solve --game 2048
expect_err "two-player"

# gtp: polyzero as a GTP engine on stdin/stdout; an external engine as a player forfeits on failure.
run "$pz" gtp --game go --p random:seed=1 <<<$'protocol_version\n1 name\n2 genmove b\nplay b d4\nfrobnicate\nboardsize 30\n3 quit\nname\n'
[[ $status == 0 ]] || fail "gtp exited $status; stderr: $err"
expect_out $'= 2\n\n=1 polyzero\n\n=2 '
expect_out $'\n\n? illegal move: it is white\'s turn (colours alternate in this engine)\n\n? unknown command\n\n'
expect_out $'? unacceptable size\n\n=3'
[[ $out != *"= polyzero"* ]] || fail "gtp answered after quit: $out"
run "$pz" gtp --game hex:size=5 --p random:seed=1 <<<$'boardsize 2\nplay b a1\nplay w b1\nplay b a2\nfinal_score\n'
expect_out $'= B+'
expect_status 2 "$pz" gtp --game connect4
expect_err "speaks GTP for go and hex"
expect_status 2 "$pz" gtp --game go --p human
expect_err "cannot be 'human'"
# An engine that answered once and then dies forfeits its games; one that never answers is
# a usage error, so that a wrong command line never scores as wins.
dies="read l; printf '\075 x\n\n'; exit 3"  # answers "name", then exits
expect_status 0 "$pz" match --game go:size=5 --p1 "gtp:cmd=$dies" --p2 random --games 2 --json
expect_out '"forfeit_by":"p1"'
# The engine may be gone before the command is written ("before") or after ("on").
[[ $out == *"exited (status 3) on 'boardsize 5'"* || $out == *"exited (status 3) before 'boardsize 5'"* ]] ||
  fail "stdout lacks the engine's exit on 'boardsize 5': $out"
expect_out '"losses":2'
expect_status 0 "$pz" match --game go:size=5 --p1 random --p2 "gtp:cmd=$dies" --games 1
expect_out "p2 engine failure: gtp engine '$dies' exited (status 3)"
expect_status 2 "$pz" match --game go:size=5 --p1 "gtp:cmd=exit 3" --p2 random --games 1
expect_err "before answering any command"
expect_status 2 "$pz" match --game connect4 --p1 "gtp:cmd=gnugo" --p2 random
expect_err "speaks GTP for go, hex and othello"

# tournament: ratings with intervals, a crosstable, SQLite records that resume, replay, SGF.
expect_status 0 "$pz" tournament --game connect4 --players random uct:sims=30 uct:sims=300 --games 4 --db "$tmp/t.sqlite" -q
expect_out "Rank  Player"
expect_out "anchor"
expect_out "12 of 12 games"
expect_status 0 "$pz" tournament --game connect4 --players random uct:sims=30 uct:sims=300 --games 6 --db "$tmp/t.sqlite"
expect_err "continuing tournament 1"
expect_err "12 of 18 games already played"
expect_out "18 of 18 games"
expect_status 0 "$pz" tournament --game tictactoe --players random uct:sims=100 --format gauntlet --games 2 --openings random:2 --json --anchor random=1000
echo "$out" | python3 -c '
import json,sys
d=json.load(sys.stdin)
assert d["games_played"]==2 and d["complete"], d
r={p["player"]:p for p in d["ratings"]}
assert r["random"]["elo"]==1000, r
assert r["uct:sims=100"]["interval95"]>0, r' || fail "tournament --json: $out"
expect_status 0 "$pz" replay --db "$tmp/t.sqlite"
expect_out "tournament 1: connect4"
expect_status 0 "$pz" replay --db "$tmp/t.sqlite" --game-id 1
expect_out "first: random"
expect_status 0 "$pz" replay --db "$tmp/t.sqlite" --tournament 1
expect_out "game 18:"
expect_status 2 "$pz" replay --db "$tmp/t.sqlite" --game-id 99
expect_err "no game 99"
expect_status 2 "$pz" replay --db "$tmp/t.sqlite" --game-id 1 --sgf
expect_err "SGF export is for Go games"
expect_status 2 "$pz" replay --db "$tmp/none.sqlite"
expect_err "does not exist"
expect_status 0 "$pz" tournament --game go:size=5 --players random:seed=1 random:seed=2 --games 2 --db "$tmp/go.sqlite" -q
expect_status 0 "$pz" replay --db "$tmp/go.sqlite" --game-id 1 --sgf
expect_out "(;GM[1]FF[4]"
expect_out "SZ[5]"
# Bad tournaments: usage errors with status 2.
expect_status 2 "$pz" tournament --game connect4 --players random
expect_err "at least two players"
expect_status 2 "$pz" tournament --game connect4 --players random random
expect_err "listed twice"
expect_status 2 "$pz" tournament --game connect4 --players random human
expect_err "is a person"
expect_status 2 "$pz" tournament --game 2048 --players random random:seed=2
expect_err "two-player games"
expect_status 2 "$pz" tournament --game connect4 --players random uct:sims=10 --format swiss
expect_err "unknown tournament format 'swiss'"
expect_status 2 "$pz" tournament --game connect4 --players random uct:sims=10 --anchor uct:sims=99
expect_err "is not one of the players"
expect_status 2 "$pz" tournament --game connect4 --players random uct:sims=10 --openings random:zero
expect_err "K must be a whole number"
expect_status 2 "$pz" tournament --game connect4 --players random uct:sims=10 --db "$tmp"
expect_err "cannot"
expect_status 2 "$pz" tournament --run "$tmp/no-run"
expect_err "not a training run directory"
# A tournament killed with Ctrl-C keeps its finished games; the same command continues.
"$pz" tournament --game connect4 --players uct:sims=3000 uct:sims=3001 --games 400 --db "$tmp/int.sqlite" -q >"$tmp/out" 2>&1 &
pid=$!
for _ in $(seq 300); do [[ -s "$tmp/int.sqlite" ]] && break; sleep 0.1; done  # the Ctrl-C handler is in place
sleep 1
kill -INT $pid
wait $pid
status=$?
[[ $status == 0 ]] || fail "interrupted tournament exited $status: $(cat "$tmp/out")"
grep -q "games left; run the same command" "$tmp/out" || fail "interrupted tournament did not say how to continue: $(cat "$tmp/out")"
expect_status 0 "$pz" tournament --game connect4 --players uct:sims=3000 uct:sims=3001 --games 2 --db "$tmp/int.sqlite" -q
expect_out "of 2 games"

# sprt: a clear edge is accepted quickly; bad bounds are usage errors.
expect_status 0 "$pz" sprt --game tictactoe --p1 uct:sims=200 --p2 random --elo0 0 --elo1 100 --openings "" -q
expect_out "H1 accepted"
expect_status 0 "$pz" sprt --game connect4 --p1 uct:sims=100 --p2 random --elo0 0 --elo1 200 --json
echo "$out" | python3 -c '
import json,sys
d=json.load(sys.stdin)
assert d["decision"]=="H1 accepted" and d["llr"]>=d["upper"] and sum(d["pentanomial"])==d["pairs"], d' || fail "sprt --json: $out"
expect_status 2 "$pz" sprt --game connect4 --p1 random --p2 uct:sims=10 --elo0 10 --elo1 5
expect_err "--elo1 must be greater than --elo0"
expect_status 2 "$pz" sprt --game connect4 --p1 random --p2 random
expect_err "are the same"

# A 9x9 tournament between `polyzero gtp` and GNU Go, both driven over GTP: both games end
# with a score in the record.
if [[ -x /usr/games/gnugo ]]; then
  expect_status 0 "$pz" tournament --game go:size=9,ko=simple --players "gtp:cmd=$pz gtp --game go:size=9 --p mcts:sims=50" \
    "gtp:cmd=/usr/games/gnugo --mode gtp --level 1" --games 2 --db "$tmp/gnugo.sqlite" -q
  expect_out "2 of 2 games"
  expect_status 0 "$pz" replay --db "$tmp/gnugo.sqlite" --game-id 2 --sgf
  [[ $out == *"RE[B+"* || $out == *"RE[W+"* ]] || fail "the game against GNU Go has no score: $out"
else
  echo "skipped: the tournament against GNU Go (/usr/games/gnugo is missing; scripts/setup.sh installs it)"
fi

# analyze: JSON lines in and out; a proven Connect Four win; bad queries answered with their id.
run "$pz" analyze --threads 2 <<<$'{"id":"win","game":"connect4","moves":"4 4 3 3 2 2","sims":100}\n{"id":"open","game":"connect4","sims":200,"max_moves":3}\n{"id":"bad","game":"chess"}\nnot json\n{"id":"over","game":"tictactoe","moves":["a1","b1","a2","b2","a3"]}\n{"id":"solver","game":"tictactoe","moves":["a1","b2"],"player":"solver"}'
[[ $status == 0 ]] || fail "analyze exited $status: $err"
echo "$out" | python3 -c '
import json,sys
answers={}
for line in sys.stdin:
    a=json.loads(line); answers[a["id"]]=a
assert answers["win"]["proven"] and answers["win"]["proven_result"]=="win" and answers["win"]["move"] in ("1","5"), answers["win"]
o=answers["open"]
assert len(o["moves"])==3 and o["simulations"]==200 and 0<=o["win_probability"]<=1 and o["pv"][0]==o["move"], o
assert "unknown game" in answers["bad"]["error"], answers["bad"]
assert "not valid JSON" in answers[None]["error"], answers[None]
assert "over" in answers["over"]["error"], answers["over"]
assert answers["solver"]["move"] and "moves" not in answers["solver"], answers["solver"]
' || fail "analyze answers: $out"

# analyze: numbers that would wrap, moves cut inside UTF-8, and --untrusted queries that
# name commands or files are answered with errors, never a crash.
marker="$tmp/analyze-rce"
printf '%s\n' '{"id":"wrap","game":"tictactoe","sims":1e14}' '{"id":"wrap2","game":"tictactoe","sims":4294967696}' \
  '{"id":"frac","game":"tictactoe","seconds":-1}' '{"id":"seed","game":"tictactoe","sims":10,"seed":-5}' \
  '{"id":"utf8","game":"tictactoe","moves":["a\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"]}' \
  '{"id":"cmd","game":"go:size=5","player":"gtp:cmd=touch '"$marker"'"}' \
  '{"id":"path","game":"tictactoe","player":"mcts:model=/etc/passwd"}' \
  '{"id":"big","game":"tictactoe","player":"mcts:sims=100000000"}' \
  '{"id":"ok","game":"tictactoe","player":"mcts:sims=50"}' >"$tmp/hostile.jsonl"
run "$pz" analyze --untrusted <"$tmp/hostile.jsonl"
[[ $status == 0 ]] || fail "analyze --untrusted exited $status: $err"
[[ ! -e $marker ]] || fail "analyze --untrusted ran a shell command"
echo "$out" | python3 -c '
import json,sys
answers={}
for line in sys.stdin:
    a=json.loads(line); answers[a["id"]]=a
for key in ("wrap","wrap2","frac","seed","utf8","cmd","path","big"):
    assert "error" in answers[key], (key, answers[key])
assert "out of range" in answers["wrap"]["error"], answers["wrap"]
assert "not offered" in answers["cmd"]["error"], answers["cmd"]
assert "move" in answers["ok"], answers["ok"]
' || fail "analyze --untrusted answers: $out"

# serve: the page and the API on a free port; a bad --model or a busy port is a usage error.
expect_status 2 "$pz" serve --model connect4=/nonexistent.pt --port 0 --db :memory:
expect_err "no such file"
expect_status 2 "$pz" serve --model connect4 --port 0 --db :memory:
expect_err "GAME=CHECKPOINT"
"$pz" serve --port 0 --db "$tmp/serve.sqlite" >"$tmp/serve.out" 2>&1 &
serve_pid=$!
for _ in $(seq 100); do grep -q "serving on" "$tmp/serve.out" && break; sleep 0.1; done
url=$(awk '/serving on/ {print $3}' "$tmp/serve.out")
if [[ -z $url ]]; then
  fail "serve did not start: $(cat "$tmp/serve.out")"
else
  page=$(curl -sf "$url/")
  [[ $page == *"<html"* ]] || fail "serve: GET / is not the page: ${page:0:200}"
  json=(-H 'Content-Type: application/json')
  session=$(curl -sf "${json[@]}" -X POST "$url/api/sessions" -d '{"game":"tictactoe","seats":["human","random"]}')
  id=$(echo "$session" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  [[ ${#id} == 32 ]] || fail "serve: no session id in $session"
  code=$(curl -s -o /dev/null -w '%{http_code}' "${json[@]}" -X POST "$url/api/sessions/$id/move" -d '{"move":"q7"}')
  [[ $code == 400 ]] || fail "serve: an illegal move answered $code"
  # A page of another site cannot post (text/plain needs no preflight) nor name a command.
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: text/plain' -X POST "$url/api/sessions" \
    -d '{"game":"go:size=5","seats":["gtp:cmd=touch '"$tmp"'/rce","human"]}')
  [[ $code == 415 ]] || fail "serve: a text/plain body answered $code"
  code=$(curl -s -o /dev/null -w '%{http_code}' "${json[@]}" -X POST "$url/api/sessions" \
    -d '{"game":"go:size=5","seats":["gtp:cmd=touch '"$tmp"'/rce","human"]}')
  [[ $code == 400 ]] || fail "serve: a gtp:cmd= seat answered $code"
  [[ ! -e $tmp/rce ]] || fail "serve ran a client's command"
  # The shipped Hex network is the default AI of its board, and only of its board.
  players=$(curl -sf "$url/api/players")
  echo "$players" | python3 -c '
import json,sys
p=json.load(sys.stdin)
assert "hex" in p["models"], p["models"]
assert p["model_games"]["hex"]=="hex:size=8,swap=false", p["model_games"]
assert p["default_ai"]["hex"]=="mcts:sims=800", p["default_ai"]  # hex defaults to 11x11
' || fail "serve: shipped models: $players"
  hex=$(curl -sf "${json[@]}" -X POST "$url/api/sessions" -d '{"game":"hex:size=8,swap=false"}')
  [[ $hex == *'"player":"mcts:model=hex,sims=400"'* ]] || fail "serve: the 8x8 Hex default AI: $hex"
  "$pz" serve --port "${url##*:}" --db :memory: >"$tmp/out" 2>"$tmp/err"
  [[ $? == 2 ]] || fail "serve on a busy port did not exit 2"
  grep -q "cannot listen" "$tmp/err" || fail "serve on a busy port: $(cat "$tmp/err")"
fi
kill -INT $serve_pid
wait $serve_pid || fail "serve did not stop cleanly on Ctrl-C"

# Player budgets have ranges stated in words; a person is not a match player.
expect_status 2 "$pz" match --game connect4 --p1 uct:sims=99999999999999 --p2 random
expect_err "expected 0..10000000"
expect_status 2 "$pz" match --game connect4 --p1 mcts:seconds=1e300 --p2 random
expect_err "expected 0..86400"
expect_status 2 "$pz" match --game connect4 --p1 human --p2 random
expect_err "is a person"

# Deeply nested JSON is refused before it is parsed, wherever JSON comes in.
python3 -c "print('['*100000 + ']'*100000)" > "$tmp/deep.json"
expect_status 2 "$pz" lr --config "$tmp/deep.json" --steps 3
expect_err "nested more than 64 levels deep"
expect_status 2 "$pz" train --game tictactoe --config "$tmp/deep.json" --print-config
expect_err "nested more than 64 levels deep"
expect_status 2 "$pz" train --game tictactoe --set "learner.steps=$(python3 -c "print('['*1000 + ']'*1000)")" --print-config
expect_err "nested more than 64 levels deep"
expect_status 0 "$pz" train --game tictactoe --config '{"learner": {"steps": 77}}' --print-config
expect_out '"steps": 77'

# polyc never overwrites its input and never mixes code and JSON on stdout.
printf 'void f(double A[10]) {\n#pragma scop\n  for (int i = 0; i < 10; i++)\n    A[i] = A[i] * 2.0;\n#pragma endscop\n}\n' > "$tmp/in.c"
cp "$tmp/in.c" "$tmp/in.orig.c"
expect_status 2 "$pz" polyc "$tmp/in.c" -o "$tmp/in.c"
expect_err "is the input file"
cmp -s "$tmp/in.c" "$tmp/in.orig.c" || fail "polyc changed its input file"
expect_status 2 "$pz" polyc "$tmp/in.c" -o - --json
expect_err "would both print on stdout"

# An option given twice in one spec is an error; --options still overrides --game's.
expect_status 2 "$pz" match --game connect4 --p1 uct:sims=10,sims=20 --p2 random
expect_err "option 'sims' is given twice"
expect_status 2 "$pz" perft --game hex:size=5,size=6 --depth 1
expect_err "given twice"
expect_status 0 "$pz" perft --game hex:size=5 --options size=6 --depth 1 --json
expect_out '"game":"hex:size=6'

# The shipped models load, verify their checksum and play legal games (models/README.md).
for model in "$(dirname "$0")"/../../models/*.safetensors; do
  expect_status 0 "$pz" info "$model"
  spec=$(echo "$out" | awk '/^game:/ {print $2}')
  expect_status 0 "$pz" match --game "$spec" --p1 "mcts:model=$model,sims=32" --p2 random --games 2
done

# export: a model as a LibTorch archive and back; the same network plays from either file.
hex_model="$(dirname "$0")/../../models/hex.safetensors"
expect_status 0 "$pz" export "$hex_model" "$tmp/hex.pt"
expect_status 0 "$pz" info "$tmp/hex.pt"
expect_out "file: LibTorch archive"
expect_out "game: hex:size=8,swap=false"
expect_status 0 "$pz" export "$tmp/hex.pt" "$tmp/hex.safetensors"
expect_status 0 "$pz" info "$tmp/hex.safetensors"
expect_out "file: safetensors"
for model in "$hex_model" "$tmp/hex.pt" "$tmp/hex.safetensors"; do
  run "$pz" analyze <<<"{\"id\":\"e\",\"game\":\"hex:size=8,swap=false\",\"moves\":[\"d4\"],\"player\":\"mcts:model=$model,sims=64\"}"
  echo "$out" | grep -o '"moves":\[{[^}]*}' >>"$tmp/analyses"
done
[[ $(wc -l <"$tmp/analyses") == 3 && $(sort -u "$tmp/analyses" | wc -l) == 1 ]] ||
  fail "export: the three files analyse differently: $(cat "$tmp/analyses")"
expect_status 2 "$pz" export "$tmp/hex.safetensors" "$tmp/hex.safetensors"
expect_err "another file"
expect_status 2 "$pz" export "$tmp/no-such.pt" "$tmp/x.safetensors"
expect_err "no-such.pt"
head -c 300 "$tmp/hex.safetensors" >"$tmp/cut.safetensors"
expect_status 2 "$pz" info "$tmp/cut.safetensors"
expect_err "cut.safetensors"

# Hostile values are refused where they are read, naming them (status 2, no internal error).
for value in nan inf -inf 1e999; do
  expect_status 2 "$pz" bench games --game tictactoe --seconds "$value"
  expect_err "not a finite number"
done
expect_status 2 "$pz" train --game tictactoe --minutes=nan --print-config
expect_err "--minutes 'nan'"
expect_status 2 "$pz" train --game tictactoe --set selfplay.threads=100000 --print-config
expect_err "selfplay.threads"
expect_status 2 "$pz" train --game tictactoe --set selfplay.games_per_thread=1e8 --print-config
expect_err "selfplay.games_per_thread"
expect_status 2 "$pz" train --game tictactoe --set learner.batch_size=1e8 --print-config
expect_err "learner.batch_size"
expect_status 2 "$pz" train --game tictactoe --set learner.batch_size=4294967424 --print-config  # 2^32 + 128 wraps to 128
expect_err "learner.batch_size"
expect_status 2 "$pz" analyze --model chess=/x.pt </dev/null
expect_err "'chess' is not a game"
expect_status 2 "$pz" accuracy --game tictactoe --player human --positions generate:2
expect_err "a person"
expect_status 2 "$pz" polyc "$tmp/in.c" -o "$tmp/out.c" --parallel --num-threads '2); system("x"'
expect_err "--num-threads"
mkfifo "$tmp/a-fifo"  # a node that is not a regular file (never /dev/null: a regression would replace it)
expect_status 2 "$pz" polyc "$tmp/in.c" -o "$tmp/a-fifo"
expect_err "not a regular file"
[[ -p $tmp/a-fifo ]] || fail "polyc replaced a FIFO with its output"
mkdir -p "$tmp/a-dir"
expect_status 2 "$pz" polyc "$tmp/in.c" -o "$tmp/a-dir"
expect_err "a directory"
printf '// a loop of step 0\nvoid f(double A[10]) {\n#pragma scop\n  for (int i = 0; i < 10; i += 0)\n    A[i] = 1.0;\n#pragma endscop\n}\n' > "$tmp/step0.c"
expect_status 2 "$pz" polyc "$tmp/step0.c" -o "$tmp/step0.out.c"
expect_err "step0.c:4:"
expect_err "loop step 0"

if "$pz" status --help >/dev/null 2>&1; then  # builds with distributed runs
  expect_status 2 "$pz" status --redis redis://127.0.0.1:1 --run r --redis-password-file /dev/zero
  expect_err "not a regular file"
  head -c 10000 /dev/zero | tr '\0' 'x' >"$tmp/long-password"
  expect_status 2 "$pz" status --redis redis://127.0.0.1:1 --run r --redis-password-file "$tmp/long-password"
  expect_err "longer than 4 KiB"
fi

# SQLite files of another schema are refused and left as they were; tampered records named.
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("create table notes(t text)"); c.commit()' "$tmp/notes.sqlite"
cp "$tmp/notes.sqlite" "$tmp/notes.orig.sqlite"
expect_status 2 "$pz" replay --db "$tmp/notes.sqlite"
expect_err "not ours"
cmp -s "$tmp/notes.sqlite" "$tmp/notes.orig.sqlite" || fail "a refused database was changed"
cp "$tmp/t.sqlite" "$tmp/tampered.sqlite"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("update games set result=case result when \"1-0\" then \"0-1\" else \"1-0\" end where id=3"); c.commit()' "$tmp/tampered.sqlite"
expect_status 2 "$pz" replay --db "$tmp/tampered.sqlite" --game-id 3
expect_err "game 3 in $tmp/tampered.sqlite is damaged"
expect_status 2 "$pz" replay --db "$tmp/tampered.sqlite" --tournament 1
expect_out "DAMAGED"
expect_status 0 "$pz" replay --db "$tmp/tampered.sqlite" --game-id 4

if [[ $failures -gt 0 ]]; then
  echo "$failures CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
