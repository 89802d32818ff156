#include "mcts/dirichlet.h"

#include <cmath>

namespace pz::mcts {

double sample_normal(util::Rng& rng) {
  for (;;) {
    const double u = 2.0 * rng.uniform() - 1.0, v = 2.0 * rng.uniform() - 1.0;
    const double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * std::log(s) / s);
  }
}

double sample_gamma(double shape, util::Rng& rng) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) · U^(1/a): the boost keeps Marsaglia–Tsang's acceptance high.
    const double u = 1.0 - rng.uniform();  // (0, 1]
    return sample_gamma(shape + 1.0, rng) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = sample_normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - rng.uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

void sample_dirichlet(double alpha, std::span<double> out, util::Rng& rng) {
  double sum = 0;
  for (double& x : out) sum += (x = sample_gamma(alpha, rng));
  if (sum <= 0) {
    // Every draw underflowed (tiny alpha): the limit is all mass on one coordinate.
    for (double& x : out) x = 0;
    if (!out.empty()) out[rng.below(static_cast<std::uint32_t>(out.size()))] = 1;
    return;
  }
  for (double& x : out) x /= sum;
}

}  // namespace pz::mcts
