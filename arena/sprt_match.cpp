#include "arena/sprt_match.h"

#include <map>

#include "arena/tournament.h"
#include "util/error.h"

namespace pz::arena {
namespace {

// Pairs whose two games are both stored, as the tested player's outcomes.
class PairCollector {
 public:
  explicit PairCollector(std::string tested) : tested_(std::move(tested)) {}

  // True when `game` completed a pair.
  bool add(const StoredGame& game) {
    const Outcome first = game.result == "1-0" ? Outcome::kWin : game.result == "0-1" ? Outcome::kLoss : Outcome::kDraw;
    const Outcome mine = game.first_player == tested_ ? first
                         : first == Outcome::kWin     ? Outcome::kLoss
                         : first == Outcome::kLoss    ? Outcome::kWin
                                                      : Outcome::kDraw;
    auto& pair = halves_[game.round / 2];
    pair[game.round % 2] = mine;
    if (pair.size() < 2) return false;
    counts_.add_pair(pair.at(0), pair.at(1));
    return true;
  }
  const Pentanomial& counts() const { return counts_; }

 private:
  std::string tested_;
  std::map<int, std::map<int, Outcome>> halves_;
  Pentanomial counts_;
};

}  // namespace

SprtMatchResult play_sprt(const games::Game& game, const SprtMatchOptions& options, TournamentDb& db,
                          const std::atomic<bool>& stop, const std::function<void(const SprtMatchResult&)>& on_pair) {
  validate(options.sprt);
  if (options.tested == options.baseline) {
    throw util::UsageError("the tested and the baseline player are the same; an SPRT compares two players");
  }
  TournamentOptions t;
  t.players = {options.tested, options.baseline};
  t.games_per_pairing = 2 * options.max_pairs;
  t.concurrency = options.concurrency;
  t.openings = options.openings;
  t.seed = options.seed;
  t.max_moves = options.max_moves;
  Tournament tournament(game, std::move(t), db);
  PairCollector pairs(options.tested);
  for (const auto& g : tournament.games()) pairs.add(g);
  SprtMatchResult result{pairs.counts(), sprt_status(pairs.counts(), options.sprt)};
  if (result.status.decision != SprtDecision::kContinue) return result;
  tournament.run(stop, [&](const StoredGame& g) {
    if (!pairs.add(g)) return true;
    result = {pairs.counts(), sprt_status(pairs.counts(), options.sprt)};
    if (on_pair) on_pair(result);
    return result.status.decision == SprtDecision::kContinue;
  });
  return result;
}

}  // namespace pz::arena
