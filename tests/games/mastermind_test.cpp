#include "games/mastermind.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "games/perft.h"
#include "tests/games/game_properties.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::games {
namespace {

std::shared_ptr<const MastermindGame> make(int length = 4, int colours = 6, int max_guesses = 10, bool hard = false) {
  util::Spec spec{"mastermind",
                  {{"colours", std::to_string(colours)}, {"hard", hard ? "true" : "false"}, {"length", std::to_string(length)},
                   {"max_guesses", std::to_string(max_guesses)}}};
  return std::make_shared<MastermindGame>(spec, length, colours, max_guesses, hard);
}

const MastermindState& ms(const State& s) { return static_cast<const MastermindState&>(s); }

// Pegs by the book, on digit strings: black = same colour in the same place; white = the
// colours in common counted with multiplicity, minus black.
std::pair<int, int> naive_pegs(const std::string& secret, const std::string& guess) {
  int black = 0, common = 0;
  for (size_t i = 0; i < secret.size(); ++i) black += secret[i] == guess[i];
  for (char c = '0'; c <= '9'; ++c) {
    common += std::min(std::count(secret.begin(), secret.end(), c), std::count(guess.begin(), guess.end(), c));
  }
  return {black, common - black};
}

std::pair<int, int> pegs(const MastermindGame& g, const std::string& secret, const std::string& guess) {
  const int s = g.score(*g.parse_code(secret, nullptr), *g.parse_code(guess, nullptr));
  return {s / 8, s % 8};
}

TEST(Mastermind, PegsOnKnownExamples) {
  auto g = make();
  // Worked by hand: 1234 vs 1122: the first 1 is black; one more 1 and a 2 are shared with
  // the secret's 1 and 2, so colours in common = 2 and white = 2 - 1 = 1.
  EXPECT_EQ(pegs(*g, "1234", "1122"), (std::pair{1, 1}));
  EXPECT_EQ(pegs(*g, "1234", "4321"), (std::pair{0, 4}));
  EXPECT_EQ(pegs(*g, "1122", "2211"), (std::pair{0, 4}));
  EXPECT_EQ(pegs(*g, "1111", "1112"), (std::pair{3, 0}));
  EXPECT_EQ(pegs(*g, "1122", "1222"), (std::pair{3, 0}));  // the extra 2 in the guess finds no partner
  EXPECT_EQ(pegs(*g, "1123", "3111"), (std::pair{1, 2}));
  EXPECT_EQ(pegs(*g, "6543", "3456"), (std::pair{0, 4}));
  EXPECT_EQ(pegs(*g, "5566", "1234"), (std::pair{0, 0}));
  EXPECT_EQ(pegs(*g, "2345", "2345"), (std::pair{4, 0}));
  // Scoring is symmetric in secret and guess.
  util::Rng rng(5);
  for (int i = 0; i < 20000; ++i) {
    const int a = static_cast<int>(rng.below(1296)), b = static_cast<int>(rng.below(1296));
    const std::string sa = g->code_to_string(a), sb = g->code_to_string(b);
    ASSERT_EQ(pegs(*g, sa, sb), naive_pegs(sa, sb)) << sa << " " << sb;
    ASSERT_EQ(g->score(a, b), g->score(b, a));
  }
}

TEST(Mastermind, KnuthPartitionOfTheFirstGuess1122) {
  // Knuth (1976), "The computer as Master Mind": guess 1122 splits the 1296 codes into
  // these classes. Two checked by hand: 0 black 0 white = codes over colours 3-6 only,
  // 4^4 = 256; 3 black 0 white = one of 4 positions wrong with 5 colours each (the colour
  // of the other pair leaves white at 0), 20.
  auto g = make();
  const int guess = *g->parse_code("1122", nullptr);
  std::map<std::pair<int, int>, int> sizes;
  for (int s = 0; s < g->num_codes(); ++s) {
    const int p = g->score(s, guess);
    ++sizes[{p / 8, p % 8}];
  }
  const std::map<std::pair<int, int>, int> knuth = {
      {{0, 0}, 256}, {{0, 1}, 256}, {{0, 2}, 96}, {{0, 3}, 16}, {{0, 4}, 1}, {{1, 0}, 256}, {{1, 1}, 208},
      {{1, 2}, 36},  {{2, 0}, 114}, {{2, 1}, 32}, {{2, 2}, 4},  {{3, 0}, 20}, {{4, 0}, 1}};
  EXPECT_EQ(sizes, knuth);
}

TEST(Mastermind, CodesAndNotation) {
  auto g = make();
  EXPECT_EQ(g->parse_code("1111", nullptr), 0);
  EXPECT_EQ(g->parse_code("6666", nullptr), 1295);
  EXPECT_EQ(g->parse_code("1112", nullptr), 1);
  EXPECT_EQ(g->parse_code("2111", nullptr), 216);
  EXPECT_EQ(g->code_to_string(216), "2111");
  std::string error;
  EXPECT_FALSE(g->parse_code("1117", &error));
  EXPECT_NE(error.find("colour 1-6"), std::string::npos);
  EXPECT_FALSE(g->parse_code("111", &error));
  EXPECT_FALSE(g->parse_code("0111", &error));
  auto ten = make(4, 10);
  EXPECT_EQ(ten->parse_code("0000", nullptr), 9999);
  EXPECT_EQ(ten->code_to_string(9), "1110");
  auto s = g->new_initial_state();
  EXPECT_EQ(s->parse_action("secret 1234"), s->parse_action("1234"));
  EXPECT_EQ(s->action_to_string(kChancePlayer, 0), "secret 1111");
  s->apply_action(*s->parse_action("1234"));
  EXPECT_EQ(s->action_to_string(0, 0), "1111");
  EXPECT_FALSE(s->parse_action("secret 1234", &error));  // only the draw is written so
}

TEST(Mastermind, GameFlowAndScore) {
  auto g = make();
  auto s = g->deserialize("1234 1122 1344");
  EXPECT_EQ(ms(*s).num_guesses(), 2);
  EXPECT_EQ(ms(*s).black(0), 1);
  EXPECT_EQ(ms(*s).white(0), 1);
  EXPECT_EQ(ms(*s).black(1), 2);  // 1344 against 1234: the 1 and the last 4 are in place, the 3 is not
  EXPECT_EQ(ms(*s).white(1), 1);
  EXPECT_EQ(s->current_player(), 0);
  EXPECT_EQ(s->returns(), std::vector<double>{0.0});
  s->apply_action(*s->parse_action("1234"));
  EXPECT_TRUE(s->is_terminal());
  EXPECT_EQ(s->returns(), std::vector<double>{8.0});  // found with the third guess: 10 + 1 - 3
  EXPECT_EQ(g->deserialize("1234 1234")->returns(), std::vector<double>{10.0});
  // Ten misses: score 0, and no eleventh guess.
  std::string record = "1234";
  for (int i = 0; i < 10; ++i) record += " 5555";
  auto lost = g->deserialize(record);
  EXPECT_TRUE(lost->is_terminal());
  EXPECT_EQ(lost->returns(), std::vector<double>{0.0});
  EXPECT_EQ(lost->move_number(), 11);
  EXPECT_THROW(g->deserialize(record + " 1234"), util::UsageError);
  EXPECT_THROW(g->deserialize("1234 1122 12x4"), util::UsageError);
  EXPECT_THROW(g->deserialize("1234 1234 1122"), util::UsageError);
  EXPECT_EQ(lost->explain_illegal(0), "no guesses are left: the game is over");
  // The secret stays hidden in the text until the end.
  EXPECT_EQ(g->deserialize("1234 1122")->to_string().find("1234"), std::string::npos);
  EXPECT_NE(lost->to_string().find("the code was 1234"), std::string::npos);
}

TEST(Mastermind, PerftByHand) {
  // n codes; every code is a legal guess; a guess equal to the secret ends the game.
  // perft(1) = n (the draw), perft(2) = n·n, perft(3) = n·(n-1)·n, perft(4) = n·(n-1)²·n.
  auto g = make(2, 3, 5);  // n = 9
  auto root = g->new_initial_state();
  EXPECT_EQ(perft(*root, 1), 9u);
  EXPECT_EQ(perft(*root, 2), 81u);
  EXPECT_EQ(perft(*root, 3), 9u * 8u * 9u);
  EXPECT_EQ(perft(*root, 4), 9u * 8u * 8u * 9u);
  // With two guesses allowed the game is over after them.
  auto short_game = make(2, 3, 2)->new_initial_state();
  EXPECT_EQ(perft(*short_game, 3), 9u * 8u * 9u);
  EXPECT_EQ(perft(*short_game, 4), 0u);
}

TEST(Mastermind, ObservationShowsOnlyTheGuesses) {
  auto g = make();
  // Two secrets that answer the guesses alike give the same observation.
  auto a = g->deserialize("1234 5566 1111"), b = g->deserialize("1243 5566 1111");
  ASSERT_NE(ms(*a).secret(), ms(*b).secret());
  EXPECT_EQ(a->observation(0), b->observation(0));
  EXPECT_NE(a->hash(), b->hash());
  // Before and after the draw alike.
  EXPECT_EQ(g->new_initial_state()->observation(0), g->deserialize("3456")->observation(0));
  // Layout: row 0 = 5566 (colours 4,4,5,5 zero-based), pegs 0/0; row 1 = 1111, 1 black.
  auto obs = a->observation(0);
  const int plane = 10 * 4;
  EXPECT_EQ(obs[4 * plane + 0], 1.0f);
  EXPECT_EQ(obs[5 * plane + 3], 1.0f);
  EXPECT_EQ(obs[0 * plane + 4 + 2], 1.0f);
  EXPECT_EQ(obs[6 * plane + 4 + 1], 0.25f);  // black/length
  EXPECT_EQ(obs[7 * plane + 4 + 1], 0.0f);
  EXPECT_EQ(obs[6 * plane + 8], 0.0f);       // third row unused
}

TEST(Mastermind, ResampleIsConsistentAndUniform) {
  auto g = make();
  auto s = g->deserialize("1234 1122 3456");
  // The consistent codes, by brute force with the naive scorer.
  std::vector<int> consistent;
  for (int c = 0; c < g->num_codes(); ++c) {
    const std::string code = g->code_to_string(c);
    if (naive_pegs(code, "1122") == std::pair{1, 1} && naive_pegs(code, "3456") == naive_pegs("1234", "3456")) {
      consistent.push_back(c);
    }
  }
  EXPECT_EQ(ms(*s).count_consistent(), static_cast<int>(consistent.size()));
  util::Rng rng(3);
  std::map<int, int> seen;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    auto r = s->resample(0, rng);
    const auto& rs = ms(*r);
    ASSERT_TRUE(std::binary_search(consistent.begin(), consistent.end(), rs.secret()));
    ASSERT_EQ(r->observation(0), s->observation(0));
    for (int k = 0; k < rs.num_guesses(); ++k) ASSERT_EQ(g->score(rs.secret(), rs.guess(k)), rs.black(k) * 8 + rs.white(k));
    ++seen[rs.secret()];
  }
  EXPECT_EQ(seen.size(), consistent.size());
  const double p = 1.0 / static_cast<double>(consistent.size()), sd = std::sqrt(n * p * (1 - p));
  for (auto [code, count] : seen) EXPECT_NEAR(count, n * p, 5 * sd) << g->code_to_string(code);
  // Before the draw there is nothing hidden yet: resample keeps the chance node.
  auto root = g->new_initial_state();
  EXPECT_TRUE(root->resample(0, rng)->is_chance_node());
  // Consistency on random games of other sizes.
  for (auto [length, colours] : {std::pair{3, 4}, {5, 8}, {2, 10}}) {
    auto game = make(length, colours, 6);
    for (int i = 0; i < 50; ++i) {
      auto st = game->new_initial_state();
      st->apply_action(static_cast<Action>(rng.below(static_cast<std::uint32_t>(game->num_codes()))));
      while (!st->is_terminal() && rng.below(4) != 0) {
        st->apply_action(static_cast<Action>(rng.below(static_cast<std::uint32_t>(game->num_codes()))));
      }
      auto r = st->resample(0, rng);
      const auto& rs = ms(*r);
      for (int k = 0; k < rs.num_guesses(); ++k) ASSERT_EQ(game->score(rs.secret(), rs.guess(k)), rs.black(k) * 8 + rs.white(k));
      ASSERT_EQ(r->observation(0), st->observation(0));
    }
  }
}

TEST(Mastermind, HardModeAllowsOnlyConsistentGuesses) {
  auto g = make(4, 6, 10, true);
  auto s = g->deserialize("1234");
  EXPECT_EQ(s->legal_actions().size(), 1296u);  // no answers yet
  s = g->deserialize("1234 1122");
  const auto legal = s->legal_actions();
  EXPECT_EQ(static_cast<int>(legal.size()), ms(*s).count_consistent());
  EXPECT_EQ(legal.size(), 208u);  // Knuth's class for 1 black 1 white
  for (Action a : legal) EXPECT_EQ(g->score(a, *g->parse_code("1122", nullptr)), 1 * 8 + 1);
  const Action again = *g->parse_code("1122", nullptr);
  EXPECT_FALSE(s->is_legal(again));
  EXPECT_EQ(s->explain_illegal(again),
            "hard mode: 1122 cannot be the secret: against guess 1 (1122) it would give 4 black and 0 white, not 1 and 1");
  EXPECT_THROW(g->deserialize("1234 1122 1122"), util::UsageError);
  EXPECT_NO_THROW(g->deserialize("1234 1122 1234"));
  EXPECT_TRUE(make()->deserialize("1234 1122")->is_legal(again));  // normal mode: any code
  testing::check_random_playouts(*make(3, 5, 8, true), 200, 7);
  // Random guessing among consistent codes finds 4x6 codes in about five guesses.
  util::Rng rng(4);
  double total = 0;
  for (int i = 0; i < 200; ++i) {
    auto t = g->new_initial_state();
    t->apply_action(static_cast<Action>(rng.below(1296)));
    while (!t->is_terminal()) {
      auto moves = t->legal_actions();
      t->apply_action(moves[rng.below(static_cast<std::uint32_t>(moves.size()))]);
    }
    total += t->returns()[0];
  }
  EXPECT_GT(total / 200, 4.0);
}

TEST(Mastermind, ChanceFrequencies) {
  auto g = make();
  auto root = g->new_initial_state();
  util::Rng rng(8);
  const auto outcomes = root->chance_outcomes();
  ASSERT_EQ(outcomes.size(), 1296u);
  std::map<int, int> first, last;
  const int n = 60000;
  for (int i = 0; i < n; ++i) {
    double u = rng.uniform();
    Action a = outcomes.back().first;
    for (auto [o, p] : outcomes) {
      if (u < p) {
        a = o;
        break;
      }
      u -= p;
    }
    int d[6];
    g->digits(a, d);
    ++first[d[0]];
    ++last[d[3]];
  }
  const double p = 1.0 / 6, sd = std::sqrt(n * p * (1 - p));
  for (int c = 0; c < 6; ++c) {
    EXPECT_NEAR(first[c], n * p, 5 * sd);
    EXPECT_NEAR(last[c], n * p, 5 * sd);
  }
}

TEST(Mastermind, Entry) {
  const GameEntry entry = mastermind_entry();
  auto build = [&](std::map<std::string, std::string> given) {
    auto values = entry.options.resolve(given, "game 'mastermind'");
    return entry.make(values, util::Spec{"mastermind", values.all()});
  };
  auto game = build({});
  EXPECT_EQ(game->info().num_distinct_actions, 1296);
  EXPECT_EQ(game->info().num_players, 1);
  EXPECT_FALSE(game->info().perfect_information);
  EXPECT_EQ(build({{"length", "6"}, {"colours", "6"}})->info().num_distinct_actions, 46656);
  EXPECT_THROW(build({{"length", "6"}, {"colours", "7"}}), util::UsageError);
  EXPECT_THROW(build({{"colours", "11"}}), util::UsageError);
  EXPECT_THROW(build({{"max_guesses", "0"}}), util::UsageError);
  EXPECT_TRUE(static_cast<const MastermindGame&>(*build({{"hard", "true"}})).hard());
}

TEST(Mastermind, RandomPlayoutInvariants) {
  testing::check_random_playouts(*make(), 150, 1);
  testing::check_random_playouts(*make(2, 3, 4), 1000, 2);
  testing::check_random_playouts(*make(3, 10, 20), 100, 3);
}

TEST(Mastermind, Symmetries) { testing::check_symmetries(*make(3, 4, 6), 20, 4); }

}  // namespace
}  // namespace pz::games
