#include "arena/ratings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace pz::arena {
namespace {

constexpr double kNaturalPerElo = 2.302585092994046 / 400.0;  // ln 10 / 400
constexpr double kMinDrawElo = 1.0, kMaxDrawElo = 1500.0;
constexpr double kMaxRatingNatural = 30.0;  // about 5200 Elo from the anchor

double sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

// Dense symmetric positive-definite algebra for the small Newton systems.
using Matrix = std::vector<std::vector<double>>;

bool cholesky(Matrix& a) {  // in place: lower triangle becomes L with a = L Lᵀ
  const std::size_t n = a.size();
  for (std::size_t j = 0; j < n; ++j) {
    double diagonal = a[j][j];
    for (std::size_t k = 0; k < j; ++k) diagonal -= a[j][k] * a[j][k];
    if (!(diagonal > 0)) return false;
    a[j][j] = std::sqrt(diagonal);
    for (std::size_t i = j + 1; i < n; ++i) {
      double sum = a[i][j];
      for (std::size_t k = 0; k < j; ++k) sum -= a[i][k] * a[j][k];
      a[i][j] = sum / a[j][j];
    }
  }
  return true;
}

std::vector<double> cholesky_solve(const Matrix& l, std::vector<double> b) {
  const std::size_t n = l.size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= l[i][k] * b[k];
    b[i] /= l[i][i];
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= l[k][i] * b[k];
    b[i] /= l[i][i];
  }
  return b;
}

// The fit's unknowns: the ratings of the rated players other than the anchor, then the
// advantage and log(draw width) when they are fitted, all in natural log-odds units.
struct Layout {
  std::vector<int> parameter_of_player;  // -1: anchor or unrated
  int advantage = -1, log_draw = -1, size = 0;
  bool has_draws = false;  // among the real games of rated players
};

struct Model {
  const ResultTable& table;
  std::vector<bool> rated;
  double prior_per_result;  // virtual wins (and losses) per colour order of a pair that met
  Layout layout;
  double anchor_natural, fixed_advantage, fixed_draw;

  double rating(const std::vector<double>& theta, int player) const {
    const int p = layout.parameter_of_player[static_cast<std::size_t>(player)];
    return p < 0 ? anchor_natural : theta[static_cast<std::size_t>(p)];
  }
  double advantage(const std::vector<double>& theta) const {
    return layout.advantage < 0 ? fixed_advantage : theta[static_cast<std::size_t>(layout.advantage)];
  }
  double draw(const std::vector<double>& theta) const {
    return layout.log_draw < 0 ? fixed_draw : std::exp(theta[static_cast<std::size_t>(layout.log_draw)]);
  }
  // Each colour order of a pair that met gets a quarter of the prior's games as wins and a
  // quarter as losses.
  double prior(int i, int j) const { return table.games_between(i, j) > 0 ? prior_per_result : 0; }

  template <typename Visit>  // visit(first, second, wins, draws, losses) for every ordered pair with games
  void for_each_cell(Visit&& visit) const {
    const int n = table.players();
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (i == j || !rated[static_cast<std::size_t>(i)] || !rated[static_cast<std::size_t>(j)]) continue;
        const double w = table.wins(i, j) + prior(i, j), d = table.draws(i, j), l = table.losses(i, j) + prior(i, j);
        if (w + d + l > 0) visit(i, j, w, d, l);
      }
    }
  }

  double log_likelihood(const std::vector<double>& theta) const {
    const double a = advantage(theta), d = draw(theta);
    double sum = 0;
    for_each_cell([&](int i, int j, double w, double dr, double l) {
      const double u = rating(theta, i) - rating(theta, j) + a;
      const double pw = sigmoid(u - d), pl = sigmoid(-u - d), pd = sigmoid(u + d) - sigmoid(u - d);
      if (w > 0) sum += w * std::log(pw);
      if (l > 0) sum += l * std::log(pl);
      if (dr > 0) sum += dr * std::log(std::max(pd, 1e-300));
    });
    return sum;
  }

  std::vector<double> gradient(const std::vector<double>& theta) const {
    std::vector<double> g(static_cast<std::size_t>(layout.size), 0.0);
    const double a = advantage(theta), d = draw(theta);
    for_each_cell([&](int i, int j, double w, double dr, double l) {
      const double u = rating(theta, i) - rating(theta, j) + a;
      const double pw = sigmoid(u - d), pl = sigmoid(-u - d), pd = std::max(sigmoid(u + d) - pw, 1e-300);
      const double dw = pw * (1 - pw), dl = pl * (1 - pl);
      const double by_u = w * (1 - pw) - l * (1 - pl) + dr * (dl - dw) / pd;
      const double by_d = -w * (1 - pw) - l * (1 - pl) + dr * (dw + dl) / pd;
      const int pi = layout.parameter_of_player[static_cast<std::size_t>(i)];
      const int pj = layout.parameter_of_player[static_cast<std::size_t>(j)];
      if (pi >= 0) g[static_cast<std::size_t>(pi)] += by_u;
      if (pj >= 0) g[static_cast<std::size_t>(pj)] -= by_u;
      if (layout.advantage >= 0) g[static_cast<std::size_t>(layout.advantage)] += by_u;
      if (layout.log_draw >= 0) g[static_cast<std::size_t>(layout.log_draw)] += by_d * d;
    });
    return g;
  }

  // Minus the Hessian, by central differences of the analytic gradient (symmetrised).
  Matrix information(const std::vector<double>& theta) const {
    const auto n = static_cast<std::size_t>(layout.size);
    Matrix h(n, std::vector<double>(n, 0.0));
    constexpr double kStep = 1e-5;
    for (std::size_t k = 0; k < n; ++k) {
      auto up = theta, down = theta;
      up[k] += kStep;
      down[k] -= kStep;
      const auto gu = gradient(up), gd = gradient(down);
      for (std::size_t r = 0; r < n; ++r) h[r][k] = -(gu[r] - gd[r]) / (2 * kStep);
    }
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t c = 0; c < r; ++c) h[r][c] = h[c][r] = 0.5 * (h[r][c] + h[c][r]);
    }
    return h;
  }

  void clamp(std::vector<double>& theta) const {
    for (std::size_t p = 0; p < theta.size(); ++p) {
      if (static_cast<int>(p) == layout.log_draw) {
        theta[p] = std::clamp(theta[p], std::log(kMinDrawElo * kNaturalPerElo), std::log(kMaxDrawElo * kNaturalPerElo));
      } else {
        theta[p] = std::clamp(theta[p], -kMaxRatingNatural, kMaxRatingNatural);
      }
    }
  }
};

std::vector<bool> connected_to(const ResultTable& table, int anchor) {
  const int n = table.players();
  std::vector<bool> reached(static_cast<std::size_t>(n), false);
  std::vector<int> stack{anchor};
  reached[static_cast<std::size_t>(anchor)] = true;
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    for (int j = 0; j < n; ++j) {
      if (!reached[static_cast<std::size_t>(j)] && table.games_between(i, j) > 0) {
        reached[static_cast<std::size_t>(j)] = true;
        stack.push_back(j);
      }
    }
  }
  return reached;
}

Layout make_layout(const Model& model, const RatingOptions& options) {
  Layout layout;
  const int n = model.table.players();
  layout.parameter_of_player.assign(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    if (i != options.anchor && model.rated[static_cast<std::size_t>(i)]) {
      layout.parameter_of_player[static_cast<std::size_t>(i)] = layout.size++;
    }
  }
  bool both_orders = false;
  double draws = 0, decisive = 0;
  model.for_each_cell([&](int i, int j, double w, double d, double l) {
    both_orders = both_orders || (model.table.games(i, j) > 0 && model.table.games(j, i) > 0);
    draws += d;
    decisive += w + l;
  });
  if (options.fit_advantage && both_orders) layout.advantage = layout.size++;
  if (options.fit_draw && draws > 0 && decisive > 0) layout.log_draw = layout.size++;
  layout.has_draws = draws > 0;
  return layout;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Newton's method with step halving; returns the iterations used.
int maximise(const Model& model, std::vector<double>& theta) {
  double current = model.log_likelihood(theta);
  for (int iteration = 1; iteration <= 200; ++iteration) {
    const auto g = model.gradient(theta);
    if (max_abs(g) < 1e-9) return iteration;
    Matrix info = model.information(theta);
    double damping = 0;
    Matrix l;
    for (;;) {  // Levenberg damping until the system is positive definite
      l = info;
      for (std::size_t k = 0; k < l.size(); ++k) l[k][k] += damping;
      if (cholesky(l)) break;
      damping = damping == 0 ? 1e-6 : damping * 10;
    }
    auto step = cholesky_solve(l, g);
    const double largest = max_abs(step);
    if (largest > 2.0) {
      for (double& s : step) s *= 2.0 / largest;
    }
    bool improved = false;
    for (int halving = 0; halving < 40 && !improved; ++halving) {
      auto trial = theta;
      for (std::size_t k = 0; k < trial.size(); ++k) trial[k] += step[k];
      model.clamp(trial);
      const double value = model.log_likelihood(trial);
      if (value >= current) {
        improved = true;
        double moved = 0;
        for (std::size_t k = 0; k < trial.size(); ++k) moved = std::max(moved, std::abs(trial[k] - theta[k]));
        theta = std::move(trial);
        current = value;
        if (moved < 1e-12) return iteration;
      }
      for (double& s : step) s *= 0.5;
    }
    if (!improved) return iteration;
  }
  return 200;
}

}  // namespace

ResultTable::ResultTable(int players)
    : players_(players), cells_(static_cast<std::size_t>(std::max(players, 0) * std::max(players, 0))) {
  if (players < 0) throw std::invalid_argument("ResultTable: negative number of players");
}

ResultTable::Cell& ResultTable::at(int first, int second) {
  if (first < 0 || second < 0 || first >= players_ || second >= players_ || first == second) {
    throw std::invalid_argument("ResultTable: no pairing " + std::to_string(first) + " vs " + std::to_string(second));
  }
  return cells_[static_cast<std::size_t>(first * players_ + second)];
}

const ResultTable::Cell& ResultTable::at(int first, int second) const {
  return const_cast<ResultTable*>(this)->at(first, second);
}

void ResultTable::add_win(int first, int second, double count) {
  if (count < 0) throw std::invalid_argument("ResultTable: negative count");
  at(first, second).wins += count;
}
void ResultTable::add_draw(int first, int second, double count) {
  if (count < 0) throw std::invalid_argument("ResultTable: negative count");
  at(first, second).draws += count;
}
void ResultTable::add_loss(int first, int second, double count) {
  if (count < 0) throw std::invalid_argument("ResultTable: negative count");
  at(first, second).losses += count;
}

double ResultTable::games(int first, int second) const {
  if (first == second) return 0;
  const Cell& c = at(first, second);
  return c.wins + c.draws + c.losses;
}

double ResultTable::points(int i, int j) const {
  if (i == j) return 0;
  const Cell& as_first = at(i, j);
  const Cell& as_second = at(j, i);
  return as_first.wins + as_second.losses + 0.5 * (as_first.draws + as_second.draws);
}

double ResultTable::total_games(int i) const {
  double sum = 0;
  for (int j = 0; j < players_; ++j) sum += games_between(i, j);
  return sum;
}

double ResultTable::total_points(int i) const {
  double sum = 0;
  for (int j = 0; j < players_; ++j) sum += points(i, j);
  return sum;
}

bool Ratings::rated(int i) const { return !std::isnan(elo.at(static_cast<std::size_t>(i))); }

double Ratings::interval95(int i) const { return 1.959963984540054 * stderr_elo.at(static_cast<std::size_t>(i)); }

double Ratings::likelihood_of_superiority(int i, int j) const {
  if (!rated(i) || !rated(j)) return std::numeric_limits<double>::quiet_NaN();
  const auto a = static_cast<std::size_t>(i), b = static_cast<std::size_t>(j);
  const double gap = elo[a] - elo[b];
  const double variance = covariance[a][a] + covariance[b][b] - 2 * covariance[a][b];
  if (!(variance > 0)) return gap > 0 ? 1.0 : gap < 0 ? 0.0 : 0.5;
  return 0.5 * std::erfc(-gap / std::sqrt(2 * variance));
}

Ratings::Probabilities Ratings::predict(int first, int second) const {
  const double u = (elo.at(static_cast<std::size_t>(first)) - elo.at(static_cast<std::size_t>(second)) + advantage_elo) *
                   kNaturalPerElo;
  const double d = draw_elo * kNaturalPerElo;
  const double win = sigmoid(u - d), loss = sigmoid(-u - d);
  return {win, 1 - win - loss, loss};
}

Ratings fit_ratings(const ResultTable& results, const RatingOptions& options) {
  const int n = results.players();
  if (options.anchor < 0 || options.anchor >= n) {
    throw std::invalid_argument("fit_ratings: anchor " + std::to_string(options.anchor) + " is not a player");
  }
  Model model{results, connected_to(results, options.anchor), options.prior_games / 4, {},
              options.anchor_elo * kNaturalPerElo, options.advantage_elo * kNaturalPerElo,
              std::clamp(options.draw_elo, kMinDrawElo, kMaxDrawElo) * kNaturalPerElo};
  model.layout = make_layout(model, options);
  // Games that never end drawn are fitted as plain Bradley–Terry (the narrowest draw band).
  if (!model.layout.has_draws) model.fixed_draw = kMinDrawElo * kNaturalPerElo;
  std::vector<double> theta(static_cast<std::size_t>(model.layout.size), model.anchor_natural);
  if (model.layout.advantage >= 0) theta[static_cast<std::size_t>(model.layout.advantage)] = model.fixed_advantage;
  if (model.layout.log_draw >= 0) theta[static_cast<std::size_t>(model.layout.log_draw)] = std::log(model.fixed_draw);

  Ratings ratings;
  ratings.iterations = maximise(model, theta);
  ratings.log_likelihood = model.log_likelihood(theta);
  ratings.advantage_elo = model.advantage(theta) / kNaturalPerElo;
  ratings.draw_elo = model.draw(theta) / kNaturalPerElo;
  ratings.advantage_fitted = model.layout.advantage >= 0;
  ratings.draw_fitted = model.layout.log_draw >= 0;

  // Covariance: the inverse information; a draw width pinned at its bound counts as fixed.
  Matrix info = model.information(theta);
  auto size = static_cast<std::size_t>(model.layout.size);
  if (model.layout.log_draw >= 0) {
    const double d_elo = ratings.draw_elo;
    if (d_elo <= kMinDrawElo * 1.0001 || d_elo >= kMaxDrawElo * 0.9999) {
      info.pop_back();
      for (auto& row : info) row.pop_back();
      --size;
    }
  }
  Matrix inverse(size, std::vector<double>(size, 0.0));
  Matrix l = info;
  double ridge = 0;
  while (!cholesky(l)) {
    ridge = ridge == 0 ? 1e-9 : ridge * 10;
    l = info;
    for (std::size_t k = 0; k < size; ++k) l[k][k] += ridge;
  }
  for (std::size_t k = 0; k < size; ++k) {
    std::vector<double> unit(size, 0.0);
    unit[k] = 1;
    const auto column = cholesky_solve(l, unit);
    for (std::size_t r = 0; r < size; ++r) inverse[r][k] = column[r];
  }

  const auto players = static_cast<std::size_t>(n);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double elo_per_natural_sq = 1.0 / (kNaturalPerElo * kNaturalPerElo);
  ratings.elo.assign(players, nan);
  ratings.stderr_elo.assign(players, nan);
  ratings.covariance.assign(players, std::vector<double>(players, 0.0));
  for (int i = 0; i < n; ++i) {
    if (!model.rated[static_cast<std::size_t>(i)]) continue;
    ratings.elo[static_cast<std::size_t>(i)] = model.rating(theta, i) / kNaturalPerElo;
    const int pi = model.layout.parameter_of_player[static_cast<std::size_t>(i)];
    for (int j = 0; j < n; ++j) {
      const int pj = model.layout.parameter_of_player[static_cast<std::size_t>(j)];
      if (pi >= 0 && pj >= 0 && model.rated[static_cast<std::size_t>(j)]) {
        ratings.covariance[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] =
            inverse[static_cast<std::size_t>(pi)][static_cast<std::size_t>(pj)] * elo_per_natural_sq;
      }
    }
    ratings.stderr_elo[static_cast<std::size_t>(i)] =
        std::sqrt(std::max(0.0, ratings.covariance[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)]));
  }
  return ratings;
}

double expected_score(double elo_gap) { return 1.0 / (1.0 + std::pow(10.0, -elo_gap / 400.0)); }

double elo_gap_of_score(double score) {
  if (!(score > 0 && score < 1)) throw std::invalid_argument("elo_gap_of_score: a score strictly between 0 and 1");
  return -400.0 * std::log10(1.0 / score - 1.0);
}

}  // namespace pz::arena
