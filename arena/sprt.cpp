#include "arena/sprt.h"

#include <cmath>

#include "arena/ratings.h"
#include "util/error.h"

namespace pz::arena {
namespace {

constexpr std::array<double, 5> kPairScore = {0.0, 0.25, 0.5, 0.75, 1.0};  // per game

int points_in_halves(Outcome outcome) { return outcome == Outcome::kWin ? 2 : outcome == Outcome::kDraw ? 1 : 0; }

// The observed bin frequencies; empty bins get a tiny weight (as fishtest regularises) so
// that every hypothesis has a maximum-likelihood distribution.
std::array<double, 5> regularised_frequencies(const Pentanomial& counts) {
  std::array<double, 5> p{};
  double total = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    p[k] = counts.pairs[k] > 0 ? counts.pairs[k] : 1e-3;
    total += p[k];
  }
  for (double& x : p) x /= total;
  return p;
}

// λ such that the distribution p̂_k / (1 + λ (x_k − s)) has mean s: the root of the
// decreasing function Σ p̂_k (x_k − s) / (1 + λ (x_k − s)) on the interval where every
// denominator stays positive, by bisection.
double lagrange_multiplier(const std::array<double, 5>& p, double s) {
  const auto excess = [&](double lambda) {
    double sum = 0;
    for (std::size_t k = 0; k < 5; ++k) sum += p[k] * (kPairScore[k] - s) / (1 + lambda * (kPairScore[k] - s));
    return sum;
  };
  double lo = -1.0 / (1.0 - s) + 1e-12, hi = 1.0 / s - 1e-12;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (excess(mid) > 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

void validate(const SprtOptions& options) {
  if (!(options.elo0 >= -1000 && options.elo0 <= 1000) || !(options.elo1 >= -1000 && options.elo1 <= 1000)) {
    throw util::UsageError("sprt: --elo0 and --elo1 must lie between -1000 and 1000 Elo");
  }
  if (!(options.elo1 > options.elo0)) {
    throw util::UsageError("sprt: --elo1 must be greater than --elo0 (H1 claims more strength than H0)");
  }
  if (!(options.alpha > 0 && options.alpha < 0.5)) throw util::UsageError("sprt: --alpha must lie strictly between 0 and 0.5");
  if (!(options.beta > 0 && options.beta < 0.5)) throw util::UsageError("sprt: --beta must lie strictly between 0 and 0.5");
}

void Pentanomial::add_pair(Outcome first_game, Outcome second_game) {
  pairs[static_cast<std::size_t>(points_in_halves(first_game) + points_in_halves(second_game))] += 1;
}

double Pentanomial::total() const {
  double sum = 0;
  for (double c : pairs) sum += c;
  return sum;
}

double Pentanomial::mean_score() const {
  const double n = total();
  if (n <= 0) return 0.5;
  double sum = 0;
  for (std::size_t k = 0; k < 5; ++k) sum += pairs[k] * kPairScore[k];
  return sum / n;
}

double Pentanomial::stderr_score() const {
  const double n = total();
  if (n <= 1) return 0;
  const double mean = mean_score();
  double sum = 0;
  for (std::size_t k = 0; k < 5; ++k) sum += pairs[k] * (kPairScore[k] - mean) * (kPairScore[k] - mean);
  return std::sqrt(sum / (n - 1) / n);
}

const char* decision_name(SprtDecision decision) {
  switch (decision) {
    case SprtDecision::kContinue: return "continue";
    case SprtDecision::kAcceptH0: return "H0 accepted";
    case SprtDecision::kAcceptH1: return "H1 accepted";
  }
  return "?";
}

double pentanomial_llr(const Pentanomial& counts, double elo0, double elo1) {
  const double n = counts.total();
  if (n <= 0) return 0;
  const auto p = regularised_frequencies(counts);
  const double s0 = expected_score(elo0), s1 = expected_score(elo1);
  const double l0 = lagrange_multiplier(p, s0), l1 = lagrange_multiplier(p, s1);
  double sum = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    // log(p1_k / p0_k) with p_i_k = p̂_k / (1 + λ_i (x_k − s_i))
    sum += p[k] * (std::log1p(l0 * (kPairScore[k] - s0)) - std::log1p(l1 * (kPairScore[k] - s1)));
  }
  return n * sum;
}

SprtStatus sprt_status(const Pentanomial& counts, const SprtOptions& options) {
  SprtStatus status;
  status.lower = std::log(options.beta / (1 - options.alpha));
  status.upper = std::log((1 - options.beta) / options.alpha);
  status.llr = pentanomial_llr(counts, options.elo0, options.elo1);
  if (status.llr >= status.upper) {
    status.decision = SprtDecision::kAcceptH1;
  } else if (status.llr <= status.lower) {
    status.decision = SprtDecision::kAcceptH0;
  }
  return status;
}

}  // namespace pz::arena
