"""polyzero.MCTS: the C++ search with built-in and Python evaluators."""
import numpy as np
import pytest

import polyzero


def tictactoe_after(*actions):
    state = polyzero.load_game("tictactoe").new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def test_rollout_search_finds_the_winning_move():
    # X has 0 and 1, O has 3 and 4: X wins at 2.
    state = tictactoe_after(0, 3, 1, 4)
    result = polyzero.MCTS(state.game(), "rollout", sims=200, seed=3).search(state)
    assert result.action == 2
    assert result.move == state.action_to_string(2)
    assert result.proven_result == "win"
    assert result.moves[0].action == 2
    assert result.pv[0] == result.move
    visits = [m.visits for m in result.moves]
    assert visits == sorted(visits, reverse=True)
    assert result.policy.dtype == np.float32
    assert result.policy.shape == (9,)
    assert abs(result.policy.sum() - 1.0) < 1e-5


class ConcentratedPolicy:
    """All prior on `target` where it is legal (uniform elsewhere), value 0; records batches."""

    def __init__(self, game, target):
        self.game = game
        self.target = target
        self.batch_shapes = []
        self.dtypes = set()

    def __call__(self, observations):
        self.batch_shapes.append(observations.shape)
        self.dtypes.add(observations.dtype)
        n = observations.shape[0]
        priors = np.zeros((n, self.game.num_distinct_actions), dtype=np.float32)
        # Tic-tac-toe's planes 0 and 1 hold the stones: the target is free where both are 0.
        free = (observations[:, 0].reshape(n, -1) + observations[:, 1].reshape(n, -1)) == 0
        priors[free[:, self.target], self.target] = 1.0
        return priors, np.zeros(n, dtype=np.float32)


@pytest.mark.parametrize("target", [0, 7])
def test_python_evaluator_priors_steer_the_search(target):
    game = polyzero.load_game("tictactoe")
    policy = ConcentratedPolicy(game, target)
    mcts = polyzero.MCTS(game, policy, sims=40, batch=4, seed=1)
    result = mcts.search(game.new_initial_state())
    assert result.action == target
    assert result.moves[0].prior == pytest.approx(1.0)
    assert mcts.evaluator_calls == len(policy.batch_shapes) > 0
    assert policy.dtypes == {np.dtype(np.float32)}
    for shape in policy.batch_shapes:
        assert shape[1:] == game.observation_shape
        assert 1 <= shape[0] <= 4
    assert max(shape[0] for shape in policy.batch_shapes) > 1  # leaves arrive in batches


def test_python_evaluator_with_values_per_seat_and_two_threads():
    game = polyzero.load_game("connect4")
    calls = []

    def evaluate(observations):
        calls.append(observations.shape[0])
        n = observations.shape[0]
        priors = np.ones((n, game.num_distinct_actions), dtype=np.float64)
        return priors, np.zeros((n, game.num_players))

    result = polyzero.MCTS(game, evaluate, sims=64, threads=2, batch=2).search(game.new_initial_state())
    assert result.simulations >= 64
    assert sum(calls) > 0


def test_exceptions_of_the_evaluator_come_back_as_themselves():
    game = polyzero.load_game("tictactoe")

    def broken(observations):
        raise KeyError("evaluator is broken")

    with pytest.raises(KeyError, match="evaluator is broken"):
        polyzero.MCTS(game, broken, sims=10).search(game.new_initial_state())


def test_results_of_the_wrong_shape_are_value_errors():
    game = polyzero.load_game("tictactoe")

    def wrong(observations):
        n = observations.shape[0]
        return np.ones((n, 5)), np.zeros(n)

    with pytest.raises(ValueError, match="priors must be shaped"):
        polyzero.MCTS(game, wrong, sims=10).search(game.new_initial_state())


def test_bad_searches_are_value_errors():
    game = polyzero.load_game("tictactoe")
    with pytest.raises(ValueError):
        polyzero.MCTS(game, "uniform", sims=10).search(tictactoe_after(0, 3, 1, 4, 2))  # game over
    with pytest.raises(ValueError, match="no_such_model.safetensors"):
        polyzero.MCTS(game, "no_such_model.safetensors", sims=10)
    with pytest.raises(ValueError):
        polyzero.MCTS(game, 42)
    with pytest.raises(ValueError):
        polyzero.MCTS(game, sims=0)
    with pytest.raises(ValueError, match="searches tictactoe"):
        polyzero.MCTS(game, sims=10).search(polyzero.load_game("connect4").new_initial_state())


def test_uniform_evaluator_and_game_spec_argument():
    mcts = polyzero.MCTS("connect4", "uniform", sims=50)
    assert mcts.game.name == "connect4"
    result = mcts.search(mcts.game.new_initial_state())
    assert result.simulations == 50
    assert mcts.evaluator_calls == -1


def test_a_search_after_an_evaluator_error_starts_afresh():
    game = polyzero.load_game("tictactoe")
    fail = [True]

    def flaky(observations):
        if fail[0]:
            raise RuntimeError("first call fails")
        n = observations.shape[0]
        return np.ones((n, game.num_distinct_actions)), np.zeros(n)

    mcts = polyzero.MCTS(game, flaky, sims=30, batch=2)
    with pytest.raises(RuntimeError, match="first call fails"):
        mcts.search(game.new_initial_state())
    fail[0] = False
    result = mcts.search(game.new_initial_state())
    assert result.simulations == 30
    assert sum(m.visits for m in result.moves) == result.visits - 1


def test_the_numpy_policy_example_runs():
    # examples/python/policy_search.py: a numpy heuristic evaluating for the C++ search.
    import os
    import subprocess
    import sys
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "policy_search.py")
    done = subprocess.run([sys.executable, example, "--games", "1", "--sims", "50"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "score " in done.stdout and "batches" in done.stdout
