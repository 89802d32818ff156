// PUCT semantics on small puzzles, with evaluators that know nothing (uniform priors and a
// constant value) so that everything the search finds comes from the search itself.
#include "mcts/search.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "games/registry.h"
#include "mcts/move_choice.h"
#include "test_games.h"

namespace pz::mcts {
namespace {

using testing::check_tree;
using testing::play;

SearchConfig config_with(int simulations, bool solver = true) {
  SearchConfig c;
  c.simulations = simulations;
  c.solver = solver;
  return c;
}

games::Action best_move(Search& search, Evaluator& evaluator, const games::State& state) {
  search.set_root(state);
  const SearchReport report = search.run(evaluator);
  util::Rng rng(1);
  return choose_move(report, MoveSelection{}, state.move_number(), rng);
}

const ChildReport& child(const SearchReport& report, games::Action action) {
  for (const auto& c : report.children) {
    if (c.action == action) return c;
  }
  throw std::logic_error("no such child");
}

TEST(Search, TicTacToeTakesTheWin) {
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 4 2 5");  // X: 1 2, O: 4 5; X to move wins at 3, O threatens 6
  UniformEvaluator evaluator;
  for (bool solver : {true, false}) {
    Search search(*game, config_with(400, solver), 7);
    EXPECT_EQ(best_move(search, evaluator, *state), 2) << "solver " << solver;
  }
}

TEST(Search, TicTacToeFindsTheOnlyDefence) {
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 5 2");  // O must block at 3
  UniformEvaluator evaluator;
  for (bool solver : {true, false}) {
    Search search(*game, config_with(1500, solver), 11);
    EXPECT_EQ(best_move(search, evaluator, *state), 2) << "solver " << solver;
  }
}

TEST(Search, ConnectFourWinAndBlock) {
  auto game = games::make_game("connect4");
  UniformEvaluator evaluator;
  Search search(*game, config_with(300), 3);
  EXPECT_EQ(best_move(search, evaluator, *play(*game, "1 2 1 2 1 3")), 0);  // complete the column
  EXPECT_EQ(best_move(search, evaluator, *play(*game, "1 2 1 2 1")), 0);    // block it
}

TEST(Search, ConnectFourDoubleThreat) {
  // X on c1 and d1 (O on top of them), X to move: b1 or e1 makes an open three on the
  // bottom row that O cannot stop — a win in three plies the search must prove.
  auto game = games::make_game("connect4");
  RolloutEvaluator evaluator(1, 5);
  Search search(*game, config_with(6000), 5);
  auto state = play(*game, "3 3 4 4");
  search.set_root(*state);
  const SearchReport report = search.run(evaluator);
  util::Rng rng(1);
  const games::Action move = choose_move(report, MoveSelection{}, state->move_number(), rng);
  EXPECT_TRUE(move == 1 || move == 4) << report.to_string(*state);
  EXPECT_TRUE(report.root_proven) << report.to_string(*state);
  EXPECT_EQ(report.root_proven_value, 1.0);
}

TEST(Search, VisitsConvergeToTheWinningMove) {
  auto game = games::make_game("tictactoe");
  auto state = play(*game, "1 4 2 5");
  UniformEvaluator evaluator;
  double previous = 0;
  for (int sims : {100, 400, 1600}) {
    Search search(*game, config_with(sims, /*solver=*/false), 1);
    search.set_root(*state);
    const SearchReport report = search.run(evaluator);
    const double share = static_cast<double>(child(report, 2).visits) / static_cast<double>(report.root_visits - 1);
    EXPECT_GT(share, previous) << sims;
    previous = share;
    EXPECT_NEAR(child(report, 2).q, 1.0, 1e-9);
    EXPECT_EQ(check_tree(*search.root_node()), "");
  }
  EXPECT_GT(previous, 0.8);
}

TEST(Search, ReportIsConsistent) {
  auto game = games::make_game("connect4");
  RolloutEvaluator evaluator(1, 9);
  Search search(*game, config_with(500, false), 2);
  auto state = game->new_initial_state();
  search.set_root(*state);
  const SearchReport report = search.run(evaluator);
  EXPECT_EQ(report.simulations, 500);
  EXPECT_EQ(report.root_visits, 500);
  std::int64_t sum = 0;
  for (const auto& c : report.children) {
    sum += c.visits;
    ASSERT_FALSE(c.pv.empty());
    EXPECT_EQ(c.pv.front(), c.action);
    EXPECT_GE(c.q, -1.0);
    EXPECT_LE(c.q, 1.0);
    EXPECT_NEAR(c.prior, 1.0 / 7, 1e-6);
  }
  EXPECT_EQ(sum, report.root_visits - 1);
  EXPECT_EQ(report.children.size(), 7u);
  EXPECT_GT(report.most_visited()->pv.size(), 2u);
  EXPECT_NE(report.to_string(*state).find("visits"), std::string::npos);
  EXPECT_EQ(check_tree(*search.root_node()), "");
}

// A stop flag set from another thread (Ctrl-C) ends a search of any budget at its next
// check; the tree and the report stay consistent, and a later search without it runs.
TEST(Search, AStopFlagEndsTheSearch) {
  auto game = games::make_game("connect4");
  RolloutEvaluator evaluator(1, 9);
  Search search(*game, config_with(1000000000, false), 2);
  auto state = game->new_initial_state();
  search.set_root(*state);
  std::atomic<bool> stop{false};
  search.set_stop(&stop);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop = true;
  });
  const SearchReport report = search.run(evaluator);
  stopper.join();
  EXPECT_GT(report.simulations, 0);
  EXPECT_LT(report.simulations, 1000000000);
  EXPECT_EQ(check_tree(*search.root_node()), "");
  search.set_stop(nullptr);
  search.set_config(config_with(200, false));
  search.set_root(*state);
  EXPECT_EQ(search.run(evaluator).simulations, 200);
}

// The child of `node` whose move is `action`, or null.
const Node* child_node(const Node& node, games::Action action) {
  for (int j = 0; j < node.num_children; ++j) {
    if (node.children[j].action == action) return &node.children[j];
  }
  return nullptr;
}

// Every principal variation goes through nodes of at least kPvMinVisits visits (after the
// root child itself) and stops only where no child has that many, at a terminal or leaf,
// or at the length limit: small searches no longer list moves of once-visited nodes.
TEST(Search, PrincipalVariationStopsBelowTheVisitThreshold) {
  auto game = games::make_game("connect4");
  for (const int sims : {8, 40, 500}) {
    RolloutEvaluator evaluator(1, 3);
    Search search(*game, config_with(sims, false), 3);
    search.set_root(*game->new_initial_state());
    const SearchReport report = search.run(evaluator);
    int extended = 0;
    for (const auto& c : report.children) {
      const Node* node = child_node(*search.root_node(), c.pv.front());
      ASSERT_NE(node, nullptr);
      for (std::size_t k = 1; k < c.pv.size(); ++k) {
        node = child_node(*node, c.pv[k]);
        ASSERT_NE(node, nullptr) << sims;
        EXPECT_GE(node->visits.load(), kPvMinVisits) << sims << " sims, move " << k;
      }
      extended += c.pv.size() > 1 ? 1 : 0;
      if (c.pv.size() >= 12 || !node->is_expanded()) continue;
      for (int j = 0; j < node->num_children; ++j) {
        EXPECT_FALSE(pv_continues_into(node->children[j].visits.load())) << sims << " sims: the line stopped early";
      }
    }
    if (sims >= 40) {
      EXPECT_GT(extended, 0) << "a searched child has a line below it";
    }
  }
}

TEST(Search, DeterministicForASeed) {
  auto game = games::make_game("connect4");
  auto run_once = [&] {
    RolloutEvaluator evaluator(1, 42);
    Search search(*game, config_with(300), 42);
    search.set_root(*game->new_initial_state());
    std::vector<std::int32_t> visits;
    for (const auto& c : search.run(evaluator).children) visits.push_back(c.visits);
    return visits;
  };
  EXPECT_EQ(run_once(), run_once());
}

TEST(Search, TreeReuseKeepsTheSubtree) {
  auto game = games::make_game("connect4");
  RolloutEvaluator evaluator(1, 4);
  Search search(*game, config_with(800, false), 4);
  auto state = game->new_initial_state();
  search.set_root(*state);
  const SearchReport first = search.run(evaluator);
  const ChildReport* best = first.most_visited();
  const std::size_t nodes_before = search.tree_nodes();
  search.advance(best->action);
  state->apply_action(best->action);
  EXPECT_EQ(search.root_node()->visits.load(), best->visits);
  EXPECT_LT(search.tree_nodes(), nodes_before);
  EXPECT_EQ(check_tree(*search.root_node(), true), "");
  search.set_root(*state);  // same position: the tree stays
  EXPECT_EQ(search.root_node()->visits.load(), best->visits);

  SearchConfig c = config_with(0, false);
  c.max_visits = best->visits + 200;  // counts the reused visits
  search.set_config(c);
  const SearchReport second = search.run(evaluator);
  EXPECT_EQ(second.root_visits, best->visits + 200);
  EXPECT_EQ(second.simulations, 200);
  EXPECT_EQ(check_tree(*search.root_node(), true), "");

  // Reuse off: a fresh tree after every move.
  c.reuse_tree = false;
  search.set_config(c);
  search.advance(0);
  EXPECT_EQ(search.root_node()->visits.load(), 0);
}

// LCB needs each root child's spread over all of its visits. Nodes that tree reuse moves
// up from deep in the tree were visited there too, so their squared values must be summed
// at every depth. Every value here has square 1 (Hex has no draws, and the evaluator says 1
// for both seats), so the sum must equal the visits; a small c_puct and a large first-play
// reduction make the tree deep, so that the nodes reuse brings up were visited deep down.
TEST(Search, SpreadCoversEveryVisitAfterTreeReuse) {
  auto game = games::make_game("hex:size=5");
  UniformEvaluator evaluator(1.0f);
  SearchConfig c = config_with(2000, false);
  c.c_puct_init = 0.05;
  c.fpu_reduction = c.fpu_reduction_root = 1.0;
  Search search(*game, c, 9);
  auto state = game->new_initial_state();
  for (int move = 0; move < 8 && !state->is_terminal(); ++move) {
    search.set_root(*state);
    const SearchReport report = search.run(evaluator);
    const Node* root = search.root_node();
    for (int i = 0; i < root->num_children; ++i) {
      const Node& child = root->children[i];
      EXPECT_EQ(child.value_sq_sum.load(), static_cast<double>(child.visits.load())) << "move " << move << ", child " << child.action;
    }
    const games::Action a = report.most_visited()->action;
    search.advance(a);
    state->apply_action(a);
  }
}

TEST(Search, TimeBudget) {
  auto game = games::make_game("connect4");
  RolloutEvaluator evaluator(1, 4);
  SearchConfig c;
  c.simulations = 0;
  c.max_seconds = 0.05;
  Search search(*game, c, 4);
  search.set_root(*game->new_initial_state());
  const SearchReport report = search.run(evaluator);
  EXPECT_GE(report.seconds, 0.05);
  EXPECT_LT(report.seconds, 0.5);
  EXPECT_GT(report.simulations, 10);
}

TEST(Search, RejectsAConfigWithoutBudget) {
  auto game = games::make_game("connect4");
  SearchConfig c;
  c.simulations = 0;
  EXPECT_THROW(Search(*game, c, 1), std::invalid_argument);
}

TEST(Search, LcbAvoidsAThinlyVisitedMove) {
  SearchReport r;
  r.value_low = -1;
  r.value_high = 1;
  ChildReport steady{0, 100, 0.2, 0.6, 0.05, 0.5f, false, 0, {0}};
  ChildReport lucky{1, 105, 0.3, 0.65, 0.45, 0.5f, false, 0, {1}};
  r.children = {steady, lucky};
  util::Rng rng(1);
  MoveSelection by_visits;
  EXPECT_EQ(choose_move(r, by_visits, 10, rng), 1);
  MoveSelection by_lcb;
  by_lcb.method = MoveSelection::Method::kLcb;
  EXPECT_EQ(choose_move(r, by_lcb, 10, rng), 0);
}

}  // namespace
}  // namespace pz::mcts
