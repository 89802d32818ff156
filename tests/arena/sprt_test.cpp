#include "arena/sprt.h"

#include <gtest/gtest.h>

#include <cmath>

#include "arena/ratings.h"
#include "util/error.h"
#include "util/rng.h"

namespace pz::arena {
namespace {

TEST(Sprt, PairScoresFallInFiveBins) {
  Pentanomial p;
  p.add_pair(Outcome::kLoss, Outcome::kLoss);
  p.add_pair(Outcome::kDraw, Outcome::kLoss);
  p.add_pair(Outcome::kWin, Outcome::kLoss);
  p.add_pair(Outcome::kDraw, Outcome::kDraw);
  p.add_pair(Outcome::kDraw, Outcome::kWin);
  p.add_pair(Outcome::kWin, Outcome::kWin);
  EXPECT_EQ(p.pairs, (std::array<double, 5>{1, 1, 2, 1, 1}));
  EXPECT_DOUBLE_EQ(p.total(), 6);
  EXPECT_DOUBLE_EQ(p.mean_score(), (0 + 0.25 + 0.5 + 0.5 + 0.75 + 1) / 6);
}

TEST(Sprt, LlrSignFollowsTheEvidence) {
  Pentanomial strong, even;
  strong.pairs = {5, 10, 40, 25, 20};
  even.pairs = {15, 20, 30, 20, 15};
  EXPECT_GT(pentanomial_llr(strong, 0, 20), 0);
  EXPECT_LT(pentanomial_llr(even, 0, 20), 0);
  EXPECT_EQ(pentanomial_llr(Pentanomial{}, 0, 20), 0);
  // Twice the same evidence: twice the LLR.
  Pentanomial doubled = strong;
  for (double& c : doubled.pairs) c *= 2;
  EXPECT_NEAR(pentanomial_llr(doubled, 0, 20), 2 * pentanomial_llr(strong, 0, 20), 1e-9);
}

TEST(Sprt, BoundsAreWalds) {
  SprtOptions options;
  options.alpha = 0.05;
  options.beta = 0.1;
  const auto status = sprt_status(Pentanomial{}, options);
  EXPECT_NEAR(status.lower, std::log(0.1 / 0.95), 1e-12);
  EXPECT_NEAR(status.upper, std::log(0.9 / 0.05), 1e-12);
  EXPECT_EQ(status.decision, SprtDecision::kContinue);
}

TEST(Sprt, ValidateNamesTheBadOption) {
  SprtOptions options;
  options.elo0 = 10;
  options.elo1 = 5;
  EXPECT_THROW(validate(options), util::UsageError);
  options = {};
  options.alpha = 0.7;
  EXPECT_THROW(validate(options), util::UsageError);
  options = {};
  options.elo1 = 5000;
  EXPECT_THROW(validate(options), util::UsageError);
  EXPECT_NO_THROW(validate(SprtOptions{}));
}

// A game model (draws and a first-move advantage) where player 1's mean score over both
// colours against player 0 is that of a logistic Elo gap `logistic_elo`, the SPRT's unit.
Ratings model_with_logistic_gap(double logistic_elo) {
  Ratings model;
  model.draw_elo = 150;
  model.advantage_elo = 40;
  const auto mean_score = [&](double gap) {
    model.elo = {0, gap};
    const auto first = model.predict(1, 0), second = model.predict(0, 1);
    return 0.5 * (first.win + 0.5 * first.draw + second.loss + 0.5 * second.draw);
  };
  double lo = -1000, hi = 1000;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mean_score(mid) < expected_score(logistic_elo) ? lo : hi) = mid;
  }
  model.elo = {0, 0.5 * (lo + hi)};
  return model;
}

// Plays simulated game pairs at a true Elo gap until the test decides; returns whether H1
// was accepted.
bool run_simulated_sprt(double true_elo, const SprtOptions& options, util::Rng& rng) {
  const Ratings model = model_with_logistic_gap(true_elo);  // the tested player is 1
  const auto play = [&](int first, int second) {
    const auto p = model.predict(first, second);
    const double x = rng.uniform();
    const Outcome for_first = x < p.win ? Outcome::kWin : x < p.win + p.draw ? Outcome::kDraw : Outcome::kLoss;
    if (first == 1) return for_first;
    return for_first == Outcome::kWin ? Outcome::kLoss : for_first == Outcome::kLoss ? Outcome::kWin : Outcome::kDraw;
  };
  Pentanomial counts;
  for (int pair = 0; pair < 200000; ++pair) {
    counts.add_pair(play(1, 0), play(0, 1));
    const auto status = sprt_status(counts, options);
    if (status.decision != SprtDecision::kContinue) return status.decision == SprtDecision::kAcceptH1;
  }
  ADD_FAILURE() << "no decision after 200000 pairs";
  return false;
}

TEST(Sprt, ErrorRatesMatchAlphaAndBetaOnSimulatedGames) {
  SprtOptions options;
  options.elo0 = 0;
  options.elo1 = 40;
  util::Rng rng(7);
  constexpr int kRuns = 300;
  int false_positives = 0, false_negatives = 0;
  for (int run = 0; run < kRuns; ++run) {
    false_positives += run_simulated_sprt(0, options, rng);
    false_negatives += !run_simulated_sprt(40, options, rng);
  }
  // Wald's bounds keep each error rate at or below its nominal 5% (about 15 of 300);
  // 27 is three binomial standard deviations above it.
  EXPECT_LE(false_positives, 27);
  EXPECT_LE(false_negatives, 27);
  // A clear edge is found (and no edge rejected) nearly always.
  int strong_accepted = 0;
  for (int run = 0; run < 50; ++run) strong_accepted += run_simulated_sprt(120, options, rng);
  EXPECT_GE(strong_accepted, 49);
}

}  // namespace
}  // namespace pz::arena
