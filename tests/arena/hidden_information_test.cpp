// Players of hidden-information games search worlds resampled from what they have seen,
// never the true hidden state; matches and the terminal handle single-player and
// simultaneous games without showing what a player may not see.
#include <gtest/gtest.h>

#include <sstream>

#include "arena/match.h"
#include "arena/player_factory.h"
#include "arena/terminal_game.h"
#include "games/registry.h"
#include "util/error.h"

namespace pz::arena {
namespace {

constexpr const char* kSmallMastermind = "mastermind:length=3,colours=4,max_guesses=8";

// Two positions a player cannot tell apart: different secrets, the same guess and answer.
std::pair<std::unique_ptr<games::State>, std::unique_ptr<games::State>> indistinguishable_pair(const games::Game& game) {
  auto a = game.new_initial_state();
  auto b = game.new_initial_state();
  a->apply_checked(*a->parse_action("secret 234"));
  b->apply_checked(*b->parse_action("secret 432"));
  for (auto* s : {a.get(), b.get()}) s->apply_checked(*s->parse_action("111"));  // both: no peg
  return {std::move(a), std::move(b)};
}

TEST(HiddenInformation, SearchPlayersChooseTheSameMoveInPositionsTheyCannotTellApart) {
  auto game = games::make_game(kSmallMastermind);
  auto [a, b] = indistinguishable_pair(*game);
  ASSERT_EQ(a->observation(0), b->observation(0));
  ASSERT_NE(a->hash(), b->hash());
  for (const char* spec : {"uct:sims=4000,seed=5", "mcts:sims=2000,seed=5", "uct:sims=800,worlds=1,seed=9"}) {
    auto pa = make_player(spec, *game, 1);
    auto pb = make_player(spec, *game, 1);
    EXPECT_EQ(pa->choose_action(*a, 0), pb->choose_action(*b, 0)) << spec;
  }
}

TEST(HiddenInformation, DeterminizedSearchPlaysMastermindWellAboveRandom) {
  auto game = games::make_game(kSmallMastermind);
  const MatchResult r = play_match(*game, {"uct:sims=3000", "random", 10, 2, 11, 0});
  const ScoreSummary search = summarize_scores(r.games), random = summarize_scores(r.p2_games);
  // Guessing a code consistent with the answers solves 64 codes in about 3–4 guesses
  // (score 5–6 of 8); random guessing rarely finds the code within 8 tries (~0.7).
  EXPECT_GT(search.mean, 4.0);
  EXPECT_GT(search.mean, random.mean + 2.5);
}

TEST(Match, SinglePlayerGamesComparePlayersOnTheSameSeeds) {
  auto game = games::make_game(kSmallMastermind);
  const MatchResult r = play_match(*game, {"random", "random:seed=99", 6, 2, 4, 0});
  ASSERT_EQ(r.games.size(), 6u);
  ASSERT_EQ(r.p2_games.size(), 6u);
  for (std::size_t i = 0; i < r.games.size(); ++i) {
    EXPECT_EQ(r.games[i].moves.front(), r.p2_games[i].moves.front()) << "game " << i << ": same secret for both";
    const double mine = r.games[i].returns[0], theirs = r.p2_games[i].returns[0];
    EXPECT_EQ(r.games[i].p1_outcome, mine > theirs ? Outcome::kWin : mine < theirs ? Outcome::kLoss : Outcome::kDraw);
  }
  const MatchResult alone = play_match(*game, {"random", "", 3, 1, 4, 0});
  EXPECT_EQ(alone.games.size(), 3u);
  EXPECT_TRUE(alone.p2_games.empty());
  EXPECT_EQ(alone.games[0].moves, r.games[0].moves);
  auto connect4 = games::make_game("connect4");
  EXPECT_THROW(play_match(*connect4, {"random", "", 2, 1, 1, 0}), util::UsageError);
}

std::string play_in_terminal(const std::string& spec, const std::vector<std::string>& players, const std::string& input) {
  auto game = games::make_game(spec);
  std::vector<std::unique_ptr<Player>> seats;
  for (std::size_t i = 0; i < players.size(); ++i) seats.push_back(make_player(players[i], *game, 10 + i));
  std::istringstream in(input);
  std::ostringstream out;
  TerminalGame session(game, std::move(seats), 3, in, out);
  session.run();
  return out.str();
}

TEST(TerminalGame, HiddenChanceOutcomesAreNotShown) {
  const std::string out = play_in_terminal(kSmallMastermind, {"human"}, "111\nquit\n");
  EXPECT_EQ(out.find("secret"), std::string::npos) << out;
  EXPECT_EQ(out.find("Chance:"), std::string::npos) << out;
  EXPECT_NE(out.find("Chance draws the hidden part of the game."), std::string::npos) << out;
}

TEST(TerminalGame, PublicChanceOutcomesAreShownAndTheBoardDrawnOncePerTurn) {
  const std::string out = play_in_terminal("2048", {"human"}, "quit\n");
  // Two tiles spawn before the first move: both shown, one board.
  std::size_t chance_lines = 0, pos = 0;
  while ((pos = out.find("Chance: ", pos)) != std::string::npos) ++chance_lines, ++pos;
  EXPECT_EQ(chance_lines, 2u) << out;
  const std::string board = games::make_game("2048")->new_initial_state()->to_string();
  const std::string first_line = board.substr(0, board.find('\n'));
  std::size_t boards = 0;
  pos = 0;
  while ((pos = out.find(first_line, pos)) != std::string::npos) ++boards, ++pos;
  EXPECT_EQ(boards, 1u) << out;
}

TEST(TerminalGame, SimultaneousMovesOfEveryPlayerAreShown) {
  const std::string out = play_in_terminal("tron", {"random", "random"}, "");
  EXPECT_NE(out.find("player 1 (random) plays"), std::string::npos) << out;
  EXPECT_NE(out.find("player 2 (random) plays"), std::string::npos) << out;
  EXPECT_NE(out.find("Game over after"), std::string::npos) << out;
}

}  // namespace
}  // namespace pz::arena
