"""polyzero.solve: the exact value of positions."""
import pytest

import polyzero


def test_tictactoe_is_a_draw_whatever_the_first_move():
    state = polyzero.load_game("tictactoe").new_initial_state()
    solution = polyzero.solve(state, each_move=True)
    assert solution.complete
    assert solution.value == 0 and solution.result == "draw"
    assert [m.action for m in solution.moves] == list(range(9))
    assert {m.result for m in solution.moves} == {"draw"}


def test_a_win_in_one_is_found_with_its_distance():
    state = polyzero.load_game("tictactoe").new_initial_state()
    for action in [0, 3, 1, 4]:
        state.apply_action(action)
    solution = polyzero.solve(state, each_move=True)
    assert solution.result == "win"
    assert solution.plies in (None, 1)  # alpha-beta over the Game API gives no distances
    winning = [m for m in solution.moves if m.value == 1]
    assert [m.action for m in winning] == [2]
    assert winning[0].move == state.action_to_string(2)


def test_positions_without_a_solver_are_value_errors():
    with pytest.raises(ValueError, match="no solver"):
        state = polyzero.load_game("2048").new_initial_state()
        state.apply_action(state.legal_actions()[0])
        state.apply_action(state.legal_actions()[0])
        polyzero.solve(state)
    ended = polyzero.load_game("tictactoe").new_initial_state()
    for action in [0, 3, 1, 4, 2]:
        ended.apply_action(action)
    with pytest.raises(ValueError):
        polyzero.solve(ended)


def test_connect_four_solver_gives_distances():
    state = polyzero.load_game("connect4").new_initial_state()
    for action in [3, 3, 3, 3, 2, 2, 4, 4, 2]:  # X threatens two cells at once
        state.apply_action(action)
    solution = polyzero.solve(state, each_move=True, seconds=20)
    assert solution.complete
    assert solution.result == "loss" and solution.plies == 2
    assert len(solution.moves) == 7 and all(m.result == "loss" and m.plies == 2 for m in solution.moves)
