// The generated feature-crossing kernels (recsys/feature_crossing.h) against LibTorch's
// eager ops and autograd, forward and backward, on odd and round shapes.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "polyhedral/transform/matmul_packing.h"
#include "recsys/feature_crossing.h"

namespace pz::recsys {
namespace {

std::string cache_dir() { return (std::filesystem::temp_directory_path() / "polyzero-recsys-test-kernels").string(); }

torch::Tensor random(std::vector<int64_t> sizes, bool grad = false) {
  return torch::randn(sizes, torch::kFloat32).set_requires_grad(grad);
}

// max |a − b| / max(max |b|, 1e-3): the relative error the checks bound. The outputs are
// O(1) for N(0, 1) inputs; the floor keeps an all-zero reference (one feature: no pairs)
// from dividing rounding by zero.
double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  const double scale = std::max(b.abs().max().item<double>(), 1e-3);
  return (a - b).abs().max().item<double>() / scale;
}

float* data(torch::Tensor& t) { return t.data_ptr<float>(); }
const float* data(const torch::Tensor& t) { return t.data_ptr<float>(); }

constexpr double kTolerance = 1e-4;

class FeatureCrossingTest : public ::testing::TestWithParam<CrossingShape> {
 protected:
  void SetUp() override { torch::manual_seed(17); }
  static constexpr int kBatch = 9;
};

TEST_P(FeatureCrossingTest, FactorisationMachineMatchesAutograd) {
  const CrossingShape shape = GetParam();
  const FeatureCrossing kernels(shape, cache_dir());
  const torch::Tensor v = random({kBatch, shape.features, shape.dim}, true);
  const torch::Tensor s = v.sum(1);
  const torch::Tensor y = 0.5 * (s * s - (v * v).sum(1)).sum(1);
  const torch::Tensor dy = random({kBatch});
  y.backward(dy);

  torch::Tensor out = torch::empty({kBatch}), sum = torch::empty({kBatch, shape.dim});
  torch::Tensor dv = torch::empty_like(v);
  const torch::Tensor vd = v.detach().contiguous();
  kernels.fm_forward(kBatch, data(vd), data(out), data(sum));
  kernels.fm_backward(kBatch, data(vd), data(sum), data(dy), data(dv));
  EXPECT_LT(relative_error(out, y.detach()), kTolerance);
  EXPECT_LT(relative_error(sum, s.detach()), kTolerance);
  EXPECT_LT(relative_error(dv, v.grad()), kTolerance);
}

void check_dot_interaction(const CrossingShape& shape, int batch) {
  const FeatureCrossing kernels(shape, cache_dir());
  const torch::Tensor x = random({batch, shape.features, shape.dim}, true);
  const torch::Tensor gram = torch::bmm(x, x.transpose(1, 2));
  const torch::Tensor lower = torch::ones({shape.features, shape.features}).tril(-1);
  const torch::Tensor dz = random({batch, shape.features, shape.features}) * lower;
  (gram * lower).backward(dz);

  torch::Tensor out = torch::empty({batch, shape.features, shape.features}), dx = torch::empty_like(x);
  const torch::Tensor xd = x.detach().contiguous();
  // The upper triangle and the diagonal of dz are never read: fill them with garbage.
  const torch::Tensor dz_garbage = (dz + (1 - lower) * 1e6).contiguous();
  kernels.dot_forward(batch, data(xd), data(out));
  kernels.dot_backward(batch, data(xd), data(dz_garbage), data(dx));
  EXPECT_LT(relative_error(out, gram.detach()), kTolerance);
  EXPECT_LT(relative_error(dx, x.grad()), kTolerance);
}

TEST_P(FeatureCrossingTest, DotInteractionMatchesAutograd) { check_dot_interaction(GetParam(), kBatch); }

void check_cross_layer(const CrossingShape& shape, int batch) {
  const int k = shape.cross_width();
  const FeatureCrossing kernels(shape, cache_dir());
  const torch::Tensor x0 = random({batch, k}, true), x = random({batch, k}, true);
  const torch::Tensor w = random({k, k}, true), bias = random({k}, true);
  const torch::Tensor u = torch::nn::functional::linear(x, w, bias);
  const torch::Tensor y = x0 * u + x;
  const torch::Tensor dy = random({batch, k});
  y.backward(dy);

  const torch::Tensor x0d = x0.detach().contiguous(), xd = x.detach().contiguous(), wd = w.detach().contiguous(),
                      bd = bias.detach().contiguous();
  torch::Tensor u_out = torch::empty({batch, k}), y_out = torch::empty({batch, k}), du = torch::empty({batch, k});
  torch::Tensor dx0 = torch::empty({batch, k}), dx = torch::empty({batch, k}), dw = torch::empty({k, k}),
                dbias = torch::empty({k});
  kernels.cross_forward(batch, data(x0d), data(xd), data(wd), data(bd), data(u_out), data(y_out));
  kernels.cross_backward(batch, data(x0d), data(xd), data(wd), data(u_out), data(dy), data(du), data(dx0), data(dx),
                         data(dw), data(dbias));
  EXPECT_LT(relative_error(u_out, u.detach()), kTolerance);
  EXPECT_LT(relative_error(y_out, y.detach()), kTolerance);
  EXPECT_LT(relative_error(du, dy * x0.detach()), kTolerance);
  EXPECT_LT(relative_error(dx0, x0.grad()), kTolerance);
  EXPECT_LT(relative_error(dx, x.grad()), kTolerance);
  EXPECT_LT(relative_error(dw, w.grad()), kTolerance);
  EXPECT_LT(relative_error(dbias, bias.grad()), kTolerance);
}

TEST_P(FeatureCrossingTest, CrossLayerMatchesAutograd) { check_cross_layer(GetParam(), kBatch); }

// A batch at which the cross layer's three products take the packed loops (the program's
// run-time test: batch x K x K multiply-adds at least polyc's threshold): K = 80 leaves a
// last column of blocks two vectors wide, 331 examples a last row block of 3.
TEST(FeatureCrossingPacked, CrossLayerMatchesAutograd) {
  torch::manual_seed(23);
  const CrossingShape shape{5, 16};
  const int batch = 331;
  ASSERT_GE(static_cast<long long>(batch) * shape.cross_width() * shape.cross_width(), poly::MatmulPackingOptions{}.min_multiply_adds);
  EXPECT_NE(feature_crossing_source(shape).find("contractions packed"), std::string::npos);
  check_cross_layer(shape, batch);
}

// dot_forward runs the batch in chunks sized for this machine's L2: two whole chunks and a
// last one of 17 examples.
TEST(FeatureCrossingChunked, DotInteractionMatchesAutograd) {
  torch::manual_seed(29);
  const CrossingShape shape{5, 16};
  const int chunk = FeatureCrossing(shape, cache_dir()).dot_chunk();
  ASSERT_GT(chunk, 17);
  check_dot_interaction(shape, 2 * chunk + 17);
}

INSTANTIATE_TEST_SUITE_P(Shapes, FeatureCrossingTest,
                         ::testing::Values(CrossingShape{5, 7}, CrossingShape{3, 16}, CrossingShape{1, 3}),
                         [](const auto& info) {
                           return std::to_string(info.param.features) + "x" + std::to_string(info.param.dim);
                         });

TEST(FeatureCrossingSource, NamesEveryKernelAndRejectsEmptyShapes) {
  std::vector<CrossingKernelReport> reports;
  const std::string source = feature_crossing_source(CrossingShape{4, 8}, &reports);
  ASSERT_EQ(reports.size(), 6u);
  for (const auto& r : reports) {
    EXPECT_NE(source.find("void " + r.name + "(int N"), std::string::npos) << r.name;
    EXPECT_GT(r.flops_per_example, 0) << r.name;
  }
  EXPECT_THROW(feature_crossing_source(CrossingShape{0, 8}), std::invalid_argument);
  EXPECT_THROW(feature_crossing_source(CrossingShape{4, -1}), std::invalid_argument);
}

}  // namespace
}  // namespace pz::recsys
