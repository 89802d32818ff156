"""Simulations/s of the C++ search driven from Python against the CLI, measured in one run.

One search of 30,000 simulations from Connect Four's start, one thread, both sides warm:
`polyzero analyze` answering six queries `mcts:sims=30000,seed=i` in one process against
six `polyzero.MCTS("connect4", "rollout", sims=30000, seed=i)` searches in this process;
each round prints the median of each side's last four and their ratio. Then the cost of a
Python evaluator: five single searches each with "uniform" and a numpy callable at batch 1
and 8 (medians), and the cost of one call at batch 1.

    PYTHONPATH=build/python taskset -c 1 python3 bench/python_search.py [build/polyzero]
"""
import json
import subprocess
import sys
import time

import numpy as np

import polyzero

SIMS = 30000
CLI = sys.argv[1] if len(sys.argv) > 1 else "build/polyzero"
game = polyzero.load_game("connect4")
state = game.new_initial_state()


def cli_rate():
    queries = "".join(json.dumps({"id": str(i), "game": "connect4", "moves": [],
                                  "player": "mcts:sims=%d,seed=%d" % (SIMS, i + 1)}) + "\n" for i in range(6))
    out = subprocess.run([CLI, "analyze"], input=queries, capture_output=True, text=True, check=True).stdout
    rates = [r["simulations"] / r["seconds"] for r in map(json.loads, out.strip().splitlines())]
    return float(np.median(rates[2:]))


def search_rate(evaluator, batch=1, seed=1):
    mcts = polyzero.MCTS(game, evaluator, sims=SIMS, seed=seed, batch=batch)
    start = time.perf_counter()
    mcts.search(state)
    return SIMS / (time.perf_counter() - start)


def python_rate():
    return float(np.median([search_rate("rollout", seed=i + 1) for i in range(6)][2:]))


def uniform_callable(observations):
    n = observations.shape[0]
    return np.full((n, 7), 1.0 / 7, dtype=np.float32), np.zeros(n, dtype=np.float32)


for round_ in range(3):
    c, p = cli_rate(), python_rate()
    print("round %d: analyze %.0fk/s, polyzero.MCTS %.0fk/s, Python / CLI %.3f" % (round_ + 1, c / 1e3, p / 1e3, p / c))
uniform = float(np.median([search_rate("uniform") for _ in range(5)]))
b1 = float(np.median([search_rate(uniform_callable, 1) for _ in range(5)]))
b8 = float(np.median([search_rate(uniform_callable, 8) for _ in range(5)]))
print("uniform %.0fk/s, callable batch 1 %.0fk/s, batch 8 %.0fk/s; one call at batch 1: %.2f us"
      % (uniform / 1e3, b1 / 1e3, b8 / 1e3, 1e6 / b1 - 1e6 / uniform))
