// Feature-crossing kernels of recommender models, forward and backward, as polyhedral
// programs: each loop nest is written in its plain mathematical form with polyhedral/'s
// ScopBuilder, polyc schedules, register-blocks and vectorises it, and the JIT loads the
// result (the second client of the compiler, beside nn/'s network backend).
//
//   fm     a factorisation machine's pairwise interaction in Rendle's O(F·D) form
//          (Rendle, "Factorization Machines", ICDM 2010, eq. 5):
//            y[b] = ½ Σ_d ((Σ_f v[b][f][d])² − Σ_f v[b][f][d]²)
//          backward: dv[b][f][d] = dy[b] · (s[b][d] − v[b][f][d]), s = Σ_f v (saved)
//   dot    DLRM's dot interaction (Naumov et al., "Deep Learning Recommendation Model for
//          Personalization and Recommendation Systems", 2019): the Gram matrix of each
//          example's embedding vectors, of which the model uses the strictly lower triangle
//            z[b][i][j] = Σ_d x[b][i][d] · x[b][j][d]
//          backward, from the triangle's gradient only (j < i):
//            dx[b][i][d] = Σ_{j<i} dz[b][i][j] x[b][j][d] + Σ_{j>i} dz[b][j][i] x[b][j][d]
//   cross  DCN-v2's cross layer (Wang et al., "DCN V2", WWW 2021, eq. 1) on K = F·D inputs:
//            u = W x + bias,  y = x0 ⊙ u + x
//          backward: du = dy ⊙ x0, dx0 = dy ⊙ u, dx = Wᵀ du + dy,
//                    dW = Σ_b du ⊗ x, dbias = Σ_b du
//
// Layouts are the natural row-major ones ([B][F][D] embeddings, [B][F][F] interactions,
// [K][K] weights as torch.nn.Linear's [out][in]). The
// batch is a runtime argument; the feature count and width are compiled in. Every kernel
// runs on the calling thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace pz::poly {
class JitModule;
}

namespace pz::recsys {

struct CrossingShape {
  int features = 26;  // F: embedding vectors per example (one per sparse feature)
  int dim = 16;       // D: their width
  int cross_width() const { return features * dim; }  // K: the cross layer's input, the embeddings concatenated
};

// One generated function of the translation unit, and what polyc did with it.
struct CrossingKernelReport {
  std::string name;      // "pz_fm_forward"
  std::string schedule;  // polyc's schedule origin per loop nest, joined
  double flops_per_example = 0;  // multiply-add = 2; weight gradients counted per example
};

// The C translation unit of the six kernels for `shape`, each loop nest optimised by polyc.
std::string feature_crossing_source(const CrossingShape& shape, std::vector<CrossingKernelReport>* reports = nullptr);

class FeatureCrossing {
 public:
  // Generates and compiles the kernels (cached on disk by the JIT: `cache_dir`, or the
  // JIT's default cache, polyhedral/runtime/jit.h, when empty). Throws std::runtime_error when the C
  // compiler fails, std::invalid_argument for non-positive sizes.
  explicit FeatureCrossing(const CrossingShape& shape, const std::string& cache_dir = "");
  ~FeatureCrossing();

  const CrossingShape& shape() const { return shape_; }
  const std::vector<CrossingKernelReport>& reports() const { return reports_; }

  // v [B][F][D] → y [B]; sum [B][D] receives Σ_f v for the backward pass.
  void fm_forward(int batch, const float* v, float* y, float* sum) const;
  void fm_backward(int batch, const float* v, const float* sum, const float* dy, float* dv) const;
  // x [B][F][D] → z [B][F][F], the whole (symmetric) Gram matrix.
  void dot_forward(int batch, const float* x, float* z) const;
  // Examples per call of the generated dot forward: dot_forward runs the batch in chunks
  // whose working set (x, xᵀ, the padded Gram rows) fits half of this machine's L2.
  int dot_chunk() const;
  // dz [B][F][F], only j < i read → dx [B][F][D].
  void dot_backward(int batch, const float* x, const float* dz, float* dx) const;
  // x0, x [B][K], w [K][K], bias [K] → u [B][K] (saved), y [B][K].
  void cross_forward(int batch, const float* x0, const float* x, const float* w, const float* bias, float* u,
                     float* y) const;
  // → du = dy ⊙ x0 (the gradient at W x + bias), dx0, dx [B][K], dw [K][K], dbias [K]
  // (overwritten, not accumulated).
  void cross_backward(int batch, const float* x0, const float* x, const float* w, const float* u, const float* dy,
                      float* du, float* dx0, float* dx, float* dw, float* dbias) const;

 private:
  CrossingShape shape_;
  std::vector<CrossingKernelReport> reports_;
  std::shared_ptr<poly::JitModule> module_;
  struct Functions;
  std::unique_ptr<Functions> fn_;
};

}  // namespace pz::recsys
