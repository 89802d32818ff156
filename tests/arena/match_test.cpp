// Matches, and the strength sanity checks of the search players (small enough for CI).
#include "arena/match.h"

#include <gtest/gtest.h>

#include <atomic>

#include "arena/player_factory.h"
#include "arena/search_players.h"
#include "games/registry.h"
#include "util/error.h"

namespace pz::arena {
namespace {

TEST(Match, AlternatesColoursAndKeepsRecords) {
  auto game = games::make_game("tictactoe");
  MatchOptions options{"random", "random", 10, 1, 7, 0};
  const MatchResult r = play_match(*game, options);
  EXPECT_EQ(r.played(), 10);
  EXPECT_EQ(r.wins + r.draws + r.losses, 10);
  for (const auto& g : r.games) {
    EXPECT_EQ(g.p1_seat, g.index % 2);
    // The record replays to the final state.
    auto state = game->new_initial_state();
    for (const auto& m : g.moves) state->apply_checked(*state->parse_action(m));
    EXPECT_TRUE(state->is_terminal());
    EXPECT_EQ(state->serialize(), g.final_state);
    const double mine = g.returns[static_cast<std::size_t>(g.p1_seat)];
    EXPECT_EQ(g.p1_outcome, mine > 0 ? Outcome::kWin : mine < 0 ? Outcome::kLoss : Outcome::kDraw);
  }
}

TEST(Match, ReproducibleWhateverTheThreads) {
  auto game = games::make_game("connect4");
  const MatchResult a = play_match(*game, {"uct:sims=50", "random", 6, 1, 3, 0});
  const MatchResult b = play_match(*game, {"uct:sims=50", "random", 6, 3, 3, 0});
  ASSERT_EQ(a.games.size(), b.games.size());
  for (std::size_t i = 0; i < a.games.size(); ++i) EXPECT_EQ(a.games[i].moves, b.games[i].moves);
}

// A stop flag (Ctrl-C) ends the match: the finished games are its result, no game in
// progress counts, and none starts after the flag.
TEST(Match, AStopFlagKeepsOnlyTheFinishedGames) {
  auto game = games::make_game("connect4");
  std::atomic<bool> stop{false};
  MatchOptions options{"uct:sims=20", "random", 40, 2, 5, 0};
  options.stop = &stop;
  const MatchResult r = play_match(*game, options, [&](const GameResult&) { stop = true; });
  EXPECT_TRUE(r.interrupted);
  EXPECT_GE(r.played(), 1);
  EXPECT_LT(r.played(), 40);
  EXPECT_EQ(static_cast<int>(r.games.size()), r.played());
  for (const auto& g : r.games) EXPECT_FALSE(g.interrupted);
  const MatchResult none = play_match(*game, options);  // the flag is already set
  EXPECT_EQ(none.played(), 0);
  EXPECT_TRUE(none.interrupted);
}

TEST(Match, BadInputIsExplained) {
  auto game = games::make_game("connect4");
  EXPECT_THROW(play_match(*game, {"uct:sims=x", "random", 2, 1, 1, 0}), util::UsageError);
  EXPECT_THROW(play_match(*game, {"random", "nobody", 2, 1, 1, 0}), util::UsageError);
  EXPECT_THROW(play_match(*game, {"random", "random", 0, 1, 1, 0}), util::UsageError);
  EXPECT_THROW(make_player("mcts:sims=0", *game, 1), util::UsageError);
  EXPECT_THROW(make_player("mcts:sims=10,select=lcb,lcb_z=-1", *game, 1), util::UsageError);
  auto state = game->new_initial_state();
  auto lcb = make_player("mcts:sims=50,select=lcb,lcb_z=5,lcb_min=0.15", *game, 1);
  EXPECT_TRUE(state->is_legal(lcb->choose_action(*state, 0)));
}

TEST(Match, MaxMovesCutsGamesShortAsDraws) {
  auto game = games::make_game("connect4");
  const MatchResult r = play_match(*game, {"random", "random", 2, 1, 1, 5});
  EXPECT_EQ(r.draws, 2);
  EXPECT_TRUE(r.games[0].cut_short);
}

// Issue 3's strength sanity: uct:sims=400 beats random in at least 95% of 40 games.
TEST(Strength, UctBeatsRandom) {
  auto game = games::make_game("connect4");
  const MatchResult r = play_match(*game, {"uct:sims=400", "random", 40, 2, 2024, 0});
  EXPECT_GE(r.wins, 38) << r.wins << "-" << r.draws << "-" << r.losses;
}

// More simulations do not lose to fewer at four times the budget.
TEST(Strength, MoreSimulationsDoNotLose) {
  auto game = games::make_game("connect4");
  const MatchResult uct = play_match(*game, {"uct:sims=400", "uct:sims=100", 40, 2, 99, 0});
  EXPECT_GT(uct.wins, uct.losses) << uct.wins << "-" << uct.draws << "-" << uct.losses;
  const MatchResult mcts = play_match(*game, {"mcts:sims=400", "mcts:sims=100", 40, 2, 99, 0});
  EXPECT_GT(mcts.wins, mcts.losses) << mcts.wins << "-" << mcts.draws << "-" << mcts.losses;
}

TEST(Strength, MctsNeverLosesTicTacToeToRandom) {
  auto game = games::make_game("tictactoe");
  const MatchResult r = play_match(*game, {"mcts:sims=300", "random", 20, 2, 5, 0});
  EXPECT_EQ(r.losses, 0);
  EXPECT_GE(r.wins, 14);
}

TEST(SearchPlayers, MctsPlayerReusesItsTreeAndReports) {
  auto game = games::make_game("connect4");
  auto player = make_player("mcts:sims=200,seed=1", *game, 1);
  auto* mcts = dynamic_cast<MctsPlayer*>(player.get());
  ASSERT_NE(mcts, nullptr);
  auto state = game->new_initial_state();
  const games::Action first = mcts->choose_action(*state, 0);
  EXPECT_EQ(mcts->last_report().root_visits, 200);
  auto before = state->clone();
  state->apply_action(first);
  mcts->observe_action(*before, first);
  before = state->clone();
  state->apply_action(3);
  mcts->observe_action(*before, 3);
  mcts->choose_action(*state, 0);
  EXPECT_GT(mcts->last_report().root_visits, 200);  // searched on top of reused visits
  EXPECT_EQ(mcts->last_report().simulations, 200);
}

}  // namespace
}  // namespace pz::arena
