#include "nn/data_parallel.h"

#include <torch/torch.h>

namespace pz::nn {

namespace {

at::Tensor to_tensor(const std::vector<double>& values) {
  auto t = torch::empty({static_cast<std::int64_t>(values.size())}, torch::kFloat64);
  std::copy(values.begin(), values.end(), t.data_ptr<double>());
  return t;
}

std::vector<double> from_tensor(const at::Tensor& t) {
  const double* p = t.data_ptr<double>();
  return std::vector<double>(p, p + t.numel());
}

}  // namespace

std::vector<double> all_reduce_sum(DataParallelGroup& group, const std::vector<double>& values) {
  at::Tensor t = to_tensor(values);
  group.all_reduce_sum(t);
  return from_tensor(t);
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
  at::Tensor t = to_tensor(values);
  group.broadcast(t);
  return from_tensor(t);
}

}  // namespace pz::nn
