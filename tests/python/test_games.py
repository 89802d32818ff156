"""polyzero.Game and polyzero.State: the Game API from Python."""
import copy
import pickle
import random

import numpy as np
import pytest

import polyzero


def test_registry_lists_games_with_their_options():
    names = polyzero.registered_game_names()
    assert "tictactoe" in names and "hex" in names and "tron" in names
    hex_entry = next(g for g in polyzero.registered_games() if g.name == "hex")
    assert hex_entry.family == "board"
    size = next(o for o in hex_entry.options if o["key"] == "size")
    assert size["type"] == "int" and size["default"] == "11"


def test_load_game_with_options():
    game = polyzero.load_game("hex:size=9")
    assert game.name == "hex"
    assert "size=9" in game.spec
    assert game.num_players == 2
    assert game.num_distinct_actions >= 81
    channels, height, width = game.observation_shape
    assert (height, width) == (9, 9) and channels > 0


def test_unknown_game_is_a_value_error_with_the_registry_message():
    with pytest.raises(ValueError) as error:
        polyzero.load_game("no_such_game")
    message = str(error.value)
    assert "unknown game 'no_such_game'" in message
    assert "tictactoe" in message  # the message lists the known games


def test_bad_option_is_a_value_error_naming_the_option():
    with pytest.raises(ValueError, match="size"):
        polyzero.load_game("hex:size=1")
    with pytest.raises(ValueError, match="colour"):
        polyzero.load_game("hex:colour=red")


def test_tictactoe_played_to_the_end():
    game = polyzero.load_game("tictactoe")
    state = game.new_initial_state()
    assert state.current_player() == 0
    assert state.legal_actions() == list(range(9))
    # X takes the top row while O plays the middle row.
    for action in [0, 3, 1, 4, 2]:
        assert not state.is_terminal()
        state.apply_action(action)
    assert state.is_terminal()
    assert state.current_player() == polyzero.TERMINAL_PLAYER
    assert state.legal_actions() == []
    assert state.returns() == [1.0, -1.0]
    assert state.move_number() == 5


def test_moves_as_text_round_trip():
    state = polyzero.load_game("connect4").new_initial_state()
    for action in state.legal_actions():
        text = state.action_to_string(action)
        assert state.string_to_action(text) == action
        assert state.action_to_string(0, action) == text
    with pytest.raises(ValueError, match="not a move"):
        state.string_to_action("xyzzy")


def test_illegal_move_is_a_value_error():
    state = polyzero.load_game("tictactoe").new_initial_state()
    state.apply_action(4)
    assert not state.is_legal(4)
    with pytest.raises(ValueError):
        state.apply_action(4)
    with pytest.raises(ValueError):
        state.apply_action(99)


def test_observation_is_float32_channels_height_width():
    game = polyzero.load_game("connect4")
    state = game.new_initial_state()
    before = state.observation()
    assert isinstance(before, np.ndarray)
    assert before.dtype == np.float32
    assert before.shape == game.observation_shape
    assert before.flags["C_CONTIGUOUS"]
    state.apply_action(3)
    after = state.observation()
    assert not np.array_equal(before, after)
    # Each seat sees the board from its own side.
    assert not np.array_equal(state.observation(0), state.observation(1))
    with pytest.raises(ValueError):
        state.observation(2)


def test_clone_is_independent():
    state = polyzero.load_game("tictactoe").new_initial_state()
    state.apply_action(0)
    clone = state.clone()
    clone.apply_action(4)
    assert state.legal_actions() == list(range(1, 9))
    assert len(clone.legal_actions()) == 7
    assert str(state) != str(clone)
    deep = copy.deepcopy(state)
    deep.apply_action(8)
    assert state.move_number() == 1


def test_serialize_and_pickle_round_trip():
    game = polyzero.load_game("othello")
    state = game.new_initial_state()
    for _ in range(6):
        state.apply_action(state.legal_actions()[0])
    again = game.deserialize(state.serialize())
    assert str(again) == str(state)
    assert again.zobrist_hash() == state.zobrist_hash()
    unpickled = pickle.loads(pickle.dumps(state))
    assert unpickled.serialize() == state.serialize()
    assert pickle.loads(pickle.dumps(game)).spec == game.spec
    with pytest.raises(ValueError):
        game.deserialize("not a position")


def test_chance_nodes_list_outcomes_with_probabilities():
    state = polyzero.load_game("2048").new_initial_state()
    assert state.is_chance_node()
    assert state.current_player() == polyzero.CHANCE_PLAYER
    outcomes = state.chance_outcomes()
    assert outcomes and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    assert [a for a, _ in outcomes] == state.legal_actions()
    state.apply_action(outcomes[0][0])
    assert state.move_number() == 1


def test_simultaneous_moves_take_a_joint_action():
    game = polyzero.load_game("tron")
    assert game.simultaneous
    state = game.new_initial_state()
    assert state.is_simultaneous_node()
    assert state.current_player() == polyzero.SIMULTANEOUS_PLAYER
    assert state.legal_actions() == []
    joint = [state.legal_actions(p)[0] for p in range(game.num_players)]
    state.apply_joint_action(joint)
    assert state.move_number() >= 1
    with pytest.raises(ValueError, match="one action per player"):
        state.apply_joint_action([joint[0]])


def play_randomly(state, rng, max_moves):
    for _ in range(max_moves):
        if state.is_terminal():
            return
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, weights)[0])
        elif state.is_simultaneous_node():
            players = state.game().num_players
            state.apply_joint_action([rng.choice(state.legal_actions(p)) for p in range(players)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", polyzero.registered_game_names())
def test_every_game_plays_random_moves(name):
    game = polyzero.load_game(name)
    state = game.new_initial_state()
    play_randomly(state, random.Random(7), 150)
    assert len(state.returns()) == game.num_players
    assert state.observation().shape == game.observation_shape
    assert game.deserialize(state.serialize()).serialize() == state.serialize()
