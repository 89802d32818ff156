#include "mcts/move_choice.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pz::mcts {
namespace {

bool is_proven_loss(const SearchReport& r, const ChildReport& c) {
  return r.win_loss && c.proven && c.proven_value <= r.value_low;
}
bool is_proven_win(const SearchReport& r, const ChildReport& c) {
  return r.win_loss && c.proven && c.proven_value >= r.value_high;
}
bool better_by_visits(const ChildReport& a, const ChildReport& b) {
  if (a.visits != b.visits) return a.visits > b.visits;
  if (a.q != b.q) return a.q > b.q;
  return a.prior > b.prior;
}

}  // namespace

double TemperatureSchedule::at(int move_number) const {
  if (halflife > 0) return final + (initial - final) * std::exp2(-static_cast<double>(move_number) / halflife);
  return move_number < moves ? initial : final;
}

games::Action choose_move(const SearchReport& report, const MoveSelection& selection, int move_number, util::Rng& rng) {
  const auto& children = report.children;
  if (children.empty()) throw std::logic_error("choose_move: the search has no root children (was it run?)");

  // A proven win is played whatever the statistics say (the most visited of them).
  const ChildReport* win = nullptr;
  for (const auto& c : children) {
    if (is_proven_win(report, c) && (!win || better_by_visits(c, *win))) win = &c;
  }
  if (win) return win->action;

  std::vector<const ChildReport*> candidates;
  for (const auto& c : children) {
    if (!is_proven_loss(report, c)) candidates.push_back(&c);
  }
  if (candidates.empty()) {
    for (const auto& c : children) candidates.push_back(&c);  // lost anyway: resist the longest we know
  }

  const double t = selection.temperature.at(move_number);
  if (t > 1e-3) {
    int max_visits = 0;
    for (const auto* c : candidates) max_visits = std::max(max_visits, c->visits);
    if (max_visits > 0) {
      std::vector<double> weights;
      double total = 0;
      for (const auto* c : candidates) {
        // N^(1/T) relative to the largest: no overflow at small temperatures.
        const double w = c->visits > 0 ? std::exp(std::log(static_cast<double>(c->visits) / max_visits) / t) : 0.0;
        weights.push_back(w);
        total += w;
      }
      double u = rng.uniform() * total;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (u < weights[i]) return candidates[i]->action;
        u -= weights[i];
      }
      for (std::size_t i = candidates.size(); i-- > 0;) {
        if (weights[i] > 0) return candidates[i]->action;
      }
    }
  }

  const ChildReport* best = candidates.front();
  for (const auto* c : candidates) {
    if (better_by_visits(*c, *best)) best = c;
  }
  if (selection.method == MoveSelection::Method::kLcb) {
    const double min_visits = std::max(1.0, selection.lcb_min_visit_fraction * best->visits);
    const ChildReport* lcb_best = nullptr;
    double lcb_best_value = 0;
    for (const auto* c : candidates) {
      if (c->visits < min_visits) continue;
      const double scale = report.value_high > report.value_low ? report.value_high - report.value_low : 1.0;
      const double lcb = c->proven ? (c->proven_value - report.value_low) / scale
                                   : c->q_normalized - selection.lcb_z * c->stddev / std::sqrt(static_cast<double>(c->visits));
      if (!lcb_best || lcb > lcb_best_value) {
        lcb_best = c;
        lcb_best_value = lcb;
      }
    }
    if (lcb_best) best = lcb_best;
  }
  return best->action;
}

std::vector<std::pair<games::Action, float>> policy_target(const SearchReport& report, const SearchConfig& config,
                                                           bool prune_forced_playouts) {
  const auto& children = report.children;
  // A proven win is the move to learn whatever the visits: a position proven on arrival
  // (an immediate win found at expansion) has none.
  std::size_t wins = 0;
  for (const auto& c : children) wins += is_proven_win(report, c) ? 1 : 0;
  if (wins > 0) {
    std::vector<std::pair<games::Action, float>> target;
    for (const auto& c : children) {
      target.emplace_back(c.action, is_proven_win(report, c) ? 1.0f / static_cast<float>(wins) : 0.0f);
    }
    return target;
  }
  std::vector<double> visits;
  double total = 0;
  for (const auto& c : children) total += c.visits;
  const ChildReport* best = report.most_visited();
  const double explore = config.puct_exploration(total);
  const double best_score = best ? best->q_normalized + explore * best->prior / (1.0 + best->visits) : 0;
  double kept = 0;
  for (const auto& c : children) {
    double n = c.visits;
    if (prune_forced_playouts && &c != best && n > 0) {
      const double forced = std::sqrt(config.forced_playout_k * c.prior * total);
      const double gap = best_score - c.q_normalized;
      if (gap > 0) {
        // The fewest visits that keep c's PUCT score at or below the best child's.
        const double needed = std::ceil(explore * c.prior / gap - 1.0);
        n = std::min(n, std::max(n - forced, needed));
        if (n <= 1) n = 0;
      }
    }
    visits.push_back(n);
    kept += n;
  }
  std::vector<std::pair<games::Action, float>> target;
  for (std::size_t i = 0; i < children.size(); ++i) {
    const double p = kept > 0 ? visits[i] / kept : 1.0 / static_cast<double>(children.size());
    target.emplace_back(children[i].action, static_cast<float>(p));
  }
  return target;
}

}  // namespace pz::mcts
