"""polyzero.Learner: a run's learner on its own, stepped on numpy batches."""
import numpy as np
import pytest

import polyzero

SMALL = {"network": {"blocks": 1, "channels": 8},
         "learner": {"optimizer": {"type": "sgd", "lr": 0.05, "momentum": 0.9},
                     # A constant rate: the recipe's poly schedule's fields removed (an RFC 7386 patch).
                     "scheduler": {"type": "constant", "factor": 1.0, "total_iters": 1, "power": None,
                                   "eta_min": None, "warmup": None}}}


def batch(rows=16, seed=3):
    """Tic-tac-toe positions with their legal moves as uniform policy targets and random results."""
    rng = np.random.default_rng(seed)
    game = polyzero.load_game("tictactoe")
    observations, policies, values = [], [], []
    for _ in range(rows):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 5))):  # at most 4 moves: never the end
            state.apply_action(int(rng.choice(state.legal_actions())))
        observations.append(state.observation())
        policy = np.zeros(9, dtype=np.float32)
        policy[state.legal_actions()] = 1.0 / len(state.legal_actions())
        policies.append(policy)
        values.append([float(rng.choice([-1.0, 0.0, 1.0]))])
    return np.stack(observations), np.stack(policies), np.array(values, dtype=np.float32)


@pytest.fixture(scope="module")
def learner():
    return polyzero.Learner("tictactoe", config=SMALL, seed=5)


def test_steps_lower_the_loss_on_a_batch_they_see_again(learner):
    observations, policies, values = batch()
    first = learner.step(observations, policies, values)
    assert first["step"] == 1 and learner.step_count == 1
    assert first["lr"] == pytest.approx(0.05) and first["grad_norm"] > 0
    for _ in range(40):
        last = learner.step(observations, policies, values)
    assert learner.step_count == 41
    assert np.isfinite(last["loss"]) and last["loss"] < first["loss"]
    assert last["value_loss"] < first["value_loss"]


def test_the_weights_become_a_model_that_plays(learner, tmp_path):
    weights = learner.weights()
    assert all(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in weights.values())
    assert any(name.endswith("running_mean") for name in weights)
    path = str(tmp_path / "ttt.safetensors")
    learner.save_model(path)
    model = polyzero.load_model(path)
    assert model.step == learner.step_count
    logits, values = model.evaluate(batch(4)[0])
    assert logits.shape == (4, 9) and values.shape == (4, 1)
    player = polyzero.player("mcts:model=" + path + ",sims=16", "tictactoe")
    state = polyzero.load_game("tictactoe").new_initial_state()
    assert player.choose_action(state) in state.legal_actions()
    # Another learner takes the weights and the optimiser state: both step alike.
    state_path = str(tmp_path / learner.state_file_name)
    learner.save_state(state_path)
    twin = polyzero.Learner("tictactoe", config=SMALL, seed=99)
    twin.load_model(path)
    twin.load_state(state_path)
    observations, policies, values = batch(seed=8)
    a, b = learner.step(observations, policies, values), twin.step(observations, policies, values)
    assert a["loss"] == pytest.approx(b["loss"], rel=1e-5)
    for name, array in learner.weights().items():
        np.testing.assert_allclose(array, twin.weights()[name], rtol=1e-5, atol=1e-6)


def test_bad_batches_are_value_errors(learner):
    observations, policies, values = batch(4)
    with pytest.raises(ValueError, match="policies"):
        learner.step(observations, policies[:, :5], values)
    with pytest.raises(ValueError, match="values"):
        learner.step(observations, policies, values[:3])
    with pytest.raises(ValueError, match="observations"):
        learner.step(observations[:, :1], policies, values)
    with pytest.raises(ValueError, match="ownership"):
        learner.step(observations, policies, values, ownership=np.zeros((4, 3, 3)), score=np.zeros(4))
    with pytest.raises(ValueError, match="optimizer"):
        polyzero.Learner("tictactoe", config={"learner": {"optimizer": {"type": "nope"}}})
