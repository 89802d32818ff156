// What a tournament prints: the rating table (Elo with 95% intervals, games, score, draws,
// likelihood of superiority over the next player), the crosstable, a one-line standing for
// progress lines, and the same as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "arena/ratings.h"

namespace pz::arena {

struct RatingReport {
  std::vector<std::string> players;  // specs, by position
  ResultTable results{0};
  Ratings ratings;
  RatingOptions options;

  // Positions sorted by rating (best first; unrated players last, by points).
  std::vector<int> ranking() const;
};

// Fits the ratings of `results` with `options` and keeps what the reports need.
RatingReport make_rating_report(std::vector<std::string> players, const ResultTable& results,
                                const RatingOptions& options);

std::string rating_table_text(const RatingReport& report);
// Points of each row player against each column player ("7.5/10"), players in rank order.
std::string crosstable_text(const RatingReport& report);
// "uct:sims=1600 9.5/10 · uct:sims=400 6/10 · random 0.5/10" by points, best first.
std::string standings_line(const std::vector<std::string>& players, const ResultTable& results);

nlohmann::json rating_report_json(const RatingReport& report);

}  // namespace pz::arena
