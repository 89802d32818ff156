#include "arena/terminal_game.h"

#include <iostream>
#include <algorithm>
#include <optional>
#include <string>

#include "arena/search_players.h"
#include "mcts/evaluator.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::arena {

namespace {

// What a user typed, quoted back in an error without flooding the terminal.
std::string excerpt(const std::string& text) { return text.size() <= 40 ? text : text.substr(0, 37) + "..."; }

}  // namespace

using games::Action;
using games::State;

TerminalGame::TerminalGame(std::shared_ptr<const games::Game> game, std::vector<std::unique_ptr<Player>> players,
                           std::uint64_t seed, std::istream& in, std::ostream& out)
    : game_(std::move(game)), players_(std::move(players)), rng_(seed), in_(in), out_(out) {
  if (static_cast<int>(players_.size()) != game_->info().num_players) {
    throw util::UsageError(game_->info().long_name + " needs " + std::to_string(game_->info().num_players) +
                           " player(s), got " + std::to_string(players_.size()));
  }
  history_.push_back(game_->new_initial_state());
}

std::string TerminalGame::seat_name(games::Player seat) const {
  return "player " + std::to_string(seat + 1) + " (" + players_[static_cast<size_t>(seat)]->name() + ")";
}

std::string TerminalGame::legal_moves_text(games::Player seat) const {
  std::vector<Action> legal;
  state().legal_actions(seat, legal);
  std::vector<std::string> names;
  for (Action a : legal) names.push_back(state().action_to_string(seat, a));
  return util::join(names, " ");
}

std::string TerminalGame::legal_moves_hint(games::Player seat) const {
  std::vector<Action> legal;
  state().legal_actions(seat, legal);
  if (legal.size() <= kMaxMovesListed) return "Legal moves: " + legal_moves_text(seat);
  return "Type 'moves' to list the " + std::to_string(legal.size()) + " legal moves, or 'help' for commands.";
}

void TerminalGame::print_board() {
  out_ << "\n" << state().to_string();
  if (!last_move_.empty()) out_ << "Last move: " << last_move_ << "\n";
  out_ << std::flush;
}

void TerminalGame::print_sides() {
  const int n = game_->info().num_players;
  for (int seat = 0; seat < n; ++seat) {
    if (!players_[static_cast<size_t>(seat)]->is_human()) continue;
    out_ << "You play player " << seat + 1;
    if (n == 2) out_ << (seat == 0 ? " (you move first)" : " (you move second)");
    out_ << ".\n";
  }
}

void TerminalGame::print_thinking(games::Player seat, const games::State& before) {
  const auto* mcts = dynamic_cast<const MctsPlayer*>(players_[static_cast<size_t>(seat)].get());
  if (!mcts) return;
  const std::string summary = mcts->last_report().summary(before);
  if (!summary.empty()) out_ << "  " << summary << "\n";
}

void TerminalGame::print_result() {
  const auto returns = state().returns();
  out_ << "\nGame over after " << state().move_number() << " moves.";
  if (returns.size() == 2 && game_->info().zero_sum) {
    if (returns[0] > returns[1]) out_ << " Winner: " << seat_name(0) << ".";
    else if (returns[1] > returns[0]) out_ << " Winner: " << seat_name(1) << ".";
    else out_ << " Draw.";
  }
  out_ << " Returns:";
  for (size_t p = 0; p < returns.size(); ++p) out_ << " " << util::format_double(returns[p]);
  out_ << "\n";
}

void TerminalGame::apply(Action action) {
  const State& before = state();
  for (auto& p : players_) p->observe_action(before, action);
  auto next = before.clone();
  next->apply_action(action);
  history_.push_back(std::move(next));
}

void TerminalGame::apply_joint(const std::vector<Action>& actions) {
  auto next = state().clone();
  next->apply_joint_action(actions);
  history_.push_back(std::move(next));
  for (auto& p : players_) p->reset(state());
}

bool TerminalGame::undo(games::Player seat) {
  // Rewind to the previous state where this seat was to move, so a person playing an AI
  // takes back their move and the AI's answer together.
  for (size_t i = history_.size() - 1; i-- > 0;) {
    const auto mover = history_[i]->current_player();
    if (mover == seat || (mover == games::kSimultaneousPlayer)) {
      history_.resize(i + 1);
      for (auto& p : players_) p->reset(state());
      return true;
    }
  }
  return false;
}

std::optional<Action> TerminalGame::ask_human(games::Player seat) {
  while (true) {
    out_ << seat_name(seat) << " to move> " << std::flush;
    std::string line;
    if (!std::getline(in_, line)) {
      out_ << "\n(input ended)\n";
      outcome_ = Outcome::kInputEnded;
      return std::nullopt;
    }
    const std::string command = util::to_lower(util::trim(line));
    if (command.empty()) continue;
    if (command == "quit" || command == "exit" || command == "q") {
      outcome_ = Outcome::kQuit;
      return std::nullopt;
    }
    if (command == "help" || command == "?") {
      out_ << "Type a move in " << game_->info().long_name << " notation. " << legal_moves_hint(seat)
           << "\nCommands: moves (list legal moves), board (draw the board), undo (take back your last move), "
              "quit.\n";
      continue;
    }
    if (command == "moves" || command == "legal") {
      out_ << "Legal moves: " << legal_moves_text(seat) << "\n";
      continue;
    }
    if (command == "board") {
      print_board();
      continue;
    }
    if (command == "undo") {
      if (undo(seat)) {
        last_move_.clear();
        out_ << "Undone.\n";
        return std::nullopt;
      }
      out_ << "Nothing to undo.\n";
      continue;
    }
    std::string error;
    auto action = state().parse_action(line, &error);
    if (!action) {
      out_ << "Cannot read '" << excerpt(util::trim(line)) << "': " << error << ".\n" << legal_moves_hint(seat) << "\n";
      continue;
    }
    std::vector<Action> legal;
    state().legal_actions(seat, legal);
    if (std::find(legal.begin(), legal.end(), *action) == legal.end()) {
      out_ << "Illegal move " << state().action_to_string(seat, *action) << ": " << state().explain_illegal(*action)
           << ".\n" << legal_moves_hint(seat) << "\n";
      continue;
    }
    return action;
  }
}

std::optional<Action> TerminalGame::ask_ai(games::Player seat) {
  try {
    return players_[static_cast<size_t>(seat)]->choose_action(state(), seat);
  } catch (const Forfeit& forfeit) {
    out_ << "\nGame over after " << state().move_number() << " moves: " << seat_name(seat) << " forfeits ("
         << forfeit.what() << ").\n";
    return std::nullopt;
  }
}

TerminalGame::Outcome TerminalGame::run() {
  out_ << game_->info().long_name << " (" << game_->spec().to_string() << ")";
  for (int p = 0; p < game_->info().num_players; ++p) out_ << (p ? " vs " : ": ") << seat_name(p);
  out_ << "\n";
  bool any_human = false;
  for (const auto& p : players_) any_human |= p->is_human();
  if (any_human) {
    print_sides();
    out_ << "Type 'help' for commands.\n";
  }
  // The board is drawn when someone is about to move or the game ends, not after every
  // action: a die roll or a tile spawn right after a move shows one board, not two.
  bool board_shown = false;
  const auto show_board = [&] {
    if (!board_shown) print_board();
    board_shown = true;
  };
  while (!state().is_terminal()) {
    const games::Player mover = state().current_player();
    if (mover == games::kChancePlayer) {
      const Action chosen = mcts::sample_chance_outcome(state(), rng_);
      // A hidden draw (the secret code, the mines) must not be shown to the players.
      if (game_->info().perfect_information) {
        out_ << "Chance: " << state().action_to_string(games::kChancePlayer, chosen) << "\n";
      } else if (history_.size() < 2 || !history_[history_.size() - 2]->is_chance_node()) {
        out_ << "Chance draws the hidden part of the game.\n";
      }
      apply(chosen);
      board_shown = false;
      continue;
    }
    show_board();
    if (mover == games::kSimultaneousPlayer) {
      std::vector<Action> joint;
      bool rewound = false;
      for (int seat = 0; seat < game_->info().num_players && !rewound; ++seat) {
        auto& player = players_[static_cast<size_t>(seat)];
        if (player->is_human()) {
          auto a = ask_human(seat);
          if (!a) {
            if (outcome_) return *outcome_;
            rewound = true;
            break;
          }
          joint.push_back(*a);
        } else {
          auto a = ask_ai(seat);
          if (!a) return Outcome::kFinished;
          joint.push_back(*a);
        }
      }
      if (rewound) {
        board_shown = false;
        continue;
      }
      // Shown only once every seat has chosen: nobody sees another's move before their own.
      for (int seat = 0; seat < game_->info().num_players; ++seat) {
        out_ << seat_name(seat) << " plays " << state().action_to_string(seat, joint[static_cast<size_t>(seat)]) << "\n";
      }
      last_move_.clear();
      apply_joint(joint);
      board_shown = false;
      continue;
    }
    auto& player = players_[static_cast<size_t>(mover)];
    if (player->is_human()) {
      auto a = ask_human(mover);
      if (!a) {
        if (outcome_) return *outcome_;
        board_shown = false;  // after undo
        continue;
      }
      last_move_ = state().action_to_string(mover, *a) + " by " + seat_name(mover);
      apply(*a);
    } else {
      const auto a = ask_ai(mover);
      if (!a) return Outcome::kFinished;
      const std::string move = state().action_to_string(mover, *a);
      out_ << seat_name(mover) << " plays " << move << "\n";
      print_thinking(mover, state());
      last_move_ = move + " by " + seat_name(mover);
      apply(*a);
    }
    board_shown = false;
  }
  show_board();
  print_result();
  return Outcome::kFinished;
}

}  // namespace pz::arena
