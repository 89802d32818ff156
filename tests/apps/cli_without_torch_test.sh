#!/usr/bin/env bash
# The command line of a polyzero built without LibTorch (-DPZ_WITH_TORCH=OFF): the compiler,
# the games, the search, the arena, the solvers, and safetensors models (their descriptions,
# the model players, the shipped models as default AI) and training with the poly learner
# (safetensors checkpoints, resumed, their models played) work; LibTorch's learner, its
# benchmarks and its checkpoints are listed but refuse with a usage error (status 2) that
# names the way out.
# Usage: cli_without_torch_test.sh path/to/polyzero
set -uo pipefail
pz=$1
source "$(dirname "$0")/cli_checks.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)

# What works.
expect_status 0 "$pz" info
expect_out "LibTorch: none"
expect_status 0 "$pz" perft --game connect4 --depth 4 --json
[[ $out == '{"depth":4,"game":"connect4:height=6,width=7","nodes":2401}' ]] || fail "perft json: $out"
expect_status 0 "$pz" match --game tictactoe --p1 uct:sims=50 --p2 random -n 2 --seed 3 --json
expect_out '"games"'
expect_status 0 "$pz" solve --game tictactoe --json
expect_out '"value"'
expect_status 0 "$pz" lr --list
expect_out "poly"
expect_status 0 "$pz" polyc "$src/tests/polyhedral/kernels/gemm.c" -o "$tmp/gemm.c" --parallel --min-parallel-work 0
grep -q "#pragma omp parallel" "$tmp/gemm.c" || fail "polyc --parallel wrote no OpenMP loop for gemm"
# polyc --tune: candidates timed at the size the declaration allows, the choice reported;
# its flags checked.
cat >"$tmp/tune.c" <<'EOF'
void scale(int n, double x[300], double y[300]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    y[i] = 2.0 * x[i] + 1.0;
#pragma endscop
}
EOF
PZ_KERNEL_CACHE="$tmp/kernels" expect_status 0 "$pz" polyc "$tmp/tune.c" -o "$tmp/tune_out.c" --tune --tune-seconds 1 --tune-threads 1 --report
expect_out "tune: chose"
expect_out "at n=300"
gcc -c -fopenmp "$tmp/tune_out.c" -o "$tmp/tune_out.o" || fail "polyc --tune's output does not compile"
expect_status 2 "$pz" polyc "$tmp/tune.c" -o "$tmp/tune_out.c" --tune --tune-sizes n=many
expect_err "--tune-sizes: 'n=many' is not NAME=VALUE"
expect_status 2 "$pz" polyc "$tmp/tune.c" -o "$tmp/tune_out.c" --tune-threads 1
expect_err "go with --tune"
expect_status 0 "$pz" polyc --report-net "$src/configs/connect4.json"
expect_out "data layouts"
expect_status 0 "$pz" bench games --game tictactoe --seconds 0.2 --json
expect_out '"games_per_second"'

# Training: the poly learner, its checkpoints in safetensors; a resume continues the same run
# (step counter and schedule), and the model plays.
ttt="$tmp/ttt-run"
small=(--set network.blocks=1 --set network.channels=8 --set selfplay.games_per_thread=8 --set replay.min_samples=64
       --set learner.batch_size=16 --set checkpoint.every_steps=20 --set eval.every_steps=0)
PZ_KERNEL_CACHE="$tmp/kernels" expect_status 0 "$pz" train --game tictactoe --run-dir "$ttt" --steps 40 "${small[@]}" -q
[[ -f $ttt/checkpoints/step-00000040/learner.safetensors ]] || fail "no learner.safetensors in the step-40 checkpoint"
[[ -f $ttt/checkpoints/step-00000040/model.safetensors ]] || fail "no model.safetensors in the step-40 checkpoint"
[[ -f $ttt/models/latest.safetensors ]] || fail "no models/latest.safetensors"
expect_status 0 "$pz" info "$ttt/models/latest.safetensors"
expect_out "step: 40"
PZ_KERNEL_CACHE="$tmp/kernels" expect_status 0 "$pz" train --resume "$ttt" --steps 60 -q
[[ -f $ttt/checkpoints/step-00000060/learner.safetensors ]] || fail "the resumed run wrote no step-60 checkpoint"
grep '"event":"resume"' "$ttt/metrics.jsonl" | grep -q '"step":40' || fail "metrics.jsonl has no resume at step 40"
expect_status 0 "$pz" info "$ttt"
expect_out "learner: poly, without LibTorch"
expect_out "file: safetensors"
expect_status 0 "$pz" match --game tictactoe --p1 "mcts:model=$ttt/models/latest.safetensors,sims=16" --p2 random -n 2 --json
expect_out '"games"'
# Connect Four the same way: its own network shapes and kernels.
c4="$tmp/c4-run"
PZ_KERNEL_CACHE="$tmp/kernels" expect_status 0 "$pz" train --game connect4 --run-dir "$c4" --steps 20 "${small[@]}" -q
[[ -f $c4/checkpoints/step-00000020/learner.safetensors ]] || fail "connect4: no learner.safetensors at step 20"
expect_status 0 "$pz" match --game connect4 --p1 "mcts:model=$c4/models/latest.safetensors,sims=16" --p2 random -n 2 --json
expect_out '"games"'

# What needs LibTorch: listed, and refused with the reason.
expect_status 0 "$pz" --help
expect_out "needs LibTorch: not in this build"
expect_status 2 "$pz" train --game tictactoe --learner-backend torch --steps 10 --run-dir "$tmp/torch-run"
expect_err "-DPZ_WITH_TORCH=OFF"
expect_status 2 "$pz" bench nn
expect_err "'polyzero bench nn' needs LibTorch"
printf 'not a checkpoint' >"$tmp/junk.pt"
expect_status 2 "$pz" info "$tmp/junk.pt"
expect_err "neither safetensors nor a LibTorch archive"
printf 'PK\003\004 a zip, as LibTorch archives are' >"$tmp/model.pt"
expect_status 2 "$pz" info "$tmp/model.pt"
expect_err "polyzero export $tmp/model.pt MODEL.safetensors"

# A safetensors model reads without LibTorch, here one written by another tool (Python's own
# struct and json): its description, and the checksum over its tensors (nn/model_file.h).
write_model() {  # write_model PATH DAMAGE(0/1)
  python3 - "$1" "$2" <<'PY'
import json, struct, sys
path, damage = sys.argv[1], sys.argv[2] == "1"
tensors = {"value_fc2.bias": [0.5], "stem_conv.weight": [0.25 * i for i in range(6)]}
shapes = {"value_fc2.bias": [1], "stem_conv.weight": [2, 3]}
h = 0xCBF29CE484222325
def fnv(data):
    global h
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
header, data = {}, b""
for name in sorted(tensors):
    raw = struct.pack("<%df" % len(tensors[name]), *tensors[name])
    fnv(name.encode())
    fnv(raw)
    header[name] = {"dtype": "F32", "shape": shapes[name], "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
info = {"format": 2, "game": "tictactoe", "network": {"type": "resnet", "blocks": 1, "channels": 8}, "step": 42,
        "weights_checksum": "%016x" % h, "created": "", "version": "python", "run": "", "parameters": 7}
header["__metadata__"] = {"polyzero": json.dumps(info)}
text = json.dumps(header).encode()
if damage:
    data = data[:-1] + b"\x01"
open(path, "wb").write(struct.pack("<Q", len(text)) + text + data)
PY
}
write_model "$tmp/model.safetensors" 0
expect_status 0 "$pz" info "$tmp/model.safetensors"
expect_out "file: safetensors"
expect_out "step: 42"
write_model "$tmp/damaged.safetensors" 1
expect_status 2 "$pz" info "$tmp/damaged.safetensors"
expect_err "do not match their checksum"
expect_status 2 "$pz" polyc --report-net "$tmp/model.pt"
expect_err "built without LibTorch"
expect_status 2 "$pz" match --game tictactoe --p1 mcts:model="$tmp/model.pt",sims=10 --p2 random -n 1
expect_err "polyzero export"

# The shipped models play here: as model players, as the default AI, under polyc's report.
hex="$src/models/hex.safetensors"
expect_status 0 "$pz" match --game hex:size=8,swap=false --p1 "mcts:model=$hex,sims=16" --p2 random -n 2 --json
expect_out '"games"'
expect_status 0 "$pz" match --game hex:size=8,swap=false --p1 "policy:model=$hex" --p2 random -n 2 --json
expect_out '"games"'
run "$pz" play --game hex:size=8,swap=false <<<$'quit\n'
[[ $status == 0 ]] || fail "play exited $status: $err"
expect_out "models/hex.safetensors,sims=400)"
expect_status 0 "$pz" polyc --report-net "$hex"
expect_out "data layouts"
expect_status 2 "$pz" match --game hex:size=8,swap=false --p1 "mcts:model=$hex,sims=16,backend=torch" --p2 random -n 1
expect_err "the torch network backend needs LibTorch"

if [[ $failures -gt 0 ]]; then
  echo "$failures CLI check(s) failed"
  exit 1
fi
echo "all CLI checks of the build without LibTorch passed"
