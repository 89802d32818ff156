"""polyzero.train: a training run from Python, its metrics as it goes, Ctrl-C, resume."""
import _thread
import threading

import pytest

import polyzero

# A small tic-tac-toe run: a few seconds, most of it the first compile of its kernels.
SMALL = {"network": {"blocks": 1, "channels": 8},
         "selfplay": {"games_per_thread": 8},
         "replay": {"min_samples": 64},
         "learner": {"batch_size": 16},
         "checkpoint": {"every_steps": 20},
         "eval": {"every_steps": 0}}


def test_train_config_merges_the_dict_and_the_overrides():
    config = polyzero.train_config("tictactoe", config=SMALL, set=["learner.batch_size=24"])
    assert config["game"] == "tictactoe"
    assert config["network"]["channels"] == 8
    assert config["learner"]["batch_size"] == 24
    with pytest.raises(ValueError, match="network.channels"):
        polyzero.train_config("tictactoe", config={"network": {"channels": -3}})


def test_a_run_trains_reports_its_metrics_and_resumes(tmp_path):
    run = str(tmp_path / "run")
    lines = []
    result = polyzero.train(game="tictactoe", config=SMALL, run_dir=run, steps=30, on_metrics=lines.append)
    assert result.step == 30 and not result.interrupted
    assert result.games > 0
    steps = [line["step"] for line in lines if line["kind"] == "train"]
    assert steps and steps[-1] == 30
    assert lines[0]["event"] == "start"
    resumed = polyzero.train(resume=run, steps=40)
    assert resumed.step == 40
    player = polyzero.player("mcts:model=" + resumed.model + ",sims=8", polyzero.load_game("tictactoe"))
    state = polyzero.load_game("tictactoe").new_initial_state()
    assert player.choose_action(state) in state.legal_actions()


def test_ctrl_c_stops_the_run_with_a_checkpoint(tmp_path):
    run = str(tmp_path / "run")
    seen = threading.Event()

    def interrupt_after_first_step(line):
        if line["kind"] == "train" and not seen.is_set():
            seen.set()
            threading.Timer(0.2, _thread.interrupt_main).start()

    with pytest.raises(KeyboardInterrupt):
        polyzero.train(game="tictactoe", config=SMALL, run_dir=run, steps=100000, on_metrics=interrupt_after_first_step)
    resumed = polyzero.train(resume=run, minutes=0.001)
    assert 0 < resumed.step < 100000


def test_bad_arguments_are_value_errors(tmp_path):
    with pytest.raises(ValueError, match="run_dir"):
        polyzero.train(game="tictactoe")
    with pytest.raises(ValueError, match="resume"):
        polyzero.train(game="tictactoe", resume=str(tmp_path))
    with pytest.raises(ValueError):
        polyzero.train(resume=str(tmp_path / "no-such-run"))
    with pytest.raises(ValueError, match="unknown game"):
        polyzero.train(game="chess-960", run_dir=str(tmp_path / "x"))


def test_the_training_example_runs(tmp_path):
    import os
    import subprocess
    import sys
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "train_tictactoe.py")
    plot = tmp_path / "loss.svg"
    done = subprocess.run([sys.executable, example, "--steps", "30", "--run-dir", str(tmp_path / "run"),
                           "--plot", str(plot)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "trained to step 30" in done.stdout
    assert plot.read_text().startswith("<svg")
