#include "nn/data_parallel.h"

namespace pz::nn {

std::vector<double> all_reduce_sum(DataParallelGroup& group, const std::vector<double>& values) {
  std::vector<double> sum = values;
  group.all_reduce_sum(sum.data(), sum.size());
  return sum;
}

std::vector<std::vector<double>> all_gather(DataParallelGroup& group, const std::vector<double>& values,
                                            std::size_t width, double pad) {
  // One row per rank, zero but for this rank's: the sum is every rank's row.
  const auto w = static_cast<std::size_t>(group.world_size());
  std::vector<double> rows(w * width, 0.0);
  for (std::size_t i = 0; i < width; ++i) {
    rows[static_cast<std::size_t>(group.rank()) * width + i] = i < values.size() ? values[i] : pad;
  }
  const std::vector<double> sum = all_reduce_sum(group, rows);
  std::vector<std::vector<double>> out(w);
  for (std::size_t r = 0; r < w; ++r) out[r].assign(sum.begin() + static_cast<std::ptrdiff_t>(r * width),
                                                    sum.begin() + static_cast<std::ptrdiff_t>((r + 1) * width));
  return out;
}

std::vector<double> broadcast(DataParallelGroup& group, const std::vector<double>& values) {
  std::vector<double> root = values;
  group.broadcast(root.data(), root.size());
  return root;
}

}  // namespace pz::nn
