// Sequential probability ratio test on game pairs, as engine testers run it (fishtest's
// pentanomial GSPRT; M. Van den Bergh, "A pentanomial model for engine testing", 2020).
//
// Games are played in pairs: the same opening with colours swapped. A pair's score for the
// tested player is 0, ½, 1, 1½ or 2, so pair results fall in five bins (the pentanomial
// distribution); pairing removes most of the opening's and the first move's noise, which
// independent game counts (trinomial) would wrongly count as signal.
//
// H0: the tested player's Elo gap is elo0; H1: it is elo1 (logistic Elo, the expected score
// of a gap g being 1 / (1 + 10^(−g/400))). The log-likelihood ratio compares the maximum-
// likelihood pentanomial distributions with the mean score each hypothesis fixes (found by
// a Lagrange multiplier over the observed bins) and is accumulated over the N pairs:
//   LLR = N · Σ_k p̂_k · log(p₁_k / p₀_k).
// The test stops with H1 accepted when LLR ≥ log((1 − β)/α) and with H0 accepted when
// LLR ≤ log(β/(1 − α)) (Wald's bounds); α is the false-positive rate (accepting H1 when
// H0 holds), β the false-negative rate.
#pragma once

#include <array>
#include <string>

#include "arena/match.h"

namespace pz::arena {

struct SprtOptions {
  double elo0 = 0, elo1 = 5;
  double alpha = 0.05, beta = 0.05;
};

// Throws util::UsageError naming the option when elo1 ≤ elo0, a rate is outside (0, ½), or a
// bound is outside ±1000 Elo.
void validate(const SprtOptions& options);

// Pair counts by the tested player's pair score: [0] lost both, [1] one loss and one draw,
// [2] a win and a loss or two draws, [3] a win and a draw, [4] won both.
struct Pentanomial {
  std::array<double, 5> pairs{};

  void add_pair(Outcome first_game, Outcome second_game);  // outcomes for the tested player
  double total() const;
  // The tested player's mean score per game and its standard error (from the pair variance).
  double mean_score() const;
  double stderr_score() const;
};

enum class SprtDecision { kContinue, kAcceptH0, kAcceptH1 };
const char* decision_name(SprtDecision decision);

struct SprtStatus {
  double llr = 0;
  double lower = 0, upper = 0;  // Wald's bounds
  SprtDecision decision = SprtDecision::kContinue;
};

// The log-likelihood ratio of H1 (elo1) against H0 (elo0) for these pairs; 0 without pairs.
double pentanomial_llr(const Pentanomial& counts, double elo0, double elo1);

SprtStatus sprt_status(const Pentanomial& counts, const SprtOptions& options);

}  // namespace pz::arena
