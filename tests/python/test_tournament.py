"""polyzero.tournament, polyzero.accuracy, and Ctrl-C in the long calls."""
import _thread
import sqlite3
import threading
import time

import pytest

import polyzero


def interrupt_after(seconds):
    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    return timer


def test_a_round_robin_rates_its_players_and_resumes_from_its_file(tmp_path):
    db = str(tmp_path / "t.sqlite")
    seen = []
    report = polyzero.tournament("tictactoe", ["random", "mcts:sims=200"], games=6, db=db,
                                 on_game=lambda first, second, result, moves: seen.append(result))
    assert report["games_played"] == report["games_total"] == 6 and report["complete"]
    assert len(seen) == 6 and set(seen) <= {"1-0", "0-1", "1/2-1/2"}
    names = [row["player"] for row in report["ratings"]]
    assert set(names) == {"random", "mcts:sims=200"}
    assert "random" in report["table"] and "mcts:sims=200" in report["crosstable"]
    with sqlite3.connect(db) as connection:
        assert connection.execute("select count(*) from games").fetchone()[0] == 6
    again = []
    polyzero.tournament("tictactoe", ["random", "mcts:sims=200"], games=6, db=db,
                        on_game=lambda *game: again.append(game))
    assert again == []  # every game was in the file already


def test_bad_tournaments_are_value_errors():
    with pytest.raises(ValueError, match="two players"):
        polyzero.tournament("tictactoe", ["random"])
    with pytest.raises(ValueError, match="nobody"):
        polyzero.tournament("tictactoe", ["random", "nobody"])
    with pytest.raises(ValueError, match="anchor"):
        polyzero.tournament("tictactoe", ["random", "uct:sims=10"], anchor="mcts:sims=5")


def test_accuracy_on_labelled_positions_saved_and_reloaded(tmp_path):
    saved = str(tmp_path / "c4.jsonl")
    reports = polyzero.accuracy("connect4", ["random", "mcts:sims=400"], positions="generate:12", plies=(24, 30),
                                solve_seconds=10, save=saved, seed=7)
    assert [r["player"] for r in reports] == ["random", "mcts:sims=400"]
    for r in reports:
        assert r["all"]["positions"] == 12
        assert 0.0 <= r["all"]["low"] <= r["all"]["share"] <= r["all"]["high"] <= 1.0
        assert sum(s["positions"] for s in r["by_difficulty"]) == 12
    assert reports[1]["all"]["correct"] >= reports[0]["all"]["correct"]
    again = polyzero.accuracy("connect4", ["random"], positions=saved, seed=7)
    assert again[0]["all"] == reports[0]["all"]
    with pytest.raises(ValueError, match="generate"):
        polyzero.accuracy("connect4", ["random"], positions="generate:0")


@pytest.mark.parametrize("call", [
    lambda: polyzero.MCTS(polyzero.load_game("connect4"), "rollout", sims=10**9).search(
        polyzero.load_game("connect4").new_initial_state()),
    lambda: polyzero.solve(polyzero.load_game("connect4").new_initial_state(), seconds=3600),
    # Matches and tournaments stop between moves: moves of a few milliseconds, games enough for minutes.
    lambda: polyzero.match("connect4", "mcts:sims=2000", "uct:sims=2000", games=1000, threads=2),
    lambda: polyzero.tournament("connect4", ["mcts:sims=2000", "uct:sims=2000"], games=1000, concurrency=2),
], ids=["search", "solve", "match", "tournament"])
def test_ctrl_c_stops_the_long_calls(call):
    interrupt_after(0.3)
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        call()
    assert time.monotonic() - start < 30
