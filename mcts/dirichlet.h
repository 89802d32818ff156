// Dirichlet samples for root noise, from Marsaglia–Tsang gamma draws on util::Rng: the
// standard library's distributions differ between implementations, and tests and
// self-play records must reproduce from a seed on every platform.
#pragma once

#include <span>

#include "util/rng.h"

namespace pz::mcts {

// One Gamma(shape, 1) draw, shape > 0.
double sample_gamma(double shape, util::Rng& rng);
// Fills `out` with a Dirichlet(alpha, …, alpha) sample (sums to 1).
void sample_dirichlet(double alpha, std::span<double> out, util::Rng& rng);
// A standard normal draw (polar method).
double sample_normal(util::Rng& rng);

}  // namespace pz::mcts
