#include "arena/tournament_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace pz::arena {
namespace {

std::string format(const char* pattern, auto... values) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, pattern, values...);
  return buffer;
}

std::string points_text(double points) {
  return std::abs(points - std::round(points)) < 1e-9 ? format("%.0f", points) : format("%.1f", points);
}

double wins_of(const ResultTable& t, int i) {
  double sum = 0;
  for (int j = 0; j < t.players(); ++j) {
    if (j != i) sum += t.wins(i, j) + t.losses(j, i);
  }
  return sum;
}

double draws_of(const ResultTable& t, int i) {
  double sum = 0;
  for (int j = 0; j < t.players(); ++j) {
    if (j != i) sum += t.draws(i, j) + t.draws(j, i);
  }
  return sum;
}

std::vector<int> by_points(const ResultTable& results) {
  std::vector<int> order(static_cast<std::size_t>(results.players()));
  std::iota(order.begin(), order.end(), 0);
  const auto share = [&](int i) {
    const double games = results.total_games(i);
    return games > 0 ? results.total_points(i) / games : -1.0;
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return share(a) > share(b); });
  return order;
}

}  // namespace

std::vector<int> RatingReport::ranking() const {
  std::vector<int> order = by_points(results);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (ratings.rated(a) != ratings.rated(b)) return ratings.rated(a);
    if (!ratings.rated(a)) return false;
    return ratings.elo[static_cast<std::size_t>(a)] > ratings.elo[static_cast<std::size_t>(b)];
  });
  return order;
}

RatingReport make_rating_report(std::vector<std::string> players, const ResultTable& results,
                                const RatingOptions& options) {
  RatingReport report;
  report.players = std::move(players);
  report.results = results;
  report.options = options;
  report.ratings = fit_ratings(results, options);
  return report;
}

std::string rating_table_text(const RatingReport& r) {
  std::size_t width = 6;
  for (const auto& p : r.players) width = std::max(width, std::min<std::size_t>(p.size(), 48));
  std::string out = format("%4s  %-*s %7s %8s %6s %6s %6s %6s\n", "Rank", static_cast<int>(width), "Player", "Elo",
                           "+-95%", "Games", "Score", "Draws", "LOS");
  const auto order = r.ranking();
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    const double games = r.results.total_games(i);
    const std::string name = r.players[static_cast<std::size_t>(i)].substr(0, 48);
    std::string elo = "-", interval = "-", los = "";
    if (r.ratings.rated(i)) {
      elo = format("%.0f", r.ratings.elo[static_cast<std::size_t>(i)]);
      interval = i == r.options.anchor ? "anchor" : format("%.0f", r.ratings.interval95(i));
      if (k + 1 < order.size() && r.ratings.rated(order[k + 1])) {
        los = format("%.1f%%", 100 * r.ratings.likelihood_of_superiority(i, order[k + 1]));
      }
    }
    const std::string score = games > 0 ? format("%.1f%%", 100 * r.results.total_points(i) / games) : "-";
    const std::string draws = games > 0 ? format("%.1f%%", 100 * draws_of(r.results, i) / games) : "-";
    out += format("%4zu  %-*s %7s %8s %6.0f %6s %6s %6s\n", k + 1, static_cast<int>(width), name.c_str(), elo.c_str(),
                  interval.c_str(), games, score.c_str(), draws.c_str(), los.c_str());
  }
  out += "Elo relative to " + r.players[static_cast<std::size_t>(r.options.anchor)] + " = " +
         format("%.0f", r.options.anchor_elo) + "; ";
  out += format("first-move advantage %+.0f (%s), draw band %.0f (%s); ", r.ratings.advantage_elo,
                r.ratings.advantage_fitted ? "fitted" : "fixed", r.ratings.draw_elo,
                r.ratings.draw_fitted ? "fitted" : "fixed");
  out += "LOS: likelihood of superiority over the next player\n";
  return out;
}

std::string crosstable_text(const RatingReport& r) {
  const auto order = r.ranking();
  std::size_t width = 6;
  for (const auto& p : r.players) width = std::max(width, std::min<std::size_t>(p.size(), 48));
  std::string out = format("%4s  %-*s", "", static_cast<int>(width), "");
  for (std::size_t k = 0; k < order.size(); ++k) out += format(" %9zu", k + 1);
  out += "\n";
  for (std::size_t row = 0; row < order.size(); ++row) {
    const int i = order[row];
    out += format("%4zu  %-*s", row + 1, static_cast<int>(width), r.players[static_cast<std::size_t>(i)].substr(0, 48).c_str());
    for (const int j : order) {
      const double games = i == j ? 0 : r.results.games_between(i, j);
      const std::string cell =
          i == j ? "-" : games > 0 ? points_text(r.results.points(i, j)) + "/" + points_text(games) : "";
      out += format(" %9s", cell.c_str());
    }
    out += "\n";
  }
  return out;
}

std::string standings_line(const std::vector<std::string>& players, const ResultTable& results) {
  std::string out;
  for (const int i : by_points(results)) {
    const double games = results.total_games(i);
    if (games <= 0) continue;
    if (!out.empty()) out += " | ";
    out += players[static_cast<std::size_t>(i)] + " " + points_text(results.total_points(i)) + "/" + points_text(games);
  }
  return out;
}

nlohmann::json rating_report_json(const RatingReport& r) {
  const auto number_or_null = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json players = nlohmann::json::array();
  const auto order = r.ranking();
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    const auto s = static_cast<std::size_t>(i);
    nlohmann::json p{{"rank", k + 1},
                     {"player", r.players[s]},
                     {"elo", number_or_null(r.ratings.elo[s])},
                     {"interval95", number_or_null(r.ratings.rated(i) ? r.ratings.interval95(i) : NAN)},
                     {"stderr", number_or_null(r.ratings.stderr_elo[s])},
                     {"games", r.results.total_games(i)},
                     {"points", r.results.total_points(i)},
                     {"wins", wins_of(r.results, i)},
                     {"draws", draws_of(r.results, i)},
                     {"losses", r.results.total_games(i) - wins_of(r.results, i) - draws_of(r.results, i)}};
    p["los_next"] = k + 1 < order.size() ? number_or_null(r.ratings.likelihood_of_superiority(i, order[k + 1]))
                                         : nlohmann::json(nullptr);
    players.push_back(p);
  }
  nlohmann::json cross = nlohmann::json::array();
  for (int i = 0; i < r.results.players(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int j = 0; j < r.results.players(); ++j) {
      row.push_back(i == j ? nlohmann::json(nullptr)
                           : nlohmann::json{{"points", r.results.points(i, j)}, {"games", r.results.games_between(i, j)}});
    }
    cross.push_back(row);
  }
  return {{"ratings", players},
          {"anchor", {{"player", r.players[static_cast<std::size_t>(r.options.anchor)]}, {"elo", r.options.anchor_elo}}},
          {"advantage_elo", r.ratings.advantage_elo},
          {"advantage_fitted", r.ratings.advantage_fitted},
          {"draw_elo", r.ratings.draw_elo},
          {"draw_fitted", r.ratings.draw_fitted},
          {"prior_games", r.options.prior_games},
          {"players", r.players},
          {"crosstable", cross}};
}

}  // namespace pz::arena
