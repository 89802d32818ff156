#include "nn/poly/winograd_kernels.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "nn/poly/winograd.h"
#include "polyhedral/frontend/builder.h"

namespace pz::nn {

namespace {

using poly::KernelArgument;
using poly::KernelWriter;
using poly::ScopBuilder;

std::string str(long long v) { return std::to_string(v); }
std::string rows(std::initializer_list<long long> dims) {
  std::string out;
  for (long long d : dims) out += "[" + str(d) + "]";
  return out;
}

// The sizes every stage uses.
struct Tiling {
  int m, alpha, th, tw, hp, wp;  // tile, input tile, tiles down and across, padded rows and columns
  bool whole;                    // the tiles cover the board exactly (Go 9×9 with m = 3)
  explicit Tiling(const WinogradConvShape& s)
      : m(s.tile), alpha(s.tile + 2), th((s.height + s.tile - 1) / s.tile), tw((s.width + s.tile - 1) / s.tile),
        hp(th * s.tile + 2), wp(tw * s.tile + 2), whole(th * s.tile == s.height && tw * s.tile == s.width) {}
};

// Per position, the floats of the transform of a C-channel input (padded copy, rows, tiles)
// and of a K-channel output (products, rows).
long long input_transform_floats(const Tiling& t, int c) {
  return static_cast<long long>(c) * (t.hp * t.wp + t.alpha * t.alpha + t.alpha * t.alpha * t.th * t.tw);
}
long long output_transform_floats(const Tiling& t, int k) {
  return static_cast<long long>(k) * (t.alpha * t.alpha * t.th * t.tw + t.m * t.alpha);
}
// The weight gradient's transform of dy: its copy on whole tiles (unless the tiles cover the
// board), one tile's rows, tiles.
long long gradient_transform_floats(const Tiling& t, int k) {
  const long long copy = t.whole ? 0 : static_cast<long long>(t.th) * t.m * t.tw * t.m;
  return static_cast<long long>(k) * (copy + t.alpha * t.m + t.alpha * t.alpha * t.th * t.tw);
}

// Views of `work`, one after another, each `per_position` floats for each of the N positions.
class WorkViews {
 public:
  void add(const std::string& name, const std::string& dims, long long per_position) {
    views_.push_back({name, dims, true, "work", "N * " + str(offset_)});
    offset_ += per_position;
  }
  const std::vector<KernelArgument>& views() const { return views_; }

 private:
  std::vector<KernelArgument> views_;
  long long offset_ = 0;
};

std::vector<KernelArgument> join(std::vector<KernelArgument> a, const std::vector<KernelArgument>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Boards whose copies and transforms are written here are declared by rows, each row's cells
// and channels one index (cell · channels + channel: the same memory as [rows][cells][channels]),
// so that a row's copy is one contiguous run rather than one per cell.
std::string flat_rows(int rows, int cells, int channels) {
  return "[" + str(rows) + "][" + str(static_cast<long long>(cells) * channels) + "]";
}

// xw [N][hp][wp·C] = the channels-last `x` [N][height][width·C] with a zero border: one cell
// above and left, up to the whole tiles below and right.
void describe_padding(ScopBuilder& b, const std::string& x, const std::string& xw, const Tiling& t, int height, int width,
                      int channels) {
  const std::string c = str(channels), row = str(static_cast<long long>(width) * channels);
  const std::string border = "h < 1 || h > " + str(height) + " || j < " + c + " || j >= " + c + " + " + row;
  b.for_("n", "0", "N").for_("h", "0", str(t.hp)).for_("j", "0", str(static_cast<long long>(t.wp) * channels)).if_(border);
  b.stmt(xw + "[n][h][j] = 0.0f").end().end().end().end();
  b.for_("n", "0", "N").for_("h", "0", str(height)).for_("j", "0", row);
  b.stmt(xw + "[n][h + 1][" + c + " + j] = " + x + "[n][h][j]").end().end().end();
}

// Σ_i row[i] · term(i) in ascending i with the entries as constants: zeros left out, ±1 as
// a sum or a difference (Bᵀ and Aᵀ have integer entries: polynomials with the integer
// interpolation points as roots, and their powers).
std::string linear_combination(const std::vector<double>& matrix, int columns, int row,
                               const std::function<std::string(int)>& term) {
  std::string out;
  for (int i = 0; i < columns; ++i) {
    const double value = matrix[static_cast<std::size_t>(row * columns + i)];
    if (value == 0) continue;
    const double magnitude = std::fabs(value);
    if (magnitude != std::round(magnitude)) throw std::logic_error("winograd kernels: a transform entry is not an integer");
    const std::string factor = magnitude == 1 ? term(i) : str(static_cast<long long>(magnitude)) + ".0f * " + term(i);
    out += out.empty() ? (value < 0 ? "-" : "") + factor : (value < 0 ? " - " : " + ") + factor;
  }
  return out.empty() ? "0.0f" : out;
}

// The columns × rows transpose of a rows × columns row-major matrix.
std::vector<double> transposed(const std::vector<double>& matrix, int rows, int columns) {
  std::vector<double> out(matrix.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < columns; ++c)
      out[static_cast<std::size_t>(c * rows + r)] = matrix[static_cast<std::size_t>(r * columns + c)];
  return out;
}

// out[n][a][b][th·TW + tw][c] = (T d Tᵀ)[a][b] for every tile d (size × size cells at
// (th·m, tw·m)) of `in` [N][rows][columns·channels], T a constant `t_rows` × size matrix,
// one tile at a time: T over the tile's rows into `scratch` [N][t_rows][size][channels]
// (reused by every tile of the position: it stays in L1), then over its columns. Each row
// of T is a constant linear combination, all of them in one sweep over the channels so that
// each element is loaded once per pass.
void describe_tile_transform(KernelWriter& k, const Tiling& t, const std::vector<double>& matrix, int t_rows, int size,
                             const std::string& in, const std::string& scratch, const std::string& out, int channels) {
  const std::string m = str(t.m), c = str(channels), tw = str(t.tw);
  k.nest(
      [=](ScopBuilder& b) {
        b.for_("n", "0", "N").for_("th", "0", str(t.th)).for_("tw", "0", tw);
        b.for_("j", "0", str(size)).for_("c", "0", c);
        for (int row = 0; row < t_rows; ++row)
          b.stmt(scratch + "[n][" + str(row) + "][j][c] = " + linear_combination(matrix, size, row, [&](int i) {
                   return in + "[n][th * " + m + " + " + str(i) + "][(tw * " + m + " + j) * " + c + " + c]";
                 }));
        b.end().end();
        b.for_("a", "0", str(t_rows)).for_("c", "0", c);
        for (int column = 0; column < t_rows; ++column)
          b.stmt(out + "[n][a][" + str(column) + "][th * " + tw + " + tw][c] = " +
                 linear_combination(matrix, size, column, [&](int j) { return scratch + "[n][a][" + str(j) + "][c]"; }));
        b.end().end();
        b.end().end().end();
      },
      KernelWriter::Order::kAsWritten);
}

// V = Bᵀ d B of every tile d of the padded xw (Rt: the tile's rows).
void describe_input_transform(KernelWriter& k, const Tiling& t, int channels) {
  describe_tile_transform(k, t, winograd_matrices(t.m).bt, t.alpha, t.alpha, "xw", "Rt", "V", channels);
}

// y = Aᵀ (Σ_c V·u) A: the products M, then P = Aᵀ M by rows, then y = P A by columns.
void describe_products_and_output(KernelWriter& k, const Tiling& t, const WinogradConvShape& s, const std::string& u,
                                  const std::string& y, int in_channels, int out_channels) {
  const std::string a = str(t.alpha), m = str(t.m), o = str(out_channels);
  k.nest([=](ScopBuilder& b) {
    b.for_("n", "0", "N").for_("a", "0", a).for_("b", "0", a).for_("t", "0", str(t.th * t.tw)).for_("o", "0", o);
    b.stmt("M[n][t][a][b][o] = 0.0f").for_("c", "0", str(in_channels));
    b.stmt("M[n][t][a][b][o] += V[n][a][b][t][c] * " + u + "[a][b][c][o]").end();
    b.end().end().end().end().end();
  });
  // Per tile: P = Aᵀ M by rows (Pt, m × α values per channel, reused by every tile), then
  // y = P A by columns where they fall on the board, each row of Aᵀ a constant linear
  // combination.
  const WinogradMatrices w = winograd_matrices(t.m);
  k.nest(
      [=](ScopBuilder& b) {
        const std::string tw = str(t.tw);
        b.for_("n", "0", "N").for_("th", "0", str(t.th)).for_("tw", "0", tw);
        b.for_("b", "0", a).for_("o", "0", o);
        for (int row = 0; row < t.m; ++row)
          b.stmt("Pt[n][" + str(row) + "][b][o] = " + linear_combination(w.at, t.alpha, row, [&](int i) {
                   return "M[n][th * " + tw + " + tw][" + str(i) + "][b][o]";
                 }));
        b.end().end();
        b.for_("i", "0", m).if_("th * " + m + " + i < " + str(s.height)).for_("o", "0", o);
        for (int column = 0; column < t.m; ++column) {
          const std::string w_at = "tw * " + m + " + " + str(column);
          const std::string store = y + "[n][th * " + m + " + i][" + w_at + "][o] = " +
                                    linear_combination(w.at, t.alpha, column, [&](int j) { return "Pt[n][i][" + str(j) + "][o]"; });
          if (t.tw * t.m > s.width) b.if_(w_at + " < " + str(s.width)).stmt(store).end();
          else b.stmt(store);
        }
        b.end().end().end();
        b.end().end().end();
      },
      KernelWriter::Order::kAsWritten);
}

// A convolution of a `in_channels`-channel board into `out_channels` channels through the
// transformed filters `u` [α][α][in][out]: the forward (x, u → y) and the input gradient
// (dy, ut → dx) are both this.
KernelWriter winograd_convolution(const std::string& name, const WinogradConvShape& s, const std::string& x,
                                  const std::string& u, const std::string& y, int in_channels, int out_channels) {
  const Tiling t(s);
  WorkViews work;
  work.add("xw", flat_rows(t.hp, t.wp, in_channels), static_cast<long long>(t.hp) * t.wp * in_channels);
  work.add("Rt", rows({t.alpha, t.alpha, in_channels}), static_cast<long long>(t.alpha) * t.alpha * in_channels);
  work.add("V", rows({t.alpha, t.alpha, t.th * t.tw, in_channels}),
           static_cast<long long>(t.alpha) * t.alpha * t.th * t.tw * in_channels);
  work.add("M", rows({t.th * t.tw, t.alpha, t.alpha, out_channels}),
           static_cast<long long>(t.alpha) * t.alpha * t.th * t.tw * out_channels);
  work.add("Pt", rows({t.m, t.alpha, out_channels}), static_cast<long long>(t.m) * t.alpha * out_channels);
  KernelWriter k(name, join({{x, flat_rows(s.height, s.width, in_channels)},
                             {u, rows({t.alpha, in_channels, out_channels})},
                             {"work", "", true},
                             {y, rows({s.height, s.width, out_channels}), true}},
                            work.views()));
  k.nest([=](ScopBuilder& b) { describe_padding(b, x, "xw", t, s.height, s.width, in_channels); });
  describe_input_transform(k, t, in_channels);
  describe_products_and_output(k, t, s, u, y, in_channels, out_channels);
  return k;
}

// u = G g Gᵀ and ut = G rot180(g) Gᵀ for every filter: the filters copied into the orders
// of u and ut (output, resp. input channels innermost: the vector loops), then G applied to
// their rows and to their columns. Work: winograd_weight_work_floats.
KernelWriter transform_weights(const std::string& name, const WinogradConvShape& s) {
  const Tiling t(s);
  const int C = s.in_channels, O = s.out_channels;
  const long long filters = static_cast<long long>(C) * O;
  WorkViews work;
  work.add("wc", rows({3, C, O}), 9 * filters);
  work.add("wr", rows({3, O, C}), 9 * filters);
  work.add("T", rows({3, C, O}), 3LL * t.alpha * filters);
  work.add("Tr", rows({3, O, C}), 3LL * t.alpha * filters);
  KernelWriter k(name, join({{"w", rows({C, 3, 3})},
                             {"g", rows({3})},
                             {"work", "", true},
                             {"u", rows({t.alpha, C, O}), true},
                             {"ut", rows({t.alpha, O, C}), true}},
                            work.views()));
  const std::string a = str(t.alpha), c = str(C), o = str(O);
  k.nest([=](ScopBuilder& b) {
    b.for_("i", "0", "3").for_("j", "0", "3").for_("c", "0", c).for_("o", "0", o);
    b.stmt("wc[i][j][c][o] = w[o][c][i][j]").end().end().end().end();
    b.for_("i", "0", "3").for_("j", "0", "3").for_("o", "0", o).for_("c", "0", c);
    b.stmt("wr[i][j][o][c] = w[o][c][2 - i][2 - j]").end().end().end().end();
  });
  // One separable pass: out[a][j][x][y] = Σ_i g[a][i] in[i][j][x][y] (rows), or
  // out[a][b][x][y] = Σ_j g[b][j] in[a][j][x][y] (columns).
  auto pass = [=](const std::string& out, const std::string& in, bool rows_pass, const std::string& x, const std::string& y) {
    return [=](ScopBuilder& b) {
      b.for_("a", "0", a).for_("j", "0", rows_pass ? "3" : a).for_("x", "0", x).for_("y", "0", y);
      const std::string element = out + "[a][j][x][y]";
      b.stmt(element + " = 0.0f").for_("i", "0", "3");
      b.stmt(element + " += " + (rows_pass ? "g[a][i] * " + in + "[i][j][x][y]" : "g[j][i] * " + in + "[a][i][x][y]")).end();
      b.end().end().end().end();
    };
  };
  k.nest(pass("T", "wc", true, c, o));
  k.nest(pass("Tr", "wr", true, o, c));
  k.nest(pass("u", "T", false, c, o));
  k.nest(pass("ut", "Tr", false, o, c));
  return k;
}

KernelWriter weight_gradient(const std::string& name, const WinogradConvShape& s) {
  const Tiling t(s);
  const int C = s.in_channels, O = s.out_channels;
  const long long tiles = static_cast<long long>(t.th) * t.tw;
  WorkViews work;
  work.add("xw", flat_rows(t.hp, t.wp, C), static_cast<long long>(t.hp) * t.wp * C);
  work.add("Rt", rows({t.alpha, t.alpha, C}), static_cast<long long>(t.alpha) * t.alpha * C);
  work.add("V", rows({t.alpha, t.alpha, tiles, C}), t.alpha * t.alpha * tiles * C);
  if (!t.whole) work.add("dyw", flat_rows(t.th * t.m, t.tw * t.m, O), tiles * t.m * t.m * O);
  work.add("Qt", rows({t.alpha, t.m, O}), static_cast<long long>(t.alpha) * t.m * O);
  work.add("dM", rows({t.alpha, t.alpha, tiles, O}), t.alpha * t.alpha * tiles * O);
  KernelWriter k(name, join({{"x", flat_rows(s.height, s.width, C)},
                             {"dy", flat_rows(s.height, s.width, O)},
                             {"work", "", true},
                             {"previous", rows({t.alpha, C, O})},
                             {"du", rows({t.alpha, C, O}), true}},
                            work.views()));
  const std::string a = str(t.alpha), m = str(t.m), o = str(O);
  k.nest([=](ScopBuilder& b) { describe_padding(b, "x", "xw", t, s.height, s.width, C); });
  describe_input_transform(k, t, C);
  // dyw: dy on whole tiles, zero past the board (dy itself where the tiles cover the board).
  if (!t.whole) k.nest([=](ScopBuilder& b) {
    const std::string row = str(static_cast<long long>(s.width) * O);
    const std::string outside = "h >= " + str(s.height) + " || j >= " + row;
    b.for_("n", "0", "N").for_("h", "0", str(t.th * t.m)).for_("j", "0", str(static_cast<long long>(t.tw) * t.m * O)).if_(outside);
    b.stmt("dyw[n][h][j] = 0.0f").end().end().end().end();
    b.for_("n", "0", "N").for_("h", "0", str(s.height)).for_("j", "0", row);
    b.stmt("dyw[n][h][j] = dy[n][h][j]").end().end().end();
  });
  // dM = A dY Aᵀ (A = (Aᵀ)ᵀ, α × m) of every tile of dyw (Qt: the tile's rows).
  describe_tile_transform(k, t, transposed(winograd_matrices(t.m).at, t.m, t.alpha), t.alpha, t.m, t.whole ? "dy" : "dyw", "Qt",
                          "dM", O);
  // dU = previous + Σ over positions and tiles of V·dM, per (a, b): a reduction over the batch.
  k.nest([=](ScopBuilder& b) {
    b.for_("a", "0", a).for_("b", "0", a).for_("c", "0", str(C)).for_("o", "0", o);
    b.stmt("du[a][b][c][o] = previous[a][b][c][o]");
    b.for_("n", "0", "N").for_("t", "0", str(tiles));
    b.stmt("du[a][b][c][o] += V[n][a][b][t][c] * dM[n][a][b][t][o]").end().end();
    b.end().end().end().end();
  });
  return k;
}

// dw = Gᵀ dU G per filter, separably: Gᵀ over dU's rows (T1 [3][α][C][O]), G over their
// columns (T2 [3][3][C][O]), both with the output channels innermost (the vector loops), then
// T2 copied into dw's order. Work: 3·(α + 3)·C·O floats.
KernelWriter finish_weight_gradient(const std::string& name, const WinogradConvShape& s) {
  const Tiling t(s);
  const int C = s.in_channels, O = s.out_channels;
  const long long filters = static_cast<long long>(C) * O;
  WorkViews work;
  work.add("T1", rows({t.alpha, C, O}), 3LL * t.alpha * filters);
  work.add("T2", rows({3, C, O}), 9 * filters);
  KernelWriter k(name, join({{"du", rows({t.alpha, C, O})},
                             {"g", rows({3})},
                             {"work", "", true},
                             {"dw", rows({C, 3, 3}), true}},
                            work.views()));
  const std::string a = str(t.alpha), c = str(C), o = str(O);
  k.nest([=](ScopBuilder& b) {
    b.for_("i", "0", "3").for_("b", "0", a).for_("c", "0", c).for_("o", "0", o);
    b.stmt("T1[i][b][c][o] = 0.0f").for_("a", "0", a).stmt("T1[i][b][c][o] += g[a][i] * du[a][b][c][o]").end();
    b.end().end().end().end();
  });
  k.nest([=](ScopBuilder& b) {
    b.for_("i", "0", "3").for_("j", "0", "3").for_("c", "0", c).for_("o", "0", o);
    b.stmt("T2[i][j][c][o] = 0.0f").for_("b", "0", a).stmt("T2[i][j][c][o] += g[b][j] * T1[i][b][c][o]").end();
    b.end().end().end().end();
  });
  k.nest([=](ScopBuilder& b) {
    b.for_("o", "0", o).for_("c", "0", c).for_("i", "0", "3").for_("j", "0", "3");
    b.stmt("dw[o][c][i][j] = T2[i][j][c][o]").end().end().end().end();
  });
  return k;
}

}  // namespace

std::vector<float> winograd_filter_transform(int tile) {
  const std::vector<double> g = winograd_matrices(tile).g;
  return {g.begin(), g.end()};
}

std::vector<KernelWriter> winograd_conv_kernels(const WinogradConvShape& s, const std::string& name) {
  if (s.tile < 2 || s.tile > 4) throw std::invalid_argument("winograd kernels: tile " + str(s.tile) + " is not 2, 3 or 4");
  std::vector<KernelWriter> out;
  out.push_back(transform_weights(name + "_transform_weights", s));
  out.push_back(winograd_convolution(name + "_forward", s, "x", "u", "y", s.in_channels, s.out_channels));
  out.push_back(winograd_convolution(name + "_input_gradient", s, "dy", "ut", "dx", s.out_channels, s.in_channels));
  out.push_back(weight_gradient(name + "_weight_gradient", s));
  out.push_back(finish_weight_gradient(name + "_finish_weight_gradient", s));
  return out;
}

std::size_t winograd_weight_floats(const WinogradConvShape& s) {
  const Tiling t(s);
  return static_cast<std::size_t>(t.alpha) * static_cast<std::size_t>(t.alpha) * static_cast<std::size_t>(s.in_channels) *
         static_cast<std::size_t>(s.out_channels);
}

namespace {
// Per position: work floats of the forward, the input gradient and the weight gradient.
long long forward_work(const Tiling& t, const WinogradConvShape& s) {
  return input_transform_floats(t, s.in_channels) + output_transform_floats(t, s.out_channels);
}
long long input_gradient_work(const Tiling& t, const WinogradConvShape& s) {
  return input_transform_floats(t, s.out_channels) + output_transform_floats(t, s.in_channels);
}
long long weight_gradient_work(const Tiling& t, const WinogradConvShape& s) {
  return input_transform_floats(t, s.in_channels) + gradient_transform_floats(t, s.out_channels);
}
}  // namespace

std::size_t winograd_work_floats(const WinogradConvShape& s, int n) {
  const Tiling t(s);
  const long long most = std::max({forward_work(t, s), input_gradient_work(t, s), weight_gradient_work(t, s)});
  // transform_weights's (finish_weight_gradient needs less), called with N = 1
  const long long weights = (18LL + 6LL * t.alpha) * s.in_channels * s.out_channels;
  return static_cast<std::size_t>(std::max(static_cast<long long>(std::max(n, 0)) * most, weights));
}

int winograd_chunk(const WinogradConvShape& s, long bytes, int n) {
  const Tiling t(s);
  const long long board = static_cast<long long>(s.height) * s.width * (s.in_channels + s.out_channels);
  const long long per_position = board + std::max({forward_work(t, s), input_gradient_work(t, s), weight_gradient_work(t, s)});
  const long long fits = bytes / (per_position * static_cast<long long>(sizeof(float)));
  return static_cast<int>(std::clamp<long long>(fits, 1, std::max(n, 1)));
}

}  // namespace pz::nn
