#!/usr/bin/env python3
"""A Python policy driving polyzero's C++ search: Connect Four against UCT.

The evaluator is plain numpy: priors that favour the central columns, and a value that
counts the player's stones near the centre against the opponent's. The C++ search (PUCT
with the MCTS-solver) calls it with batches of positions, the GIL held only inside the call.

    ninja -C build polyzero_python
    PYTHONPATH=build/python python3 examples/python/policy_search.py [--games 4] [--sims 400] [--opponent uct:sims=100]
"""
import argparse

import numpy as np

import polyzero


class CentreHeuristic:
    """evaluate(observations N×C×H×W) -> (priors N×A, values N) for Connect Four."""

    def __init__(self, game):
        _, height, width = game.observation_shape
        columns = np.arange(width)
        centre = (width - 1) / 2
        self.column_prior = np.exp(-np.abs(columns - centre)).astype(np.float32)
        self.cell_weight = np.tile(1.0 - np.abs(columns - centre) / width, (height, 1)).astype(np.float32)
        self.batches = 0
        self.positions = 0

    def __call__(self, observations):
        self.batches += 1
        self.positions += len(observations)
        # Plane 0 holds the stones of the player to move, plane 1 the opponent's.
        mine = (observations[:, 0] * self.cell_weight).sum(axis=(1, 2))
        theirs = (observations[:, 1] * self.cell_weight).sum(axis=(1, 2))
        values = np.tanh(0.3 * (mine - theirs))
        priors = np.broadcast_to(self.column_prior, (len(observations), len(self.column_prior)))
        return priors, values


def play(game, mcts, opponent, mcts_seat):
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == mcts_seat:
            result = mcts.search(state)
            action = result.action
        else:
            action = opponent.choose_action(state)
        opponent.observe_action(state, action)
        state.apply_action(action)
    return state.returns()[mcts_seat]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--sims", type=int, default=400)
    parser.add_argument("--opponent", default="uct:sims=100")
    args = parser.parse_args()

    game = polyzero.load_game("connect4")
    heuristic = CentreHeuristic(game)
    mcts = polyzero.MCTS(game, heuristic, sims=args.sims, batch=8, seed=1)
    first = mcts.search(game.new_initial_state())
    print(f"opening: {first.move} (win probability {first.win_probability:.2f}); "
          f"most visited: {[(m.move, m.visits) for m in first.moves[:3]]}; line {' '.join(first.pv)}")

    score = 0.0
    for index in range(args.games):
        opponent = polyzero.player(args.opponent, game, seed=index + 1)
        mcts.clear_tree()
        outcome = play(game, mcts, opponent, mcts_seat=index % 2)
        score += (outcome + 1) / 2
        print(f"game {index + 1}: python-evaluated MCTS as seat {index % 2}: "
              f"{ {1.0: 'win', 0.0: 'draw', -1.0: 'loss'}[outcome] }")
    print(f"score {score}/{args.games} against {args.opponent}; the evaluator saw {heuristic.positions} positions "
          f"in {heuristic.batches} batches (mean {heuristic.positions / max(1, heuristic.batches):.1f})")


if __name__ == "__main__":
    main()
