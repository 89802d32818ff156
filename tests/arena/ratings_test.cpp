#include "arena/ratings.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/rng.h"

namespace pz::arena {
namespace {

constexpr double kElo = 400.0 / 2.302585092994046;  // Elo per natural log-odds unit

double logit(double p) { return std::log(p / (1 - p)); }

// Counts the model predicts for `games` games of each colour order between every pair.
ResultTable expected_counts(const std::vector<double>& elo, double draw_elo, double advantage_elo, double games) {
  const int n = static_cast<int>(elo.size());
  ResultTable table(n);
  Ratings truth;
  truth.elo = elo;
  truth.draw_elo = draw_elo;
  truth.advantage_elo = advantage_elo;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const auto p = truth.predict(i, j);
      table.add_win(i, j, games * p.win);
      table.add_draw(i, j, games * p.draw);
      table.add_loss(i, j, games * p.loss);
    }
  }
  return table;
}

TEST(Ratings, TwoPlayersMatchTheClosedForm) {
  // Two players, colours balanced, no prior: the fit reproduces the observed frequencies, so
  // gap − draw = logit(W/N) and −gap − draw = logit(L/N) for the anchor's opponent.
  ResultTable table(2);
  table.add_win(0, 1, 15), table.add_draw(0, 1, 10), table.add_loss(0, 1, 25);
  table.add_loss(1, 0, 15), table.add_draw(1, 0, 10), table.add_win(1, 0, 25);
  RatingOptions options;
  options.prior_games = 0;
  const auto r = fit_ratings(table, options);
  const double anchor_wins = logit(0.3), anchor_losses = logit(0.5);
  EXPECT_DOUBLE_EQ(r.elo[0], 0.0);
  EXPECT_NEAR(r.elo[1], -(anchor_wins - anchor_losses) / 2 * kElo, 1e-6);
  EXPECT_NEAR(r.draw_elo, -(anchor_wins + anchor_losses) / 2 * kElo, 1e-6);
  EXPECT_NEAR(r.advantage_elo, 0.0, 1e-6);
  EXPECT_TRUE(r.draw_fitted);
  EXPECT_TRUE(r.advantage_fitted);
  EXPECT_NEAR(r.elo[1], 73.6, 0.1);  // 0.4236 natural units
  EXPECT_GT(r.interval95(1), 20);
  EXPECT_LT(r.interval95(1), 150);
  EXPECT_GT(r.likelihood_of_superiority(1, 0), 0.9);
  EXPECT_NEAR(r.likelihood_of_superiority(1, 0) + r.likelihood_of_superiority(0, 1), 1.0, 1e-12);
}

TEST(Ratings, ThreeTransitivePlayersFromExpectedCounts) {
  const std::vector<double> truth = {0, 100, 250};
  const auto table = expected_counts(truth, 80, 30, 500);
  RatingOptions options;
  options.prior_games = 0;
  const auto r = fit_ratings(table, options);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.elo[static_cast<std::size_t>(i)], truth[static_cast<std::size_t>(i)], 1e-4);
  EXPECT_NEAR(r.draw_elo, 80, 1e-4);
  EXPECT_NEAR(r.advantage_elo, 30, 1e-4);
  EXPECT_LT(r.interval95(1), r.interval95(2) + 1);  // both measured against the anchor
  EXPECT_GT(r.likelihood_of_superiority(2, 1), 0.999);
}

TEST(Ratings, AnchorMovesEveryRatingBySameAmount) {
  const auto table = expected_counts({0, 100, 250}, 80, 30, 50);
  RatingOptions options;
  options.anchor = 1;
  options.anchor_elo = 1500;
  const auto r = fit_ratings(table, options);
  const auto base = fit_ratings(table);
  EXPECT_DOUBLE_EQ(r.elo[1], 1500);
  EXPECT_EQ(r.stderr_elo[1], 0);
  EXPECT_NEAR(r.elo[2] - r.elo[0], base.elo[2] - base.elo[0], 1e-4);
  EXPECT_NEAR(r.elo[0], 1500 + base.elo[0] - base.elo[1], 1e-4);
}

TEST(Ratings, AllDrawsMeanEqualRatings) {
  ResultTable table(3);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (i != j) table.add_draw(i, j, 5);
    }
  }
  RatingOptions no_prior;
  no_prior.prior_games = 0;
  const auto plain = fit_ratings(table, no_prior);
  EXPECT_FALSE(plain.draw_fitted);  // no decisive game to tell the draw width
  EXPECT_NEAR(plain.draw_elo, RatingOptions{}.draw_elo, 1e-9);
  const auto r = fit_ratings(table);  // the prior's even score makes it measurable
  EXPECT_TRUE(r.draw_fitted);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(r.elo[static_cast<std::size_t>(i)], 0, 1e-6);
    EXPECT_TRUE(std::isfinite(r.stderr_elo[static_cast<std::size_t>(i)]));
  }
}

TEST(Ratings, ThePriorKeepsAPerfectScoreFinite) {
  ResultTable table(2);
  table.add_win(0, 1, 10), table.add_loss(1, 0, 10);
  const auto r = fit_ratings(table);
  EXPECT_LT(r.elo[1], -200);
  EXPECT_GT(r.elo[1], -1000);
  EXPECT_TRUE(std::isfinite(r.stderr_elo[1]));
}

TEST(Ratings, PlayersWithoutAPathToTheAnchorAreUnrated) {
  ResultTable table(4);
  table.add_win(0, 1, 3), table.add_loss(1, 0, 2);
  table.add_win(2, 3, 3);  // 2 and 3 never met 0 or 1
  const auto r = fit_ratings(table);
  EXPECT_TRUE(r.rated(0));
  EXPECT_TRUE(r.rated(1));
  EXPECT_FALSE(r.rated(2));
  EXPECT_FALSE(r.rated(3));
  EXPECT_TRUE(std::isnan(r.likelihood_of_superiority(2, 0)));
}

TEST(Ratings, OneColourOrderDoesNotFitTheAdvantage) {
  ResultTable table(2);
  table.add_win(0, 1, 6), table.add_draw(0, 1, 3), table.add_loss(0, 1, 1);
  const auto r = fit_ratings(table);
  EXPECT_FALSE(r.advantage_fitted);
  EXPECT_EQ(r.advantage_elo, 0);
  EXPECT_LT(r.elo[1], 0);
}

TEST(Ratings, RejectsBadInput) {
  ResultTable table(2);
  EXPECT_THROW(table.add_win(0, 0), std::invalid_argument);
  EXPECT_THROW(table.add_win(0, 2), std::invalid_argument);
  EXPECT_THROW(table.add_draw(0, 1, -1), std::invalid_argument);
  RatingOptions options;
  options.anchor = 2;
  EXPECT_THROW(fit_ratings(table, options), std::invalid_argument);
}

// Games drawn from the model with known ratings: the 95% intervals must cover the true
// gaps at about their stated rate.
TEST(Ratings, IntervalsCoverTheTruthAtTheirStatedRate) {
  const std::vector<double> truth = {0, 60, 150};
  Ratings model;
  model.elo = truth;
  model.draw_elo = 100;
  model.advantage_elo = 30;
  util::Rng rng(2026);
  constexpr int kRepetitions = 300;
  int covered[3] = {0, 0, 0};
  for (int rep = 0; rep < kRepetitions; ++rep) {
    ResultTable table(3);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        if (i == j) continue;
        const auto p = model.predict(i, j);
        for (int g = 0; g < 40; ++g) {
          const double x = rng.uniform();
          if (x < p.win) {
            table.add_win(i, j);
          } else if (x < p.win + p.draw) {
            table.add_draw(i, j);
          } else {
            table.add_loss(i, j);
          }
        }
      }
    }
    const auto r = fit_ratings(table);
    for (int i = 1; i < 3; ++i) {
      const auto k = static_cast<std::size_t>(i);
      covered[i] += std::abs(r.elo[k] - truth[k]) <= r.interval95(i);
    }
    // The gap between two unanchored players, from the covariance.
    const double gap_sd = std::sqrt(r.covariance[1][1] + r.covariance[2][2] - 2 * r.covariance[1][2]);
    covered[0] += std::abs((r.elo[2] - r.elo[1]) - (truth[2] - truth[1])) <= 1.96 * gap_sd;
  }
  for (int c : covered) {
    EXPECT_GE(c, kRepetitions * 0.89);
    EXPECT_LE(c, kRepetitions * 0.99);
  }
}

TEST(Ratings, ExpectedScoreAndItsInverse) {
  EXPECT_DOUBLE_EQ(expected_score(0), 0.5);
  EXPECT_NEAR(expected_score(400), 10.0 / 11.0, 1e-12);
  EXPECT_NEAR(elo_gap_of_score(expected_score(123.4)), 123.4, 1e-9);
  EXPECT_THROW(elo_gap_of_score(1.0), std::invalid_argument);
}

}  // namespace
}  // namespace pz::arena
