"""Milliseconds per learner step through the Python module, on random batches of a game's shapes.

One `polyzero.Learner` of the training config's network, `learner.backend` as given, stepped
on one random batch (observations with 30% of the planes set, a random policy, a value in
[-1, 1], ownership and score when the network has those heads) three times to warm up and
then STEPS times; prints the mean. For interleaved comparisons of two builds: run it
alternately with PYTHONPATH at each build's python/ folder, on the same core.

    PYTHONPATH=build/python taskset -c 1 python3 bench/learner_step.py go 128 15 poly configs/go.json
"""
import json
import sys
import time

import numpy as np

import polyzero


def main(argv):
    if len(argv) < 4:
        print("usage: learner_step.py GAME BATCH STEPS BACKEND [CONFIG.json]", file=sys.stderr)
        return 2
    game, batch, steps, backend = argv[0], int(argv[1]), int(argv[2]), argv[3]
    config = json.load(open(argv[4])) if len(argv) > 4 else None
    learner = polyzero.Learner(game, config=config, set=[f"learner.backend={backend}", f"learner.batch_size={batch}"])
    shape = tuple(polyzero.load_game(game).observation_shape)
    policy_size = int(np.prod(polyzero.load_game(game).policy_shape))
    rng = np.random.default_rng(1)
    observations = (rng.random((batch,) + shape) < 0.3).astype(np.float32)
    policies = rng.random((batch, policy_size)).astype(np.float32)
    policies /= policies.sum(1, keepdims=True)
    values = rng.uniform(-1, 1, (batch,)).astype(np.float32)
    extra = {}
    network = learner.config["network"]
    if network.get("ownership"):
        extra["ownership"] = rng.uniform(-1, 1, (batch, shape[1] * shape[2])).astype(np.float32)
    if network.get("score"):
        extra["score"] = rng.uniform(-20, 20, (batch,)).astype(np.float32)
    for _ in range(3):
        learner.step(observations, policies, values, **extra)
    start = time.perf_counter()
    for _ in range(steps):
        learner.step(observations, policies, values, **extra)
    print(f"{backend} {game} batch {batch}: {(time.perf_counter() - start) / steps * 1000:.2f} ms/step")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
