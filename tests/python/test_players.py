"""polyzero.player and polyzero.match: the arena's players by spec."""
import pytest

import polyzero


def test_players_by_spec_choose_legal_moves():
    game = polyzero.load_game("connect4")
    state = game.new_initial_state()
    for spec in ["random:seed=4", "uct:sims=50", "mcts:sims=50"]:
        player = polyzero.player(spec, game)
        assert player.name.startswith(spec.split(":")[0])
        assert state.is_legal(player.choose_action(state))


def test_mcts_player_shows_its_last_search():
    game = polyzero.load_game("tictactoe")
    player = polyzero.player("mcts:sims=60", game)
    state = game.new_initial_state()
    assert player.last_search is None
    action = player.step(state)
    search = player.last_search
    assert search.action == action
    assert search.simulations == 60
    assert polyzero.player("random", game).last_search is None


def test_player_follows_a_game_it_is_told_of():
    game = polyzero.load_game("tictactoe")
    players = [polyzero.player("mcts:sims=40", game, seed=1), polyzero.player("random", game, seed=2)]
    state = game.new_initial_state()
    while not state.is_terminal():
        action = players[state.current_player()].choose_action(state)
        for player in players:
            player.observe_action(state, action)
        state.apply_action(action)
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_bad_player_specs_are_value_errors():
    game = polyzero.load_game("tictactoe")
    with pytest.raises(ValueError, match="unknown player 'nobody'"):
        polyzero.player("nobody", game)
    with pytest.raises(ValueError, match="sims"):
        polyzero.player("mcts:sims=-1", game)
    with pytest.raises(ValueError, match="human"):
        polyzero.player("human", game)
    assert "mcts" in polyzero.player_kinds()


def test_solver_never_loses_a_match():
    result = polyzero.match("tictactoe", "solver", "random", games=4, seed=5)
    assert result.played == 4
    assert result.losses == 0
    assert len(result.games) == 4
    assert {g.p1_seat for g in result.games} == {0, 1}  # colours alternate
    first = result.games[0]
    assert first.p1_outcome in ("win", "draw")
    assert len(first.returns) == 2 and first.moves


def test_match_between_search_players():
    result = polyzero.match(polyzero.load_game("tictactoe"), "mcts:sims=100", "random", games=2, seed=3)
    assert result.wins + result.draws + result.losses == 2
    assert 0.0 <= result.score <= 1.0
    with pytest.raises(ValueError):
        polyzero.match("tictactoe", "mcts:sims=10", "nobody")
