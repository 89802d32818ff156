#!/usr/bin/env python3
"""A PyTorch network driving polyzero's C++ search: Connect Four against UCT.

A small policy-value network written in PyTorch learns from polyzero's shipped Connect Four
model (distillation: the teacher's move probabilities and values on positions of random
games, evaluated through polyzero.load_model), then plays through polyzero.MCTS: the C++
search calls the PyTorch module with batches of observations (numpy, N×C×H×W) and takes its
move probabilities and values back.

    ninja -C build polyzero_python
    PYTHONPATH=build/python python3 examples/python/torch_policy.py [--steps 1000] [--games 4] [--sims 200]

PyTorch for Python comes from Debian (python3-torch; scripts/setup.sh installs it).
"""
import argparse
import pathlib

import numpy as np
import torch
from torch import nn

import polyzero

MODEL = pathlib.Path(__file__).resolve().parents[2] / "models" / "connect4.safetensors"


class PolicyValueNet(nn.Module):
    """Two 3×3 convolutions, then a policy head (one logit per column) and a value head."""

    def __init__(self, channels, height, width, actions, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels, hidden, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(hidden, hidden, 3, padding=1), nn.ReLU(), nn.Flatten())
        self.policy = nn.Linear(hidden * height * width, actions)
        self.value = nn.Sequential(nn.Linear(hidden * height * width, 32), nn.ReLU(), nn.Linear(32, 1), nn.Tanh())

    def forward(self, x):
        features = self.body(x)
        return self.policy(features), self.value(features).squeeze(1)


class TorchEvaluator:
    """The search's evaluator: observations N×C×H×W -> (priors N×A, values N), no gradients."""

    def __init__(self, net):
        self.net = net.eval()
        self.batches = 0

    def __call__(self, observations):
        self.batches += 1
        with torch.no_grad():
            logits, values = self.net(torch.from_numpy(np.ascontiguousarray(observations)))
        return torch.softmax(logits, dim=1).numpy(), values.numpy()


def random_positions(game, count, rng):
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 30))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            states.append(state)
    return states


def distil(game, net, steps, rng):
    """Trains `net` on the shipped model's outputs; returns the last loss."""
    teacher = polyzero.load_model(str(MODEL))
    optimiser = torch.optim.Adam(net.parameters(), lr=3e-3)
    net.train()
    loss = float("nan")
    for _ in range(steps):
        states = random_positions(game, 64, rng)
        observations = np.stack([s.observation() for s in states])
        teacher_logits, teacher_values = teacher.evaluate(observations)
        legal = np.full(teacher_logits.shape, -np.inf, dtype=np.float32)
        for row, state in enumerate(states):
            legal[row, state.legal_actions()] = 0.0
        target = torch.softmax(torch.from_numpy(teacher_logits + legal), dim=1)
        logits, values = net(torch.from_numpy(observations))
        policy_loss = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        value_loss = ((values - torch.from_numpy(teacher_values[:, 0])) ** 2).mean()
        optimiser.zero_grad()
        (policy_loss + value_loss).backward()
        optimiser.step()
        loss = float(policy_loss + value_loss)
    return loss


def play(game, mcts, opponent, mcts_seat):
    state = game.new_initial_state()
    while not state.is_terminal():
        action = mcts.search(state).action if state.current_player() == mcts_seat else opponent.choose_action(state)
        opponent.observe_action(state, action)
        state.apply_action(action)
    return state.returns()[mcts_seat]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000, help="distillation steps (batches of 64)")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--opponent", default="uct:sims=200")
    args = parser.parse_args()

    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    game = polyzero.load_game("connect4")
    channels, height, width = game.new_initial_state().observation().shape
    net = PolicyValueNet(channels, height, width, actions=7)
    loss = distil(game, net, args.steps, rng)
    print(f"distilled {args.steps} batches from {MODEL.name}: last loss {loss:.3f}")

    evaluator = TorchEvaluator(net)
    mcts = polyzero.MCTS(game, evaluator, sims=args.sims, batch=8, seed=1)
    score = 0.0
    for index in range(args.games):
        opponent = polyzero.player(args.opponent, game, seed=index + 1)
        mcts.clear_tree()
        outcome = play(game, mcts, opponent, mcts_seat=index % 2)
        score += (outcome + 1) / 2
        print(f"game {index + 1}: the PyTorch-driven search as seat {index % 2}: "
              f"{ {1.0: 'win', 0.0: 'draw', -1.0: 'loss'}[outcome] }")
    print(f"score {score}/{args.games} against {args.opponent}; {evaluator.batches} batches through PyTorch")


if __name__ == "__main__":
    main()
