#include "nn/poly/winograd.h"

#include <cstdio>
#include <stdexcept>

#include "util/error.h"

namespace pz::nn {

namespace {

// Coefficients (lowest power first) of ∏ (x − p) over `roots`.
std::vector<double> polynomial_with_roots(const std::vector<double>& roots) {
  std::vector<double> c{1.0};
  for (double p : roots) {
    std::vector<double> next(c.size() + 1, 0.0);
    for (std::size_t i = 0; i < c.size(); ++i) {
      next[i + 1] += c[i];
      next[i] -= p * c[i];
    }
    c = next;
  }
  return c;
}

double power(double x, int n) {
  double r = 1;
  for (int i = 0; i < n; ++i) r *= x;
  return r;
}

}  // namespace

WinogradMatrices winograd_matrices(int m) {
  if (m < 2 || m > 4) throw std::invalid_argument("winograd: tile " + std::to_string(m) + " is not 2, 3 or 4");
  constexpr int r = 3;
  const double all_points[] = {0, 1, -1, 2, -2};
  WinogradMatrices w;
  w.m = m;
  w.alpha = m + r - 1;
  const int a = w.alpha, finite = a - 1;
  const std::vector<double> p(all_points, all_points + finite);
  w.at.assign(static_cast<std::size_t>(m * a), 0.0);
  w.g.assign(static_cast<std::size_t>(a * r), 0.0);
  w.bt.assign(static_cast<std::size_t>(a * a), 0.0);
  for (int j = 0; j < finite; ++j) {
    std::vector<double> others;
    double denominator = 1;
    for (int l = 0; l < finite; ++l)
      if (l != j) others.push_back(p[static_cast<std::size_t>(l)]), denominator *= p[static_cast<std::size_t>(j)] - p[static_cast<std::size_t>(l)];
    for (int i = 0; i < m; ++i) w.at[static_cast<std::size_t>(i * a + j)] = power(p[static_cast<std::size_t>(j)], i);
    for (int k = 0; k < r; ++k) w.g[static_cast<std::size_t>(j * r + k)] = power(p[static_cast<std::size_t>(j)], k) / denominator;
    const std::vector<double> basis = polynomial_with_roots(others);  // degree alpha − 2
    for (std::size_t i = 0; i < basis.size(); ++i) w.bt[static_cast<std::size_t>(j * a) + i] = basis[i];
  }
  // The point at infinity: the leading coefficients.
  w.at[static_cast<std::size_t>((m - 1) * a + finite)] = 1;
  w.g[static_cast<std::size_t>(finite * r + r - 1)] = 1;
  const std::vector<double> all = polynomial_with_roots(p);  // degree alpha − 1
  for (std::size_t i = 0; i < all.size(); ++i) w.bt[static_cast<std::size_t>(finite * a) + i] = all[i];
  return w;
}

// Per position, in multiply-adds: the product in the transformed domain, tiles × alpha² × C × K
// (the tiles cover ceil(H/m) × ceil(W/m), so a board that m does not divide pays for the
// padding), and the two transforms as nn/poly/network.cpp describes them (each a separable
// pass over rows then columns; a row of Bᵀ or Aᵀ sums over all its entries but the zeros
// at the ends), weighted by kTransformWeight: a transform loads one vector per
// multiply-add and streams its tiles through L2, where the product reuses each load across
// a register block. The weight is fitted to `polyzero bench nn` on Go 9×9 (48 channels)
// and Connect Four (32 channels). Winograd is chosen when the best tile is modelled below
// kMargin of the direct convolution, the rest of the model's error.
WinogradChoice choose_winograd_tile(int h, int w, int c, int k) {
  constexpr double kTransformWeight = 4.0, kMargin = 0.9;
  const double direct = 9.0 * h * w * c * k;
  WinogradChoice best;
  best.reason = "direct: no tile size is modelled cheaper";
  double best_cost = direct * kMargin;
  for (int m = 2; m <= 4; ++m) {
    const int a = m + 2, th = (h + m - 1) / m, tw = (w + m - 1) / m, tiles = th * tw, wp = tw * m + 2;
    const double row_b = 2.0 * (a - 1) + static_cast<double>(a - 2) * (a - 2);  // nonzero span of Bᵀ's rows, summed
    const double row_a = (2.0 * (a - 1) + static_cast<double>(m - 2) * (a - 2)) / m;  // of Aᵀ's, averaged
    const double product = static_cast<double>(a) * a * tiles * c * k;
    const double input = c * (row_b * th * wp + row_b * a * tiles);
    const double output = k * (static_cast<double>(h) * tw * a * row_a + static_cast<double>(h) * w * row_a);
    const double cost = product + kTransformWeight * (input + output);
    if (cost < best_cost) {
      best_cost = cost;
      best.m = m;
    }
  }
  best.cost = best.m ? best_cost / direct : 1.0;
  if (best.m) {
    const int m = best.m, tiles = ((h + m - 1) / m) * ((w + m - 1) / m);
    char text[200];
    std::snprintf(text, sizeof text, "F(%dx%d,3x3): %d tiles of %dx%d, %.2fx the direct multiplies, modelled cost %.2f of direct",
                  m, m, tiles, m + 2, m + 2, static_cast<double>(tiles) * (m + 2) * (m + 2) / (9.0 * h * w), best.cost);
    best.reason = text;
  }
  return best;
}

int parse_winograd_mode(const std::string& mode, const std::string& where) {
  if (mode == "auto") return kWinogradAuto;
  if (mode == "off") return 0;
  if (mode == "2" || mode == "3" || mode == "4") return mode[0] - '0';
  throw util::UsageError(where + " is \"" + mode + "\"; expected auto, off, 2, 3 or 4");
}

}  // namespace pz::nn
