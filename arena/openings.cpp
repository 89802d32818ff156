#include "arena/openings.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "games/move_record.h"
#include "mcts/evaluator.h"
#include "util/error.h"
#include "util/files.h"
#include "util/rng.h"

namespace pz::arena {
namespace {

constexpr int kMaxRandomPlies = 1000;

int parse_random_plies(std::string_view count) {
  int plies = -1;
  const auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), plies);
  if (error != std::errc() || end != count.data() + count.size() || plies < 1 || plies > kMaxRandomPlies) {
    throw util::UsageError("openings 'random:" + std::string(count) + "': K must be a whole number of plies from 1 to " +
                           std::to_string(kMaxRandomPlies));
  }
  return plies;
}

std::vector<std::vector<games::Action>> read_book(const std::string& path, const games::Game& game) {
  if (const std::string problem = util::file_problem(path); !problem.empty()) {
    throw util::UsageError("openings file " + path + ": " + problem +
                           " (give random:K for random openings, or a file of move lines)");
  }
  std::ifstream in(path);
  if (!in) {
    throw util::UsageError("openings file " + path +
                           " cannot be read (give random:K for random openings, or a file of move lines)");
  }
  std::vector<std::vector<games::Action>> book;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    auto state = game.new_initial_state();
    std::vector<games::Action> actions;
    games::for_each_word(line, [&](int index, std::string_view word) {
      const auto fail = [&](const std::string& why) {
        throw util::UsageError("openings file " + path + ", line " + std::to_string(number) + ", move " +
                               std::to_string(index) + " '" + std::string(word.substr(0, 40)) + "': " + why);
      };
      if (state->is_terminal()) fail("the game is already over");
      std::string error;
      const auto action = state->parse_action(word, &error);
      if (!action) fail(error);
      if (!state->is_legal(*action)) fail(state->explain_illegal(*action));
      state->apply_action(*action);
      actions.push_back(*action);
    });
    if (state->is_terminal()) {
      throw util::UsageError("openings file " + path + ", line " + std::to_string(number) + ": the opening ends the game");
    }
    book.push_back(std::move(actions));
  }
  if (book.empty()) throw util::UsageError("openings file " + path + " has no opening lines");
  return book;
}

std::uint64_t pair_seed(std::uint64_t seed, int pair) {
  std::uint64_t z = seed ^ (static_cast<std::uint64_t>(pair) * 0x9E3779B97F4A7C15ULL) ^ 0x0BE71C6ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

Openings::Openings(std::string_view text, const games::Game& game) : text_(text) {
  if (text.empty()) return;
  if (text.rfind("random:", 0) == 0) {
    random_plies_ = parse_random_plies(text.substr(7));
  } else {
    book_ = read_book(std::string(text), game);
  }
}

std::vector<games::Action> Openings::for_pair(const games::Game& game, int pair, std::uint64_t seed) const {
  if (!book_.empty()) return book_[static_cast<std::size_t>(pair) % book_.size()];
  if (random_plies_ == 0) return {};
  util::Rng rng(pair_seed(seed, pair));
  std::vector<games::Action> legal;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto state = game.new_initial_state();
    std::vector<games::Action> actions;
    while (static_cast<int>(actions.size()) < random_plies_ && !state->is_terminal() &&
           !state->is_simultaneous_node()) {
      games::Action action;
      if (state->is_chance_node()) {
        action = mcts::sample_chance_outcome(*state, rng);
      } else {
        state->legal_actions(legal);
        action = legal[rng.below(static_cast<std::uint32_t>(legal.size()))];
      }
      state->apply_action(action);
      actions.push_back(action);
    }
    if (!state->is_terminal()) return actions;  // K plies, or all before a simultaneous node
  }
  return {};  // every draw ended the game: the initial position
}

}  // namespace pz::arena
