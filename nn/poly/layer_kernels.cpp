#include "nn/poly/layer_kernels.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/frontend/builder.h"
#include "polyhedral/runtime/jit.h"

namespace pz::nn {

namespace {

using poly::KernelArgument;
using poly::KernelWriter;
using poly::ScopBuilder;

// As the poly inference backend (nn/poly/backend.cpp has the reasons for each flag).
constexpr const char* kFlags =
    "-O3 -march=native -mprefer-vector-width=512 -fno-gcse -fopenmp-simd -fno-math-errno -fPIC -shared";

std::string str(long long v) { return std::to_string(v); }
std::string real(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9gf", static_cast<double>(static_cast<float>(v)));
  return buf;
}
std::string rows(std::initializer_list<long long> dims) {
  std::string out;
  for (long long d : dims) out += "[" + str(d) + "]";
  return out;
}

// ---- convolution -------------------------------------------------------------------------

std::string conv_name(const ConvShape& s) {
  return "pz_conv" + str(s.kernel) + "_" + str(s.in_channels) + "x" + str(s.out_channels) + "_" + str(s.height) + "x" +
         str(s.width) + (s.bias ? "_bias" : "") + (s.padded_gradient ? "_padded_gradient" : "") +
         (s.winograd > 0 ? "_winograd" + str(s.winograd) : "");
}

// The zero border of `pad` cells around xp's board.
void describe_border(ScopBuilder& b, const std::string& xp, int height, int width, int channels, int pad) {
  const std::string c = str(channels), hp = str(height + 2 * pad), wp = str(width + 2 * pad), p = str(pad);
  const std::string border = "h < " + p + " || h >= " + str(height + pad) + " || w < " + p + " || w >= " + str(width + pad);
  b.for_("n", "0", "N").for_("h", "0", hp).for_("w", "0", wp).if_(border).for_("c", "0", c);
  b.stmt(xp + "[n][h][w][c] = 0.0f").end().end().end().end().end();
}

// xp = x with a zero border of `pad` cells: the border zeroed, the board copied in.
void describe_padding(ScopBuilder& b, const std::string& x, const std::string& xp, int height, int width, int channels,
                      int pad) {
  const std::string c = str(channels), p = str(pad);
  describe_border(b, xp, height, width, channels, pad);
  b.for_("n", "0", "N").for_("h", "0", str(height)).for_("w", "0", str(width)).for_("c", "0", c);
  b.stmt(xp + "[n][h + " + p + "][w + " + p + "][c] = " + x + "[n][h][w][c]").end().end().end().end();
}

// out[n][h][w][o] = init + Σ_{p,q,c} in[n][h+p][w+q][c] · k[p][q][c][o]: a reduction chain.
void describe_contraction(ScopBuilder& b, const std::string& in, const std::string& k, const std::string& out,
                          const std::string& init, int height, int width, int kernel, int in_channels, int out_channels) {
  const std::string element = out + "[n][h][w][o]";
  b.for_("n", "0", "N").for_("h", "0", str(height)).for_("w", "0", str(width)).for_("o", "0", str(out_channels));
  b.stmt(element + " = " + init);
  b.for_("p", "0", str(kernel)).for_("q", "0", str(kernel)).for_("c", "0", str(in_channels));
  b.stmt(element + " += " + in + "[n][h + p][w + q][c] * " + k + "[p][q][c][o]").end().end().end();
  b.end().end().end().end();
}

std::vector<KernelWriter> conv_kernels(const ConvShape& s) {
  if (s.winograd > 0) {
    if (s.kernel != 3 || s.bias || s.padded_gradient)
      throw std::invalid_argument("poly learner: Winograd runs 3x3 convolutions without bias or padded gradient, not " +
                                  conv_name(s));
    return winograd_conv_kernels(s.winograd_shape(), conv_name(s));
  }
  const int k = s.kernel, C = s.in_channels, O = s.out_channels, H = s.height, W = s.width, P = s.pad();
  const bool padded = P > 0;
  const std::string name = conv_name(s);
  const std::string board_in = rows({H, W, C}), board_out = rows({H, W, O});
  const std::string padded_in = rows({H + 2 * P, W + 2 * P, C}), padded_out = rows({H + 2 * P, W + 2 * P, O});
  std::vector<KernelWriter> out;

  out.emplace_back(name + "_forward", std::vector<KernelArgument>{{"x", board_in},
                                                                  {"w", rows({C, k, k})},
                                                                  {"bias", ""},
                                                                  {"wt", rows({k, C, O}), true},
                                                                  {"xp", padded_in, true},
                                                                  {"y", board_out, true}});
  out.back().nest([=](ScopBuilder& b) {
    b.for_("p", "0", str(k)).for_("q", "0", str(k)).for_("c", "0", str(C)).for_("o", "0", str(O));
    b.stmt("wt[p][q][c][o] = w[o][c][p][q]").end().end().end().end();
  });
  if (padded) out.back().nest([=](ScopBuilder& b) { describe_padding(b, "x", "xp", H, W, C, P); });
  out.back().nest([=](ScopBuilder& b) {
    describe_contraction(b, padded ? "xp" : "x", "wt", "y", s.bias ? "bias[o]" : "0.0f", H, W, k, C, O);
  });

  // dx = dyp ⋆ wd, wd[p][q][o][c] = w[o][c][k−1−p][k−1−q].
  const std::string gradient_rows = s.padded_gradient ? padded_out : board_out;
  // dy[n][h][w][o] where the gradient arrives bordered or not
  const std::string dy = s.padded_gradient ? "dy[n][h + " + str(P) + "][w + " + str(P) + "][o]" : "dy[n][h][w][o]";
  out.emplace_back(name + "_input_gradient", std::vector<KernelArgument>{{"dy", gradient_rows},
                                                                         {"w", rows({C, k, k})},
                                                                         {"wd", rows({k, O, C}), true},
                                                                         {"dyp", padded_out, true},
                                                                         {"dx", board_in, true}});
  out.back().nest([=](ScopBuilder& b) {
    const std::string last = str(k - 1);
    b.for_("p", "0", str(k)).for_("q", "0", str(k)).for_("o", "0", str(O)).for_("c", "0", str(C));
    b.stmt("wd[p][q][o][c] = w[o][c][" + last + " - p][" + last + " - q]").end().end().end().end();
  });
  const bool pad_dy = padded && !s.padded_gradient;
  if (pad_dy) out.back().nest([=](ScopBuilder& b) { describe_padding(b, "dy", "dyp", H, W, O, P); });
  out.back().nest([=](ScopBuilder& b) { describe_contraction(b, pad_dy ? "dyp" : "dy", "wd", "dx", "0.0f", H, W, k, O, C); });

  out.emplace_back(name + "_weight_gradient", std::vector<KernelArgument>{{"xp", padded ? padded_in : board_in},
                                                                          {"dy", gradient_rows},
                                                                          {"dwt", rows({k, C, O}), true},
                                                                          {"dw", rows({C, k, k}), true},
                                                                          {"dbias", "", true}});
  out.back().nest([=](ScopBuilder& b) {
    b.for_("p", "0", str(k)).for_("q", "0", str(k)).for_("c", "0", str(C)).for_("o", "0", str(O));
    b.stmt("dwt[p][q][c][o] = 0.0f");
    b.for_("n", "0", "N").for_("h", "0", str(H)).for_("w", "0", str(W));
    b.stmt("dwt[p][q][c][o] += xp[n][h + p][w + q][c] * " + dy).end().end().end();
    b.end().end().end().end();
  });
  out.back().nest([=](ScopBuilder& b) {
    b.for_("o", "0", str(O)).for_("c", "0", str(C)).for_("p", "0", str(k)).for_("q", "0", str(k));
    b.stmt("dw[o][c][p][q] = dwt[p][q][c][o]").end().end().end().end();
  });
  if (s.bias) {
    out.back().nest([=](ScopBuilder& b) {
      b.for_("o", "0", str(O)).stmt("dbias[o] = 0.0f");
      b.for_("n", "0", "N").for_("h", "0", str(H)).for_("w", "0", str(W)).stmt("dbias[o] += " + dy).end().end().end();
      b.end();
    });
  }
  if (padded) {
    out.emplace_back(name + "_pad", std::vector<KernelArgument>{{"x", board_in}, {"xp", padded_in, true}});
    out.back().nest([=](ScopBuilder& b) { describe_padding(b, "x", "xp", H, W, C, P); });
  }
  return out;
}

// ---- batch norm --------------------------------------------------------------------------

std::string batch_norm_name(const BatchNormShape& s) {
  return "pz_batch_norm_" + str(s.channels) + "x" + str(s.plane) + (s.residual ? "_residual" : "") + (s.relu ? "_relu" : "") +
         (s.one_sweep_backward ? "_one_sweep" : "") + (s.gradient_pad > 0 ? "_padded_gradient" : "");
}

// Per channel: target[c] = Σ_{n,s} term, then `finish` (a statement on target[c], or empty).
void describe_channel_sum(ScopBuilder& b, int channels, int plane, const std::string& target, const std::string& term,
                          const std::string& finish = "") {
  b.for_("c", "0", str(channels)).stmt(target + "[c] = 0.0f");
  b.for_("n", "0", "N").for_("s", "0", str(plane)).stmt(target + "[c] += " + term).end().end();
  if (!finish.empty()) b.stmt(finish);
  b.end();
}

std::vector<KernelWriter> batch_norm_kernels(const BatchNormShape& s) {
  const int C = s.channels, S = s.plane;
  const std::string name = batch_norm_name(s), act = rows({S, C}), count = "(N * " + str(S) + ")";
  const std::string x = "x[n][s][c]", centred = "(x[n][s][c] - mean[c])";
  std::vector<KernelWriter> out;

  out.emplace_back(name + "_forward", std::vector<KernelArgument>{{"x", act},
                                                                  {"residual", act},
                                                                  {"gamma", ""},
                                                                  {"beta", ""},
                                                                  {"running_mean", "", true},
                                                                  {"running_var", "", true},
                                                                  {"mean", "", true},
                                                                  {"var", "", true},
                                                                  {"invstd", "", true},
                                                                  {"y", act, true}});
  out.back()
      .nest([=](ScopBuilder& b) { describe_channel_sum(b, C, S, "mean", x, "mean[c] = mean[c] / " + count); })
      .nest([=](ScopBuilder& b) {
        describe_channel_sum(b, C, S, "var", centred + " * " + centred, "var[c] = var[c] / " + count);
      })
      .nest([=](ScopBuilder& b) {
        const std::string m = real(kBatchNormMomentum), keep = real(1.0 - kBatchNormMomentum);
        b.for_("c", "0", str(C));
        b.stmt("invstd[c] = 1.0f / sqrt(var[c] + " + real(kBatchNormEpsilon) + ")");
        b.stmt("running_mean[c] = " + keep + " * running_mean[c] + " + m + " * mean[c]");
        b.stmt("running_var[c] = " + keep + " * running_var[c] + " + m + " * (" + count + " > 1 ? var[c] * " + count + " / (" +
               count + " - 1) : var[c])");
        b.end();
      })
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("s", "0", str(S)).for_("c", "0", str(C));
        b.stmt("y[n][s][c] = " + centred + " * invstd[c] * gamma[c] + beta[c]" + (s.residual ? " + residual[n][s][c]" : ""));
        if (s.relu) b.stmt("y[n][s][c] = y[n][s][c] > 0.0f ? y[n][s][c] : 0.0f");
        b.end().end().end();
      });

  const int P = s.gradient_pad, W = s.width, H = W > 0 ? S / W : 0;
  out.emplace_back(name + "_backward", std::vector<KernelArgument>{{"dy", act},
                                                                   {"y", act},
                                                                   {"x", act},
                                                                   {"mean", ""},
                                                                   {"invstd", ""},
                                                                   {"gamma", ""},
                                                                   {"g", act, true},
                                                                   {"dx", P > 0 ? rows({H + 2 * P, W + 2 * P, C}) : act, true},
                                                                   {"dgamma", "", true},
                                                                   {"dbeta", "", true}});
  const std::string mask = std::string("g[n][s][c] = ") + (s.relu ? "y[n][s][c] > 0.0f ? dy[n][s][c] : 0.0f" : "dy[n][s][c]");
  if (s.one_sweep_backward) {
    out.back().nest([=](ScopBuilder& b) {
      b.for_("c", "0", str(C)).stmt("dbeta[c] = 0.0f").stmt("dgamma[c] = 0.0f").end();
      b.for_("n", "0", "N").for_("s", "0", str(S)).for_("c", "0", str(C));
      b.stmt(mask).stmt("dbeta[c] += g[n][s][c]").stmt("dgamma[c] += g[n][s][c] * " + centred).end().end().end();
      b.for_("c", "0", str(C)).stmt("dgamma[c] = dgamma[c] * invstd[c]").end();
    }, KernelWriter::Order::kAsWritten);  // isl would split the sweep into three again
  } else {
    out.back()
        .nest([=](ScopBuilder& b) { b.for_("n", "0", "N").for_("s", "0", str(S)).for_("c", "0", str(C)).stmt(mask).end().end().end(); })
        .nest([=](ScopBuilder& b) { describe_channel_sum(b, C, S, "dbeta", "g[n][s][c]"); })
        .nest([=](ScopBuilder& b) {
          describe_channel_sum(b, C, S, "dgamma", "g[n][s][c] * " + centred, "dgamma[c] = dgamma[c] * invstd[c]");
        });
  }
  // 1/count computed once for the whole sweep, a multiplication per element instead of a division.
  const std::string per_count = "(1.0f / " + count + ")";
  const std::string dx = "gamma[c] * invstd[c] * (g[n][s][c] - dbeta[c] * " + per_count + " - " + centred +
                         " * invstd[c] * dgamma[c] * " + per_count + ")";
  if (P > 0) {
    // The board cell s = h·W + w goes to dx[n][h + P][w + P], inside a zero border.
    auto cell = [=](std::string e) {
      for (std::size_t at; (at = e.find("[s]")) != std::string::npos;) e.replace(at, 3, "[h * " + str(W) + " + w]");
      return e;
    };
    out.back().nest([=](ScopBuilder& b) { describe_border(b, "dx", H, W, C, P); }).nest([=](ScopBuilder& b) {
      b.for_("n", "0", "N").for_("h", "0", str(H)).for_("w", "0", str(W)).for_("c", "0", str(C));
      b.stmt("dx[n][h + " + str(P) + "][w + " + str(P) + "][c] = " + cell(dx)).end().end().end().end();
    });
  } else {
    out.back().nest([=](ScopBuilder& b) {
      b.for_("n", "0", "N").for_("s", "0", str(S)).for_("c", "0", str(C)).stmt("dx[n][s][c] = " + dx).end().end().end();
    });
  }
  return out;
}

// ---- linear ------------------------------------------------------------------------------

std::string linear_name(const LinearShape& s) {
  return "pz_linear_" + str(s.inputs) + "x" + str(s.outputs) + (s.relu ? "_relu" : "");
}

std::vector<KernelWriter> linear_kernels(const LinearShape& s) {
  const int I = s.inputs, O = s.outputs;
  const std::string name = linear_name(s);
  const std::string in = rows({I}), out_row = rows({O});
  std::vector<KernelWriter> out;
  out.emplace_back(name + "_forward", std::vector<KernelArgument>{{"x", in}, {"w", in}, {"bias", ""}, {"wt", out_row, true}, {"y", out_row, true}});
  out.back()
      .nest([=](ScopBuilder& b) { b.for_("i", "0", str(I)).for_("o", "0", str(O)).stmt("wt[i][o] = w[o][i]").end().end(); })
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("o", "0", str(O)).stmt("y[n][o] = bias[o]");
        b.for_("i", "0", str(I)).stmt("y[n][o] += x[n][i] * wt[i][o]").end();
        if (s.relu) b.stmt("y[n][o] = y[n][o] > 0.0f ? y[n][o] : 0.0f");
        b.end().end();
      });
  out.emplace_back(name + "_backward", std::vector<KernelArgument>{{"dy", out_row},
                                                                   {"y", out_row},
                                                                   {"x", in},
                                                                   {"w", in},
                                                                   {"g", out_row, true},
                                                                   {"dx", in, true},
                                                                   {"dw", in, true},
                                                                   {"dbias", "", true}});
  out.back()
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("o", "0", str(O));
        b.stmt(std::string("g[n][o] = ") + (s.relu ? "y[n][o] > 0.0f ? dy[n][o] : 0.0f" : "dy[n][o]")).end().end();
      })
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("i", "0", str(I)).stmt("dx[n][i] = 0.0f");
        b.for_("o", "0", str(O)).stmt("dx[n][i] += g[n][o] * w[o][i]").end().end().end();
      })
      .nest([=](ScopBuilder& b) {
        b.for_("o", "0", str(O)).for_("i", "0", str(I)).stmt("dw[o][i] = 0.0f");
        b.for_("n", "0", "N").stmt("dw[o][i] += g[n][o] * x[n][i]").end().end().end();
      })
      .nest([=](ScopBuilder& b) {
        b.for_("o", "0", str(O)).stmt("dbias[o] = 0.0f").for_("n", "0", "N").stmt("dbias[o] += g[n][o]").end().end();
      });
  return out;
}

// ---- pooling and per-channel planes --------------------------------------------------------

std::string plane_name(const std::string& what, const PlaneShape& s) {
  return "pz_" + what + "_" + str(s.channels) + "_" + str(s.height) + "x" + str(s.width) + (s.relu ? "_relu" : "");
}

std::vector<KernelWriter> pool_kernels(const PlaneShape& s) {
  const int C = s.channels, S = s.plane();
  const std::string name = plane_name("pool", s), act = rows({S, C}), pooled = rows({3 * C});
  const std::string c = str(C), mean = "y[n][c]", scaled = "y[n][" + c + " + c]", top = "y[n][2 * " + c + " + c]";
  const std::string scale = real((std::sqrt(static_cast<double>(S)) - 14.0) / 10.0);
  std::vector<KernelWriter> out;
  out.emplace_back(name + "_forward", std::vector<KernelArgument>{{"x", act}, {"y", pooled, true}});
  out.back().nest([=](ScopBuilder& b) {
    b.for_("n", "0", "N").for_("c", "0", c).stmt(mean + " = 0.0f");
    b.for_("s", "0", str(S)).stmt(mean + " += x[n][s][c]").end();
    b.stmt(mean + " = " + mean + " / " + str(S) + ".0f").stmt(scaled + " = " + mean + " * " + scale);
    // Comparisons rather than fmax, which GCC calls in libm (NaN rules) for every element.
    b.stmt(top + " = x[n][0][c]").for_("s", "1", str(S)).stmt(top + " = x[n][s][c] > " + top + " ? x[n][s][c] : " + top).end();
    b.end().end();
  });
  out.emplace_back(name + "_backward", std::vector<KernelArgument>{{"x", act}, {"y", pooled}, {"dy", pooled}, {"ties", rows({C}), true}, {"dx", act, true}});
  out.back()
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("c", "0", c).stmt("ties[n][c] = 0.0f");
        b.for_("s", "0", str(S)).stmt("ties[n][c] += x[n][s][c] == " + top + " ? 1.0f : 0.0f").end().end().end();
      })
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("s", "0", str(S)).for_("c", "0", c);
        b.stmt("dx[n][s][c] = (dy[n][c] + dy[n][" + c + " + c] * " + scale + ") * (1.0f / " + str(S) + ".0f) + (x[n][s][c] == " + top +
               " ? dy[n][2 * " + c + " + c] / ties[n][c] : 0.0f)");
        b.end().end().end();
      });
  return out;
}

std::vector<KernelWriter> plane_kernels(const PlaneShape& s) {
  const int C = s.channels, S = s.plane();
  const std::string name = plane_name("planes", s), act = rows({S, C}), per_channel = rows({C});
  std::vector<KernelWriter> out;
  out.emplace_back(name + "_forward", std::vector<KernelArgument>{{"x", act}, {"p", per_channel}, {"y", act, true}});
  out.back().nest([=](ScopBuilder& b) {
    b.for_("n", "0", "N").for_("s", "0", str(S)).for_("c", "0", str(C)).stmt("y[n][s][c] = x[n][s][c] + p[n][c]");
    if (s.relu) b.stmt("y[n][s][c] = y[n][s][c] > 0.0f ? y[n][s][c] : 0.0f");
    b.end().end().end();
  });
  out.emplace_back(name + "_backward",
                   std::vector<KernelArgument>{{"dy", act}, {"y", act}, {"dx", act, true}, {"dp", per_channel, true}});
  out.back()
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("s", "0", str(S)).for_("c", "0", str(C));
        b.stmt(std::string("dx[n][s][c] = ") + (s.relu ? "y[n][s][c] > 0.0f ? dy[n][s][c] : 0.0f" : "dy[n][s][c]"));
        b.end().end().end();
      })
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("c", "0", str(C)).stmt("dp[n][c] = 0.0f");
        b.for_("s", "0", str(S)).stmt("dp[n][c] += dx[n][s][c]").end().end().end();
      });
  return out;
}

// ---- row-wise kernels ----------------------------------------------------------------------

std::string matrix_name(const std::string& what, const MatrixShape& s) {
  return "pz_" + what + "_" + str(s.rows) + "x" + str(s.cols);
}

// A forward and a backward kernel of the same four arguments (MatrixKernels).
std::vector<KernelWriter> matrix_pair(const std::string& name, const std::string& in, const std::string& work,
                                      const std::string& out) {
  std::vector<KernelWriter> k;
  k.emplace_back(name + "_forward", std::vector<KernelArgument>{{"x", in}, {"work", work, true}, {"y", out, true}});
  k.emplace_back(name + "_backward", std::vector<KernelArgument>{{"dy", out}, {"y", out}, {"work", work, true}, {"dx", in, true}});
  return k;
}

std::vector<KernelWriter> transpose_kernels(const MatrixShape& s) {
  const std::string r = str(s.rows), c = str(s.cols);
  auto k = matrix_pair(matrix_name("transpose", s), rows({s.rows, s.cols}), rows({s.rows, 2}), rows({s.cols, s.rows}));
  k[0].nest([=](ScopBuilder& b) {
    b.for_("n", "0", "N").for_("a", "0", r).for_("b", "0", c).stmt("y[n][b][a] = x[n][a][b]").end().end().end();
  });
  k[1].nest([=](ScopBuilder& b) {
    b.for_("n", "0", "N").for_("a", "0", r).for_("b", "0", c).stmt("dx[n][a][b] = dy[n][b][a]").end().end().end();
  });
  return k;
}

std::vector<KernelWriter> tanh_kernels(const MatrixShape& s) {
  const std::string m = rows({s.rows, s.cols});
  auto k = matrix_pair(matrix_name("tanh", s), m, rows({s.rows, 2}), m);
  auto each = [=](const std::string& statement) {
    return [=](ScopBuilder& b) {
      b.for_("n", "0", "N").for_("r", "0", str(s.rows)).for_("l", "0", str(s.cols)).stmt(statement).end().end().end();
    };
  };
  k[0].nest(each("y[n][r][l] = tanh(x[n][r][l])"));
  k[1].nest(each("dx[n][r][l] = dy[n][r][l] * (1.0f - y[n][r][l] * y[n][r][l])"));
  return k;
}

// Cross-entropy against soft targets through the log-softmax of each row of L, the rows
// weighted (w[n]: the policy mask; 1 for win/draw/loss) and the sum scaled (scale[0]: one
// over the weight's sum or the row count). work[n][r]: the row's maximum, then log Σ exp.
std::vector<KernelWriter> cross_entropy_kernels(const MatrixShape& s) {
  const std::string R = str(s.rows), L = str(s.cols), m = rows({s.rows, s.cols}), name = matrix_name("cross_entropy", s);
  std::vector<KernelWriter> k;
  k.emplace_back(name + "_forward", std::vector<KernelArgument>{{"x", m}, {"t", m}, {"w", ""}, {"scale", ""},
                                                                {"work", rows({s.rows, 2}), true}, {"loss", "", true}});
  k.emplace_back(name + "_backward", std::vector<KernelArgument>{{"x", m}, {"t", m}, {"w", ""}, {"scale", ""}, {"work", rows({s.rows, 2})},
                                                                 {"dloss", ""}, {"tsum", rows({s.rows}), true}, {"dx", m, true}});
  k[0]
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("r", "0", R).stmt("work[n][r][0] = x[n][r][0]");
        b.for_("l", "1", L).stmt("work[n][r][0] = x[n][r][l] > work[n][r][0] ? x[n][r][l] : work[n][r][0]").end().end().end();
      })
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("r", "0", R).stmt("work[n][r][1] = 0.0f");
        b.for_("l", "0", L).stmt("work[n][r][1] += exp(x[n][r][l] - work[n][r][0])").end();
        b.stmt("work[n][r][1] = log(work[n][r][1]) + work[n][r][0]").end().end();
      })
      .nest([=](ScopBuilder& b) {
        b.stmt("loss[0] = 0.0f");
        b.for_("n", "0", "N").for_("r", "0", R).for_("l", "0", L);
        b.stmt("loss[0] += w[n] * t[n][r][l] * (work[n][r][1] - x[n][r][l])").end().end().end();
        b.stmt("loss[0] = loss[0] * scale[0]");
      });
  // dx = dloss · scale · w[n] · (softmax(x) Σ_l t − t)
  k[1]
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("r", "0", R).stmt("tsum[n][r] = 0.0f");
        b.for_("l", "0", L).stmt("tsum[n][r] += t[n][r][l]").end().end().end();
      })
      .nest([=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("r", "0", R).for_("l", "0", L);
        b.stmt("dx[n][r][l] = dloss[0] * scale[0] * w[n] * (exp(x[n][r][l] - work[n][r][1]) * tsum[n][r] - t[n][r][l])");
        b.end().end().end();
      });
  return k;
}

// Mean squared error over N rows of `cols` values, scaled by scale[0] (1/(N·cols)).
std::vector<KernelWriter> squared_error_kernels(const MatrixShape& s) {
  const std::string C = str(s.cols), m = rows({s.cols}), name = matrix_name("squared_error", s);
  std::vector<KernelWriter> k;
  k.emplace_back(name + "_forward", std::vector<KernelArgument>{{"v", m}, {"z", m}, {"scale", ""}, {"loss", "", true}});
  k.emplace_back(name + "_backward", std::vector<KernelArgument>{{"v", m}, {"z", m}, {"scale", ""}, {"dloss", ""}, {"dv", m, true}});
  k[0].nest([=](ScopBuilder& b) {
    b.stmt("loss[0] = 0.0f").for_("n", "0", "N").for_("c", "0", C);
    b.stmt("loss[0] += (v[n][c] - z[n][c]) * (v[n][c] - z[n][c])").end().end().stmt("loss[0] = loss[0] * scale[0]");
  });
  k[1].nest([=](ScopBuilder& b) {
    b.for_("n", "0", "N").for_("c", "0", C).stmt("dv[n][c] = 2.0f * dloss[0] * scale[0] * (v[n][c] - z[n][c])").end().end();
  });
  return k;
}

template <class Shape>
std::set<Shape> unique(const std::vector<Shape>& shapes) {
  return std::set<Shape>(shapes.begin(), shapes.end());
}

// Every generator's kernels, in a fixed order.
std::vector<KernelWriter> all_kernels(const LayerShapes& shapes) {
  std::vector<KernelWriter> out;
  auto add = [&](std::vector<KernelWriter> more) {
    for (KernelWriter& k : more) out.push_back(std::move(k));
  };
  for (const ConvShape& s : unique(shapes.convs)) add(conv_kernels(s));
  for (const BatchNormShape& s : unique(shapes.batch_norms)) add(batch_norm_kernels(s));
  for (const LinearShape& s : unique(shapes.linears)) add(linear_kernels(s));
  for (const PlaneShape& s : unique(shapes.pools)) add(pool_kernels(s));
  for (const PlaneShape& s : unique(shapes.planes)) add(plane_kernels(s));
  for (const MatrixShape& s : unique(shapes.transposes)) add(transpose_kernels(s));
  for (const MatrixShape& s : unique(shapes.tanhs)) add(tanh_kernels(s));
  for (const MatrixShape& s : unique(shapes.cross_entropies)) add(cross_entropy_kernels(s));
  for (const MatrixShape& s : unique(shapes.squared_errors)) add(squared_error_kernels(s));
  return out;
}

// The bytes the nests of `kernels`, run one after another at `batch`, move between memory
// and the caches under polyc's model (footprint.h): each nest its live-in reads and live-out
// writes, the nest alone; unless all they touch fits in L2 together, when each array is
// loaded and stored once whichever form the kernels have. Infinite when a nest is not
// modelled. Arrays are told apart by kernel and name.
double modelled_bytes(const std::vector<KernelWriter>& kernels, int batch, long l2_bytes) {
  std::vector<std::pair<std::string, poly::ScopReport>> nests;
  for (const KernelWriter& kernel : kernels) {
    poly::KernelReport report;
    kernel.source(report, {.batch = batch, .data_movement = true});
    for (poly::ScopReport& nest : report.nests) nests.emplace_back(kernel.name(), std::move(nest));
  }
  double each_alone = 0;
  std::map<std::string, double> touched;  // per array, the most bytes one nest touches
  for (const auto& [kernel, nest] : nests) {
    const auto& arrays = nest.data_movement.kernel;
    const auto in = poly::sum_arrays(arrays, &poly::ArrayMovement::moved_in).bytes;
    const auto out = poly::sum_arrays(arrays, &poly::ArrayMovement::moved_out).bytes;
    if (!nest.data_movement.computed || !in || !out) return std::numeric_limits<double>::infinity();
    each_alone += static_cast<double>(*in + *out);
    for (const poly::ArrayMovement& a : arrays) {
      if (!a.accessed) return std::numeric_limits<double>::infinity();
      double& t = touched[kernel + " " + a.array];
      t = std::max(t, static_cast<double>(*a.accessed * a.element_bytes));
    }
  }
  double together = 0;
  for (const auto& [array, bytes] : touched) together += bytes;
  return together <= static_cast<double>(l2_bytes) ? together : each_alone;
}

// `choice` with its two figures from `measure`, or from the kernel cache's directory when
// this executable measured them before (JitCache::generated_source): the analysis takes
// polyc seconds per learner start, and depends only on the shapes, the batch and L2.
FusionChoice weighed(FusionChoice choice, long l2_bytes, const std::function<std::pair<double, double>()>& measure) {
  const poly::JitCache cache(poly::default_cache_dir(), "gcc", kFlags);
  const std::string text =
      cache.generated_source("fusion " + choice.kernel + " batch " + str(choice.batch) + " l2 " + str(l2_bytes), [&] {
        const auto [unfused, fused] = measure();
        char line[96];
        std::snprintf(line, sizeof line, "%.17g %.17g\n", unfused, fused);
        return std::string(line);
      });
  if (std::sscanf(text.c_str(), "%lf %lf", &choice.unfused_bytes, &choice.fused_bytes) != 2) {
    const auto [unfused, fused] = measure();  // an unreadable cache entry
    choice.unfused_bytes = unfused, choice.fused_bytes = fused;
  }
  return choice;
}

}  // namespace

FusionChoice choose_batch_norm_backward(BatchNormShape s, int batch) {
  s.one_sweep_backward = false;
  const long l2 = poly::CacheInfo::detect().l2;
  return weighed({batch_norm_name(s), "ReLU mask, dβ and dγ in one sweep", batch, 0, 0}, l2, [=]() mutable {
    const double unfused = modelled_bytes({batch_norm_kernels(s).at(1)}, batch, l2);
    s.one_sweep_backward = true;
    return std::pair{unfused, modelled_bytes({batch_norm_kernels(s).at(1)}, batch, l2)};
  });
}

FusionChoice choose_conv_batch_norm_backward(ConvShape conv, BatchNormShape norm, int batch) {
  conv.padded_gradient = false, norm.gradient_pad = 0, norm.width = 0;
  FusionChoice choice{conv_name(conv) + " + " + batch_norm_name(norm), "batch-norm gradient written padded for the convolution",
                      batch, 0, 0};
  if (conv.pad() == 0) {  // a 1×1 convolution reads its gradient unpadded
    choice.unfused_bytes = choice.fused_bytes = 1;
    return choice;
  }
  const long l2 = poly::CacheInfo::detect().l2;
  return weighed(choice, l2, [=]() mutable {
    // The batch norm's backward, then the convolution's input and weight gradients.
    auto backward = [&] {
      std::vector<KernelWriter> c = conv_kernels(conv);
      return std::vector<KernelWriter>{batch_norm_kernels(norm).at(1), c.at(1), c.at(2)};
    };
    const double unfused = modelled_bytes(backward(), batch, l2);
    conv.padded_gradient = true, norm.gradient_pad = conv.pad(), norm.width = conv.width;
    return std::pair{unfused, modelled_bytes(backward(), batch, l2)};
  });
}

std::size_t conv_padded_floats(const ConvShape& s, int n) {
  if (s.pad() == 0) return 0;
  const std::size_t rows = static_cast<std::size_t>(s.height + 2 * s.pad()) * static_cast<std::size_t>(s.width + 2 * s.pad());
  return static_cast<std::size_t>(n) * rows * static_cast<std::size_t>(std::max(s.in_channels, s.out_channels));
}

std::size_t conv_weight_floats(const ConvShape& s) {
  return static_cast<std::size_t>(s.kernel * s.kernel) * static_cast<std::size_t>(s.in_channels) *
         static_cast<std::size_t>(s.out_channels);
}

std::string layer_kernels_source(const LayerShapes& shapes, std::vector<poly::KernelReport>* reports, const std::string& element) {
  return kernels_source(all_kernels(shapes), reports, element);
}

std::string kernels_source(const std::vector<KernelWriter>& kernels, std::vector<poly::KernelReport>* reports,
                           const std::string& element) {
  // <tgmath.h>: the statements' sqrt, exp, log, fmax and tanh take their arguments' type.
  std::string code = "/* Generated by polyzero's nn/poly/layer_kernels: the poly learner's kernels, each loop nest optimised by polyc. */\n#include <tgmath.h>\n\n";
  if (reports) reports->clear();
  for (const KernelWriter& kernel : kernels) {
    poly::KernelReport report;
    poly::KernelWriterOptions options;
    options.element = element;
    code += kernel.source(report, options);
    if (reports) reports->push_back(std::move(report));
  }
  return code;
}

std::vector<poly::KernelReport> analyse_layer_kernels(const LayerShapes& shapes, int batch) {
  std::vector<poly::KernelReport> reports;
  for (const KernelWriter& kernel : all_kernels(shapes)) {
    poly::KernelReport report;
    kernel.source(report, {.batch = batch, .data_movement = true});
    reports.push_back(std::move(report));
  }
  return reports;
}

std::shared_ptr<poly::JitModule> compile_layer_kernels(const LayerShapes& shapes, const std::string& element,
                                                       const std::string& cache_dir) {
  return compile_kernels(all_kernels(shapes), "training kernels", cache_dir, element);
}

std::shared_ptr<poly::JitModule> compile_kernels(const std::vector<KernelWriter>& kernels, const std::string& what,
                                                 const std::string& cache_dir, const std::string& element) {
  poly::JitCache cache(cache_dir.empty() ? poly::default_cache_dir() : cache_dir, "gcc", kFlags);
  std::string functions;
  for (const KernelWriter& k : kernels) functions += k.name() + " ";
  const std::string source = cache.generated_source("poly learner " + what + " (" + element + "): " + functions, [&] {
    return kernels_source(kernels, nullptr, element);
  });
  try {
    return cache.load(source);
  } catch (const std::exception& e) {
    throw std::runtime_error("poly learner: the " + what + " failed to compile: " + e.what());
  }
}

PolyLayerKernels::PolyLayerKernels(const LayerShapes& shapes, const std::string& cache_dir)
    : module_(compile_layer_kernels(shapes, "float", cache_dir)) {
  auto fn = [&](auto*& target, const std::string& name) {
    target = module_->function<std::remove_pointer_t<std::remove_reference_t<decltype(target)>>>(name);
  };
  for (const ConvShape& s : unique(shapes.convs)) {
    ConvKernels& k = convs_[s];
    const std::string n = conv_name(s);
    if (s.winograd > 0) {
      WinogradConvKernels& w = k.winograd;
      fn(w.transform_weights, n + "_transform_weights"), fn(w.forward, n + "_forward");
      fn(w.input_gradient, n + "_input_gradient"), fn(w.weight_gradient, n + "_weight_gradient");
      fn(w.finish_weight_gradient, n + "_finish_weight_gradient");
      w.g = winograd_filter_transform(s.winograd);
      continue;
    }
    fn(k.forward, n + "_forward"), fn(k.input_gradient, n + "_input_gradient"), fn(k.weight_gradient, n + "_weight_gradient");
    if (s.pad() > 0) fn(k.pad, n + "_pad");
  }
  for (const BatchNormShape& s : unique(shapes.batch_norms)) {
    BatchNormKernels& k = batch_norms_[s];
    fn(k.forward, batch_norm_name(s) + "_forward"), fn(k.backward, batch_norm_name(s) + "_backward");
  }
  for (const LinearShape& s : unique(shapes.linears)) {
    LinearKernels& k = linears_[s];
    fn(k.forward, linear_name(s) + "_forward"), fn(k.backward, linear_name(s) + "_backward");
  }
  for (const PlaneShape& s : unique(shapes.pools)) {
    fn(pools_[s].forward, plane_name("pool", s) + "_forward"), fn(pools_[s].backward, plane_name("pool", s) + "_backward");
  }
  for (const PlaneShape& s : unique(shapes.planes)) {
    fn(planes_[s].forward, plane_name("planes", s) + "_forward");
    fn(planes_[s].backward, plane_name("planes", s) + "_backward");
  }
  auto matrices = [&](const std::vector<MatrixShape>& list, std::map<MatrixShape, MatrixKernels>& into, const std::string& what) {
    for (const MatrixShape& s : unique(list)) {
      fn(into[s].forward, matrix_name(what, s) + "_forward"), fn(into[s].backward, matrix_name(what, s) + "_backward");
    }
  };
  matrices(shapes.transposes, transposes_, "transpose");
  matrices(shapes.tanhs, tanhs_, "tanh");
  for (const MatrixShape& s : unique(shapes.cross_entropies)) {
    fn(cross_entropies_[s].forward, matrix_name("cross_entropy", s) + "_forward");
    fn(cross_entropies_[s].backward, matrix_name("cross_entropy", s) + "_backward");
  }
  for (const MatrixShape& s : unique(shapes.squared_errors)) {
    fn(squared_errors_[s].forward, matrix_name("squared_error", s) + "_forward");
    fn(squared_errors_[s].backward, matrix_name("squared_error", s) + "_backward");
  }
}

PolyLayerKernels::~PolyLayerKernels() = default;

std::string kernel_name(const ConvShape& s) { return conv_name(s); }
std::string kernel_name(const BatchNormShape& s) { return batch_norm_name(s); }
std::string kernel_name(const LinearShape& s) { return linear_name(s); }
std::string kernel_name(const std::string& what, const PlaneShape& s) { return plane_name(what, s); }
std::string kernel_name(const std::string& what, const MatrixShape& s) { return matrix_name(what, s); }

}  // namespace pz::nn
