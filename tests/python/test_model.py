"""polyzero.load_model: a checkpoint's network evaluated on numpy batches."""
import pathlib

import numpy as np
import pytest

import polyzero

MODELS = pathlib.Path(__file__).resolve().parents[2] / "models"
CONNECT4 = str(MODELS / "connect4.safetensors")


def positions(game, count):
    states, state = [], game.new_initial_state()
    for k in range(count):
        states.append(state.clone())
        state.apply_action(state.legal_actions()[k % len(state.legal_actions())])
    return states


@pytest.fixture(scope="module")
def model():
    return polyzero.load_model(CONNECT4, backend="poly")


def test_the_model_describes_its_network(model):
    game = polyzero.load_game("connect4")
    assert model.backend == "poly"
    assert model.game.spec == game.spec
    assert model.info["game"].startswith("connect4")
    assert model.step > 0 and model.parameters > 0
    assert list(model.input_shape) == list(game.new_initial_state().observation().shape)
    assert model.policy_size == 7 and model.value_outputs == 1


def test_a_batch_gives_logits_and_values_per_position(model):
    game = polyzero.load_game("connect4")
    states = positions(game, 5)
    observations = np.stack([s.observation() for s in states])
    logits, values = model.evaluate(observations)
    assert logits.shape == (5, 7) and logits.dtype == np.float32
    assert values.shape == (5, 1)
    assert np.all(np.abs(values) <= 1.0) and np.all(np.isfinite(logits))
    # One observation alone gives the same numbers as its row of the batch.
    one_logits, one_value = model.evaluate(observations[2])
    assert one_logits.shape == (7,)
    np.testing.assert_allclose(one_logits, logits[2], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(one_value, values[2], rtol=1e-4, atol=1e-5)
    # States are shown from their mover's view, as the search shows them.
    state_logits, state_values = model.evaluate_states(states)
    np.testing.assert_allclose(state_logits, logits, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state_values, values, rtol=1e-5, atol=1e-6)


def test_the_network_sees_the_winning_move(model):
    # Red has three in the bottom row (columns 1-3): playing column 0 or 4 wins.
    state = polyzero.load_game("connect4").new_initial_state()
    for action in [1, 1, 2, 2, 3, 3]:
        state.apply_action(action)
    logits, value = model.evaluate_states([state])
    assert int(np.argmax(logits[0])) in (0, 4)
    assert value[0, 0] > 0.5


def test_the_torch_backend_agrees_where_libtorch_is_linked(model):
    if not polyzero.has_libtorch:
        with pytest.raises(ValueError, match="torch"):
            polyzero.load_model(CONNECT4, backend="torch")
        return
    torch_model = polyzero.load_model(CONNECT4, backend="torch")
    observations = np.stack([s.observation() for s in positions(polyzero.load_game("connect4"), 4)])
    for a, b in zip(model.evaluate(observations), torch_model.evaluate(observations)):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)


def test_bad_input_is_a_value_error(model, tmp_path):
    with pytest.raises(ValueError, match="6"):
        model.evaluate(np.zeros((2, 3, 5, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="dimensions"):
        model.evaluate(np.zeros((7,), dtype=np.float32))
    with pytest.raises(ValueError, match="tictactoe"):
        model.evaluate_states([polyzero.load_game("tictactoe").new_initial_state()])
    with pytest.raises(ValueError, match="missing.safetensors"):
        polyzero.load_model(str(tmp_path / "missing.safetensors"))
    with pytest.raises(ValueError, match="othello|connect4"):
        polyzero.load_model(CONNECT4, game="othello")
    with pytest.raises(ValueError, match="backend|nobody"):
        polyzero.load_model(CONNECT4, backend="nobody")


def test_the_pytorch_example_drives_the_search():
    # examples/python/torch_policy.py: a PyTorch network (python3-torch, scripts/setup.sh)
    # distilled from the shipped model, then evaluating for polyzero.MCTS.
    import subprocess
    import sys
    example = MODELS.parent / "examples" / "python" / "torch_policy.py"
    done = subprocess.run([sys.executable, str(example), "--steps", "20", "--games", "1", "--sims", "50"],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "distilled 20 batches" in done.stdout
    batches = int(done.stdout.split("; ")[-1].split()[0])
    assert batches > 0  # the search called the PyTorch module
