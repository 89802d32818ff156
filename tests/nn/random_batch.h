// A learner batch of random targets of the right shapes for a network's game, for tests:
// 0/1 observations, soft policy targets with row 1 masked out, values in [−1, 1], ownership
// in {−1, 0, 1}, scores in [−5, 5] with row 2's auxiliary targets masked out.
#pragma once

#include <cstdint>
#include <vector>

#include "nn/net_config.h"
#include "nn/replay_buffer.h"
#include "util/rng.h"

namespace pz::nn {

inline Batch random_batch(const NetShape& shape, int n, std::uint64_t seed) {
  util::Rng rng(seed);
  Batch b;
  b.size = n;
  for (int i = 0; i < n * shape.input.size(); ++i) b.observations.push_back(rng.uniform() < 0.3 ? 1.0f : 0.0f);
  for (int r = 0; r < n; ++r) {
    std::vector<float> p(static_cast<std::size_t>(shape.policy.size()));
    double sum = 0;
    for (float& x : p) sum += x = static_cast<float>(rng.uniform() * rng.uniform());
    for (float& x : p) b.policies.push_back(static_cast<float>(x / sum));
    b.policy_mask.push_back(r == 1 ? 0.0f : 1.0f);
    for (int v = 0; v < shape.value_outputs; ++v) b.values.push_back(static_cast<float>(2 * rng.uniform() - 1));
    for (int c = 0; c < shape.input.plane_size(); ++c) b.ownership.push_back(static_cast<float>(static_cast<int>(rng() % 3) - 1));
    b.score.push_back(static_cast<float>(10 * rng.uniform() - 5));
    b.auxiliary_mask.push_back(r == 2 ? 0.0f : 1.0f);
  }
  return b;
}

}  // namespace pz::nn
