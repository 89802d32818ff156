"""Type stub of the polyzero extension module (python/*.cpp; docs/python.md)."""
from typing import Any, Callable, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

CHANCE_PLAYER: int
SIMULTANEOUS_PLAYER: int
TERMINAL_PLAYER: int
INVALID_ACTION: int
has_libtorch: bool

class RegisteredGame:
    name: str
    long_name: str
    description: str
    family: str
    options: list[dict[str, Any]]

def registered_games() -> list[RegisteredGame]: ...
def registered_game_names() -> list[str]: ...
def load_game(spec: str) -> Game: ...

class Game:
    name: str
    long_name: str
    spec: str
    family: str
    num_players: int
    num_distinct_actions: int
    max_chance_outcomes: int
    observation_shape: Tuple[int, int, int]
    policy_shape: Tuple[int, int, int]
    zero_sum: bool
    perfect_information: bool
    simultaneous: bool
    min_return: float
    max_return: float
    max_game_length: int
    num_symmetries: int
    def new_initial_state(self) -> State: ...
    def deserialize(self, text: str) -> State: ...

class State:
    def game(self) -> Game: ...
    def current_player(self) -> int: ...
    def is_terminal(self) -> bool: ...
    def is_chance_node(self) -> bool: ...
    def is_simultaneous_node(self) -> bool: ...
    def move_number(self) -> int: ...
    def legal_actions(self, player: Optional[int] = None) -> list[int]: ...
    def is_legal(self, action: int) -> bool: ...
    def chance_outcomes(self) -> list[Tuple[int, float]]: ...
    def apply_action(self, action: int) -> None: ...
    def apply_joint_action(self, actions: Sequence[int]) -> None: ...
    def returns(self) -> list[float]: ...
    def observation(self, player: Optional[int] = None) -> npt.NDArray[np.float32]: ...
    @overload
    def action_to_string(self, action: int) -> str: ...
    @overload
    def action_to_string(self, player: int, action: int) -> str: ...
    def string_to_action(self, text: str) -> int: ...
    def explain_illegal(self, action: int) -> str: ...
    def clone(self) -> State: ...
    def resample(self, player: int, seed: int = 0) -> State: ...
    def serialize(self) -> str: ...
    def zobrist_hash(self) -> int: ...

Observations = npt.NDArray[np.float32]  # N x C x H x W
Evaluate = Callable[[Observations], Tuple[npt.ArrayLike, npt.ArrayLike]]

class MoveAnalysis:
    action: int
    move: str
    visits: int
    share: float
    prior: float
    value: float
    win_probability: Optional[float]
    proven_result: Optional[str]
    pv: list[int]
    pv_text: list[str]

class SearchResult:
    player: int
    action: int
    move: str
    value: float
    win_probability: float
    proven_result: Optional[str]
    simulations: int
    visits: int
    seconds: float
    tree_nodes: int
    moves: list[MoveAnalysis]
    pv: list[str]
    policy: npt.NDArray[np.float32]

class MCTS:
    game: Game
    sims: int
    threads: int
    evaluator_calls: int
    def __init__(self, game: Union[Game, str], evaluator: Union[str, Evaluate] = "rollout", *, sims: int = 800,
                 seconds: float = 0.0, threads: int = 1, batch: int = 1, c_puct: float = 1.25,
                 c_puct_base: float = 19652.0, fpu: float = 0.25, rollouts: int = 1, solver: bool = True,
                 wincheck: bool = True, reuse: bool = True, noise: bool = False, worlds: int = 8, seed: int = 0,
                 sym: int = 1, backend: str = "auto", nnthreads: int = 1) -> None: ...
    def search(self, state: State, seat: Optional[int] = None) -> SearchResult: ...
    def clear_tree(self) -> None: ...

class Player:
    name: str
    last_search: Optional[SearchResult]
    def choose_action(self, state: State, seat: Optional[int] = None) -> int: ...
    def step(self, state: State, seat: Optional[int] = None) -> int: ...
    def observe_action(self, before: State, action: int) -> None: ...
    def reset(self, state: State) -> None: ...

def player(spec: str, game: Union[Game, str], seed: int = 1) -> Player: ...
def player_kinds() -> list[str]: ...

class GameResult:
    index: int
    p1_seat: int
    moves: list[str]
    final_state: str
    returns: list[float]
    p1_outcome: str
    cut_short: bool
    forfeit_seat: int
    termination: str

class MatchResult:
    game: str
    p1: str
    p2: str
    wins: int
    draws: int
    losses: int
    played: int
    score: float
    games: list[GameResult]
    p2_games: list[GameResult]

def match(game: Union[Game, str], p1: str, p2: str = "", games: int = 2, threads: int = 1, seed: int = 1,
          max_moves: int = 0) -> MatchResult: ...
def tournament(game: Union[Game, str], players: Sequence[str], *, games: int = 10, format: str = "round-robin",
               concurrency: int = 1, openings: str = "", db: str = ":memory:", seed: int = 1, max_moves: int = 0,
               anchor: Optional[str] = None, anchor_elo: float = 0.0,
               on_game: Optional[Callable[[str, str, str, int], None]] = None) -> dict[str, Any]: ...

class SolvedMove:
    action: int
    move: str
    value: int
    result: str
    plies: Optional[int]

class Solution:
    complete: bool
    value: int
    result: Optional[str]
    plies: Optional[int]
    moves: list[SolvedMove]
    solver: str
    nodes: int
    seconds: float

def solve(state: State, *, seconds: float = 60.0, nodes: int = 0, each_move: bool = False,
          weak: bool = False) -> Solution: ...
def accuracy(game: Union[Game, str], players: Sequence[str], *, positions: str = "generate:200", seed: int = 1,
             plies: Optional[Tuple[int, int]] = None, engine: str = "uct:sims=200", solve_seconds: float = 10.0,
             save: str = "") -> list[dict[str, Any]]: ...

def polyc(source: str, **options: Any) -> str: ...
def polyc_report(source: str, **options: Any) -> dict[str, Any]: ...

class TrainResult:
    step: int
    games: int
    samples: int
    run_dir: str
    checkpoint: str
    model: str
    interrupted: bool
    seconds: float

class Learner:
    step_count: int
    lr: float
    config: dict[str, Any]
    state_file_name: str
    def __init__(self, game: str, config: Optional[dict[str, Any]] = None, set: Sequence[str] = (),
                 seed: int = 1) -> None: ...
    def step(self, observations: npt.ArrayLike, policies: npt.ArrayLike, values: npt.ArrayLike,
             policy_mask: Optional[npt.ArrayLike] = None, ownership: Optional[npt.ArrayLike] = None,
             score: Optional[npt.ArrayLike] = None, auxiliary_mask: Optional[npt.ArrayLike] = None) -> dict[str, float]: ...
    def weights(self) -> dict[str, npt.NDArray[np.float32]]: ...
    def save_model(self, path: str) -> None: ...
    def load_model(self, path: str) -> None: ...
    def save_state(self, path: str) -> None: ...
    def load_state(self, path: str) -> None: ...

def train_config(game: str, config: Optional[dict[str, Any]] = None, set: Sequence[str] = ()) -> dict[str, Any]: ...
def train(*, game: str = "", config: Optional[dict[str, Any]] = None, set: Sequence[str] = (), run_dir: str = "",
          resume: str = "", steps: int = 0, minutes: float = 0.0,
          on_metrics: Optional[Callable[[dict[str, Any]], None]] = None, quiet: bool = True) -> TrainResult: ...

class Model:
    game: Game
    backend: str
    info: dict[str, Any]
    step: int
    parameters: int
    input_shape: list[int]
    policy_size: int
    value_outputs: int
    path: str
    def evaluate(self, observations: npt.ArrayLike) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...
    def evaluate_states(self, states: Sequence[State]) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...

def load_model(path: str, game: Union[Game, str, None] = None, backend: str = "auto", threads: int = 1) -> Model: ...
