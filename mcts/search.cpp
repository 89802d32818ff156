#include "mcts/search.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "mcts/dirichlet.h"

namespace pz::mcts {
namespace {

using games::Action;

constexpr double kInf = std::numeric_limits<double>::infinity();
// Simulations a thread claims at once when several share a tree (see claim_simulation).
constexpr int kSimulationChunk = 8;
// A burst's path only takes nodes with at least this many times the burst's simulations in
// visits, so that its held virtual losses and unpublished visits stay a small part of theirs.
// A burst is at least two simulations long (one is an ordinary simulation). How 4, 8 and 16
// compare: docs/BENCHMARKS.md, "Search bursts".
constexpr int kBurstVisitsPerSimulation = 8;
// A proven loss scores this much less than its value in PUCT selection: more than any score
// can differ, so it is selected only when every move loses.
constexpr double kProvenLossPenalty = 1e6;

// A node whose position has ended: exact, with the game's returns.
void expand_terminal(Node& node, const std::vector<double>& returns) {
  node.kind = NodeKind::kTerminal;
  node.proven_value.store(static_cast<float>(returns[static_cast<std::size_t>(node.value_player)]), std::memory_order_relaxed);
  node.proven.store(1, std::memory_order_release);
  node.status.store(NodeStatus::kExpanded, std::memory_order_release);
}

void copy_stats(const Node& from, Node& to) {
  to.action = from.action;
  to.prior = from.prior;
  to.value_player = from.value_player;
  to.kind = from.kind;
  to.mover = from.mover;
  to.num_children = from.num_children;
  to.split = from.split;
  to.eval_value = from.eval_value;
  to.children = nullptr;
  to.status.store(from.status.load(std::memory_order_relaxed), std::memory_order_relaxed);
  to.proven.store(from.proven.load(std::memory_order_relaxed), std::memory_order_relaxed);
  to.proven_value.store(from.proven_value.load(std::memory_order_relaxed), std::memory_order_relaxed);
  to.visits.store(from.visits.load(std::memory_order_relaxed), std::memory_order_relaxed);
  to.in_flight.store(0, std::memory_order_relaxed);
  to.value_sum.store(from.value_sum.load(std::memory_order_relaxed), std::memory_order_relaxed);
  to.value_sq_sum.store(from.value_sq_sum.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void validate(const SearchConfig& c) {
  if (c.simulations <= 0 && c.max_visits <= 0 && c.max_seconds <= 0) {
    throw std::invalid_argument("search config: no budget (simulations, max_visits or max_seconds must be set)");
  }
  if (c.threads < 1 || c.leaves_per_batch < 1) throw std::invalid_argument("search config: threads and leaves_per_batch must be >= 1");
}

}  // namespace

Search::Search(const games::Game& game, SearchConfig config, std::uint64_t seed)
    : game_(game), config_(config), rng_(seed), noise_rng_(seed ^ 0x5DEECE66DULL), num_players_(game.info().num_players),
      return_lo_(game.info().min_return), return_hi_(game.info().max_return) {
  validate(config_);
  if (num_players_ > kMaxPlayers) throw std::invalid_argument("search: more than 8 players");
  solvable_ = num_players_ == 1 ||
              (num_players_ == 2 && game.info().zero_sum && std::abs(return_lo_ + return_hi_) < 1e-9);
}

void Search::set_config(const SearchConfig& config) {
  validate(config);
  config_ = config;
}

// --- Root management -----------------------------------------------------------------

void Search::new_root() {
  arenas_[0].clear();
  arenas_[1].clear();
  live_ = 0;
  root_ = arenas_[live_].allocate(1);
  const games::Player mover = root_state_->current_player();
  root_->reset(games::kInvalidAction, 1.0f, mover >= 0 ? mover : 0);
  noised_root_ = nullptr;
  root_visits_at_begin_ = 0;
  min_seen_.store(0, std::memory_order_relaxed);
  max_seen_.store(0, std::memory_order_relaxed);
  seen_any_.store(false, std::memory_order_relaxed);
}

void Search::set_root(const games::State& state) {
  if (root_state_ && root_state_->hash() == state.hash() && root_state_->move_number() == state.move_number() &&
      root_state_->current_player() == state.current_player()) {
    return;
  }
  root_state_ = state.clone();
  new_root();
}

void Search::clear_tree() {
  if (root_state_) new_root();
}

Node* Search::copy_subtree(const Node& from, Node* to, NodeArena& arena) {
  copy_stats(from, *to);
  if (from.status.load(std::memory_order_relaxed) != NodeStatus::kExpanded || from.num_children == 0) {
    if (from.status.load(std::memory_order_relaxed) == NodeStatus::kExpanding) to->status.store(NodeStatus::kLeaf);
    return to;
  }
  Node* children = arena.allocate(from.num_children);
  to->children = children;
  for (int i = 0; i < from.num_children; ++i) copy_subtree(from.children[i], children + i, arena);
  return to;
}

void Search::reroot(Node* child) {
  NodeArena& target = arenas_[1 - live_];
  target.clear();
  Node* root = target.allocate(1);
  copy_subtree(*child, root, target);
  arenas_[live_].clear();
  live_ = 1 - live_;
  root_ = root;
  noised_root_ = nullptr;
  root_visits_at_begin_ = root_->visits.load(std::memory_order_relaxed);
}

void Search::advance(Action action) {
  if (!root_state_) throw std::logic_error("search: advance() before set_root()");
  Node* next = nullptr;
  if (config_.reuse_tree && root_->is_expanded() &&
      (root_->kind == NodeKind::kDecision || root_->kind == NodeKind::kChance)) {
    for (int i = 0; i < root_->num_children; ++i) {
      if (root_->children[i].action == action) next = root_->children + i;
    }
  }
  root_state_->apply_action(action);
  if (next) {
    reroot(next);
  } else {
    new_root();
  }
}

void Search::advance_joint(std::span<const Action> actions) {
  if (!root_state_) throw std::logic_error("search: advance_joint() before set_root()");
  Node* next = nullptr;
  if (config_.reuse_tree && root_->is_expanded() && root_->kind == NodeKind::kSimultaneous && actions.size() == 2) {
    int idx[2] = {-1, -1};
    for (int seat = 0; seat < 2; ++seat) {
      const Node* m = root_->marginals(seat);
      for (int i = 0; i < root_->marginal_count(seat); ++i) {
        if (m[i].action == actions[static_cast<std::size_t>(seat)]) idx[seat] = i;
      }
    }
    if (idx[0] >= 0 && idx[1] >= 0) next = root_->joint_child(idx[0], idx[1]);
  }
  root_state_->apply_joint_action(std::vector<Action>(actions.begin(), actions.end()));
  if (next) {
    reroot(next);
  } else {
    new_root();
  }
}

// --- Budget --------------------------------------------------------------------------

void Search::begin() {
  if (!root_state_) throw std::logic_error("search: begin() before set_root()");
  if (root_state_->is_terminal()) throw std::logic_error("search: the root position is terminal");
  sims_started_.store(0, std::memory_order_relaxed);
  root_visits_at_begin_ = root_->visits.load(std::memory_order_relaxed);
  collisions_.store(0, std::memory_order_relaxed);
  bursts_run_.store(0, std::memory_order_relaxed);
  start_ = std::chrono::steady_clock::now();
  // max_visits becomes a simulation count here, so that no thread reads the root's visits
  // while searching (run() defers them, see backup).
  limit_simulations_ = config_.simulations > 0 || config_.max_visits > 0;
  simulation_limit_ = config_.simulations > 0 ? config_.simulations : std::numeric_limits<std::int64_t>::max();
  if (config_.max_visits > 0) {
    simulation_limit_ = std::min(simulation_limit_, std::max<std::int64_t>(0, config_.max_visits - root_visits_at_begin_));
  }
  has_deadline_ = config_.max_seconds > 0;
  if (has_deadline_) {
    deadline_ = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(config_.max_seconds));
  }
  noise_active_ = config_.root_noise;
  if (noise_active_) noise_rng_.seed(rng_());
  // A root kept from the previous move is already expanded: noise its priors now, while
  // no other thread reads them. A fresh root is noised when it is expanded.
  if (noise_active_ && noised_root_ != root_ && root_->is_expanded() && root_->kind == NodeKind::kDecision) {
    apply_root_noise(root_->children, root_->num_children);
  }
}

bool Search::budget_open() const {
  if (config_.stop_when_proven && root_->is_proven()) return false;
  if (has_deadline_ && std::chrono::steady_clock::now() >= deadline_) return false;
  if (stop_ && stop_->load(std::memory_order_relaxed)) return false;
  return true;
}

bool Search::budget_left() const {
  if (limit_simulations_ && sims_started_.load(std::memory_order_relaxed) >= simulation_limit_) return false;
  return budget_open();
}

bool Search::claim_simulation(int& reserved, int chunk) {
  if (!limit_simulations_) return true;  // no count to keep: the other limits decide
  if (reserved > 0) {
    --reserved;
    return true;
  }
  const std::int64_t before = sims_started_.fetch_add(chunk, std::memory_order_relaxed);
  const std::int64_t granted = std::clamp<std::int64_t>(simulation_limit_ - before, 0, chunk);
  if (granted < chunk) sims_started_.fetch_sub(chunk - granted, std::memory_order_relaxed);
  if (granted == 0) return false;
  reserved = static_cast<int>(granted) - 1;
  return true;
}

Search::Bounds Search::bounds() const {
  if (num_players_ != 1) return {return_lo_, return_hi_};
  if (!seen_any_.load(std::memory_order_relaxed)) return {0, 0};
  return {min_seen_.load(std::memory_order_relaxed), max_seen_.load(std::memory_order_relaxed)};
}

void Search::apply_root_noise(Node* children, int count) {
  if (count <= 1) return;
  const double alpha = std::min(config_.noise_alpha_max, config_.noise_alpha_total / count);
  std::vector<double> eta(static_cast<std::size_t>(count));
  sample_dirichlet(alpha, eta, noise_rng_);
  const double f = config_.noise_fraction;
  for (int i = 0; i < count; ++i) {
    children[i].prior = static_cast<float>((1.0 - f) * children[i].prior + f * eta[static_cast<std::size_t>(i)]);
  }
  noised_root_ = root_;
}

// --- Selection -----------------------------------------------------------------------

// The PUCT terms of a decision node's children, read once per selection: the score of each
// child (AlphaZero's PUCT with first-play urgency as in Leela and KataGo, virtual loss for
// children other threads are descending into, proven values when the solver is on), the
// sums first-play urgency needs, and the best child so far.
class Search::ChildScores {
 public:
  ChildScores(const Search& search, const Node& node, bool at_root)
      : search_(search),
        node_(node),
        b_(search.bounds()),
        vl_(search.config_.virtual_loss),
        use_solver_(search.config_.solver && search.solvable_),
        norm_(b_.affine()),
        loss_value_(vl_ * b_.lo),
        fpu_reduction_(at_root ? search.config_.fpu_reduction_root : search.config_.fpu_reduction),
        best_(node.children) {}

  // Adds a child to the sums: the parent's value for its mover is its own evaluation
  // averaged with its children's, reduced by the prior mass already explored.
  void count(const Node& c, int visits, int in_flight) {
    if (visits > 0) {
      sum_w_ += c.value_sum.load(std::memory_order_relaxed);
      sum_n_ += visits;
    }
    sum_in_flight_ += in_flight;
    if (visits > 0 || in_flight > 0) visited_prior_ += c.prior;
  }
  double sum_n() const { return sum_n_; }
  double sum_in_flight() const { return sum_in_flight_; }
  double first_play_urgency() const {
    return b_.norm((node_.eval_value + sum_w_) / (1.0 + sum_n_)) - fpu_reduction_ * std::sqrt(visited_prior_);
  }
  // Whether the child has visits, virtual losses or a proof (unvisited children score the
  // urgency instead).
  bool is_known(const Node& c, int visits, int in_flight) const {
    return (use_solver_ && c.is_proven()) || visits + in_flight > 0;
  }
  // The score of a known child. Returns true when the child is a proven win, which ends the
  // selection.
  bool score_known(const Node& c, int visits, int in_flight, double explore, double& score) const {
    double q;
    double penalty = 0;
    if (use_solver_ && c.is_proven()) {
      const double v = c.proven_value.load(std::memory_order_relaxed);
      if (search_.num_players_ == 2 && v >= search_.return_hi_) return true;  // a proven win: nothing else to consider
      if (search_.num_players_ == 2 && v <= search_.return_lo_) penalty = kProvenLossPenalty;
      q = b_.norm(v);
    } else {
      const double eff = visits + vl_ * in_flight;
      q = norm_((c.value_sum.load(std::memory_order_relaxed) + loss_value_ * in_flight) / eff);
    }
    score = q + explore * c.prior / (1.0 + visits + in_flight) - penalty;
    return false;
  }
  void consider(Node& c, double score) {
    if (score > best_score_) {
      best_score_ = score;
      best_ = &c;
    }
  }
  Node* best() const { return best_; }
  double best_score() const { return best_score_; }

 private:
  const Search& search_;
  const Node& node_;
  const Bounds b_;
  const double vl_;
  const bool use_solver_;
  const Bounds::Affine norm_;
  const double loss_value_;
  const double fpu_reduction_;
  double sum_w_ = 0, sum_n_ = 0, sum_in_flight_ = 0, visited_prior_ = 0;
  Node* best_;
  double best_score_ = -kInf;
};

Node* Search::select_decision(Node* node, bool at_root) const {
  ChildScores scores(*this, *node, at_root);
  return at_root ? select_root_child(*node, scores) : select_inner_child(*node, scores);
}

Node* Search::select_root_child(const Node& node, ChildScores& scores) const {
  // The root's own count lags while run() defers it (backup); every simulation through the
  // root went through one child, so 1 + the children's count is the same number. That
  // needs the children's sums before any score: two passes.
  const int n = node.num_children;
  Node* children = node.children;
  const bool forced = noise_active_ && config_.forced_playouts;
  for (int i = 0; i < n; ++i) {
    Node& c = children[i];
    scores.count(c, c.visits.load(std::memory_order_relaxed), c.in_flight.load(std::memory_order_relaxed));
  }
  const double parent_n = 1.0 + scores.sum_n() + scores.sum_in_flight();
  const double explore = config_.puct_exploration(parent_n);
  const double fpu = scores.first_play_urgency();
  for (int i = 0; i < n; ++i) {
    Node& c = children[i];
    const int visits = c.visits.load(std::memory_order_relaxed);
    const int in_flight = c.in_flight.load(std::memory_order_relaxed);
    // Forced playouts (KataGo): a child with a prior gets at least sqrt(k · prior · N) visits.
    if (forced && c.prior > 0 && visits + in_flight < std::sqrt(config_.forced_playout_k * c.prior * parent_n)) return &c;
    double score;
    if (!scores.is_known(c, visits, in_flight)) {
      score = fpu + explore * c.prior / (1.0 + visits + in_flight);
    } else if (scores.score_known(c, visits, in_flight, explore, score)) {
      return &c;
    }
    scores.consider(c, score);
  }
  return scores.best();
}

Node* Search::select_inner_child(const Node& node, ChildScores& scores) const {
  // Below the root the parent's count is its own, so one pass reads each child's cache line
  // once (on wide nodes those reads are most of a selection): unvisited children all share
  // the urgency, known once the pass is over, so only the one with the largest prior (the
  // first of equals) can win among them.
  const int n = node.num_children;
  Node* children = node.children;
  const double parent_n =
      std::max(1, node.visits.load(std::memory_order_relaxed) + node.in_flight.load(std::memory_order_relaxed));
  const double explore = config_.puct_exploration(parent_n);
  Node* unvisited = nullptr;
  for (int i = 0; i < n; ++i) {
    Node& c = children[i];
    const int visits = c.visits.load(std::memory_order_relaxed);
    const int in_flight = c.in_flight.load(std::memory_order_relaxed);
    scores.count(c, visits, in_flight);
    if (!scores.is_known(c, visits, in_flight)) {
      if (!unvisited || c.prior > unvisited->prior) unvisited = &c;
      continue;
    }
    double score;
    if (scores.score_known(c, visits, in_flight, explore, score)) return &c;
    scores.consider(c, score);
  }
  Node* best = scores.best();
  if (unvisited) {
    const double score = scores.first_play_urgency() + explore * unvisited->prior;
    // Equal scores go to the earlier child, as a single scan in order would choose.
    if (score > scores.best_score() || (score == scores.best_score() && unvisited < best)) best = unvisited;
  }
  return best;
}

int Search::select_marginal(const Node* node, int seat, bool at_root) const {
  const int n = node->marginal_count(seat);
  const Node* m = node->marginals(seat);
  const Bounds b = num_players_ == 1 ? bounds() : Bounds{return_lo_, return_hi_};
  const double vl = config_.virtual_loss;
  double sum_w = 0, sum_n = 0, sum_in_flight = 0, visited_prior = 0;
  for (int i = 0; i < n; ++i) {
    const int visits = m[i].visits.load(std::memory_order_relaxed);
    const int in_flight = m[i].in_flight.load(std::memory_order_relaxed);
    if (visits > 0) {
      sum_w += m[i].value_sum.load(std::memory_order_relaxed);
      sum_n += visits;
    }
    sum_in_flight += in_flight;
    if (visits > 0 || in_flight > 0) visited_prior += m[i].prior;
  }
  // As in select_decision: a seat's marginals see every simulation through the node.
  const double parent_n = at_root ? 1.0 + sum_n + sum_in_flight
                                  : std::max(1, node->visits.load(std::memory_order_relaxed) +
                                                    node->in_flight.load(std::memory_order_relaxed));
  const double parent_q = sum_n > 0 ? b.norm(sum_w / sum_n) : 0.5;
  const double fpu = parent_q - (at_root ? config_.fpu_reduction_root : config_.fpu_reduction) * std::sqrt(visited_prior);
  const double explore = config_.puct_exploration(parent_n);
  int best = 0;
  double best_score = -kInf;
  for (int i = 0; i < n; ++i) {
    const int visits = m[i].visits.load(std::memory_order_relaxed);
    const int in_flight = m[i].in_flight.load(std::memory_order_relaxed);
    double q = fpu;
    if (visits + in_flight > 0) {
      q = b.norm((m[i].value_sum.load(std::memory_order_relaxed) + vl * in_flight * b.lo) / (visits + vl * in_flight));
    }
    const double score = q + explore * m[i].prior / (1.0 + visits + in_flight);
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  return best;
}

Node* Search::select_chance(Node* node, util::Rng& rng) {
  double u = rng.uniform();
  for (int i = 0; i < node->num_children; ++i) {
    if (u < node->children[i].prior) return node->children + i;
    u -= node->children[i].prior;
  }
  return node->children + node->num_children - 1;
}

void Search::expand_chance(Node* node, const games::State& state) {
  const auto outcomes = state.chance_outcomes();
  Node* children = arenas_[live_].allocate(outcomes.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    children[i].reset(outcomes[i].first, static_cast<float>(outcomes[i].second), node->value_player);
  }
  node->children = children;
  node->num_children = static_cast<std::uint16_t>(outcomes.size());
  node->kind = NodeKind::kChance;
}

// --- Descent, expansion, backup --------------------------------------------------------

// One simulation's descent (AlphaZero's select-expand, Leela's batched form):
//   1. start at the root, or at the end of the thread's burst path;
//   2. at a leaf, claim it: expand what needs no network or leave it to the evaluator;
//   3. at a node another thread is expanding, stop: a collision;
//   4. otherwise select a child (ending at terminal and proven nodes) and apply its move;
//   5. enter the child: a virtual loss, or a place on the new burst's path.
Search::Descent Search::descend(PendingLeaf& leaf, LeafBatch& batch, util::Rng& rng) {
  bool at_root = true, new_burst = false;
  Node* node = start_descent(leaf, batch, at_root, new_burst);  // 1
  for (;;) {
    const NodeStatus status = node->status.load(std::memory_order_acquire);
    if (status == NodeStatus::kLeaf) {  // 2
      Descent result;
      if (claim_leaf(leaf, batch, node, result)) return result;
      continue;
    }
    if (status == NodeStatus::kExpanding) return Descent::kCollision;  // 3: the caller holds or reverts the path
    Node* child = select_child(leaf, batch, node, at_root, rng);       // 4
    if (!child) return Descent::kDone;
    enter_child(leaf, batch.burst, new_burst, *node, child);  // 5
    node = child;
    at_root = false;
  }
}

Node* Search::start_descent(PendingLeaf& leaf, LeafBatch& batch, bool& at_root, bool& new_burst) {
  auto& path = leaf.path;
  path.clear();
  if (!leaf.state || !leaf.state->assign_from(*root_state_)) leaf.state = root_state_->clone();
  leaf.deferred = 0;
  path.push_back(root_);  // the root takes no virtual loss (see backup)
  at_root = true;
  new_burst = false;
  if (!bursts_) return root_;
  // Threads sharing the tree run bursts (SearchConfig::burst_simulations): the descent
  // either follows the thread's current burst path or, choosing a new one, records the
  // busy nodes it selects.
  Burst& burst = batch.burst;
  if (burst.left > 0 && burst_path_open(burst)) {
    for (Node* p : burst.path) {
      leaf.state->apply_action(p->action);
      leaf.deferred |= std::uint64_t{1} << path.size();
      path.push_back(p);
    }
    at_root = false;
    --burst.left;
    return path.back();
  }
  if (!burst.path.empty()) end_burst(batch);
  new_burst = true;
  return root_;
}

bool Search::claim_leaf(PendingLeaf& leaf, LeafBatch& batch, Node* node, Descent& result) {
  NodeStatus status = NodeStatus::kLeaf;
  if (!node->status.compare_exchange_strong(status, NodeStatus::kExpanding, std::memory_order_acq_rel)) return false;
  games::State& state = *leaf.state;
  const games::Player mover = state.current_player();
  if (mover == games::kTerminalPlayer) {
    const auto returns = state.returns();
    expand_terminal(*node, returns);
    Values values{};
    std::copy(returns.begin(), returns.end(), values.begin());
    backup(leaf, values, true, batch);
    result = Descent::kDone;
    return true;
  }
  if (mover == games::kChancePlayer) {
    expand_chance(node, state);
    node->status.store(NodeStatus::kExpanded, std::memory_order_release);
    return false;
  }
  if (mover == games::kSimultaneousPlayer) {
    if (num_players_ != 2) throw std::logic_error("search: simultaneous nodes need exactly two players");
    state.legal_actions(0, leaf.legal);
    leaf.split = static_cast<int>(leaf.legal.size());
    state.legal_actions(1, leaf.joint);
    leaf.legal.insert(leaf.legal.end(), leaf.joint.begin(), leaf.joint.end());
  } else {
    state.legal_actions(leaf.legal);
    leaf.split = -1;
    if (config_.check_immediate_wins && config_.solver && solvable_ && num_players_ == 2 &&
        expand_immediate_win(leaf, batch)) {
      result = Descent::kDone;
      return true;
    }
  }
  leaf.owner = this;
  result = Descent::kPending;
  return true;
}

Node* Search::select_child(PendingLeaf& leaf, LeafBatch& batch, Node* node, bool at_root, util::Rng& rng) {
  games::State& state = *leaf.state;
  const auto proven_below_root = [&] { return !at_root && node->is_proven() && config_.solver && solvable_; };
  switch (node->kind) {
    case NodeKind::kTerminal: {
      const auto returns = state.returns();
      Values values{};
      std::copy(returns.begin(), returns.end(), values.begin());
      backup(leaf, values, true, batch);
      return nullptr;
    }
    case NodeKind::kDecision: {
      if (proven_below_root()) {
        backup(leaf, proven_values(node), true, batch);
        return nullptr;
      }
      Node* child = select_decision(node, at_root);
      state.apply_action(child->action);
      return child;
    }
    case NodeKind::kChance: {
      if (proven_below_root()) {
        backup(leaf, proven_values(node), true, batch);
        return nullptr;
      }
      Node* child = select_chance(node, rng);
      state.apply_action(child->action);
      return child;
    }
    case NodeKind::kSimultaneous: {
      const int i0 = select_marginal(node, 0, at_root), i1 = select_marginal(node, 1, at_root);
      Node* m0 = node->marginals(0) + i0;
      Node* m1 = node->marginals(1) + i1;
      m0->in_flight.fetch_add(1, std::memory_order_relaxed);
      m1->in_flight.fetch_add(1, std::memory_order_relaxed);
      leaf.path.push_back(m0);
      leaf.path.push_back(m1);
      leaf.joint.assign({m0->action, m1->action});
      state.apply_joint_action(leaf.joint);
      return node->joint_child(i0, i1);
    }
    case NodeKind::kUnknown:
      break;
  }
  throw std::logic_error("search: expanded node of unknown kind");
}

void Search::enter_child(PendingLeaf& leaf, Burst& burst, bool& new_burst, const Node& node, Node* child) {
  if (new_burst && join_burst(burst, node, *child)) {
    leaf.deferred |= std::uint64_t{1} << leaf.path.size();
  } else {
    new_burst = false;  // the path is the busy nodes from the root down, without a gap
    child->in_flight.fetch_add(1, std::memory_order_relaxed);
  }
  leaf.path.push_back(child);
}

Search::Values Search::proven_values(const Node* node) const {
  Values values{};
  const double v = node->proven_value.load(std::memory_order_relaxed);
  values[static_cast<std::size_t>(node->value_player)] = v;
  if (num_players_ == 2) values[static_cast<std::size_t>(1 - node->value_player)] = -v;
  return values;
}

Node* Search::allocate_children(std::size_t count, LeafBatch& batch) {
  // Threads sharing this tree carve children from their own chunks (node_arena.h).
  NodeArena& arena = arenas_[live_];
  return config_.threads > 1 ? arena.allocate(count, batch.arena_cursor) : arena.allocate(count);
}

bool Search::expand_immediate_win(PendingLeaf& leaf, LeafBatch& batch) {
  const games::State& state = *leaf.state;
  const games::Player mover = state.current_player();
  const auto mover_index = static_cast<std::size_t>(mover);
  for (std::size_t w = 0; w < leaf.legal.size(); ++w) {
    if (!state.may_end_game(leaf.legal[w])) continue;
    if (!leaf.probe || !leaf.probe->assign_from(state)) leaf.probe = state.clone();
    leaf.probe->apply_action(leaf.legal[w]);
    if (leaf.probe->current_player() != games::kTerminalPlayer) continue;
    const std::vector<double> returns = leaf.probe->returns();
    if (returns[mover_index] < return_hi_) continue;
    // Every legal move becomes a child (a reused tree may make this position a root whose
    // report lists them); the winning one is a terminal node already.
    Node* node = leaf.path.back();
    const auto n = leaf.legal.size();
    Node* children = allocate_children(n, batch);
    for (std::size_t i = 0; i < n; ++i) children[i].reset(leaf.legal[i], 1.0f / static_cast<float>(n), mover);
    expand_terminal(children[w], returns);
    node->mover = static_cast<std::int8_t>(mover);
    node->eval_value = static_cast<float>(returns[mover_index]);
    node->children = children;
    node->num_children = static_cast<std::uint16_t>(n);
    node->kind = NodeKind::kDecision;
    node->status.store(NodeStatus::kExpanded, std::memory_order_release);
    prove(node);
    Values values{};
    std::copy(returns.begin(), returns.end(), values.begin());
    backup(leaf, values, true, batch);
    return true;
  }
  return false;
}

void Search::complete(PendingLeaf& leaf, LeafBatch& batch) {
  Node* node = leaf.path.back();
  const games::State& state = *leaf.state;
  Values values{};
  for (int p = 0; p < num_players_; ++p) values[static_cast<std::size_t>(p)] = leaf.values[static_cast<std::size_t>(p)];
  if (leaf.split < 0) {
    const int n = static_cast<int>(leaf.legal.size());
    const games::Player mover = state.current_player();
    Node* children = allocate_children(static_cast<std::size_t>(n), batch);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += std::max(0.0f, leaf.priors[static_cast<std::size_t>(i)]);
    for (int i = 0; i < n; ++i) {
      const float p = sum > 0 ? static_cast<float>(std::max(0.0f, leaf.priors[static_cast<std::size_t>(i)]) / sum)
                              : 1.0f / static_cast<float>(n);
      children[i].reset(leaf.legal[static_cast<std::size_t>(i)], p, mover);
    }
    node->mover = static_cast<std::int8_t>(mover);
    node->eval_value = static_cast<float>(values[static_cast<std::size_t>(mover)]);
    node->children = children;
    node->num_children = static_cast<std::uint16_t>(n);
    node->kind = NodeKind::kDecision;
    if (node == root_ && noise_active_) apply_root_noise(children, n);
  } else {
    const int n0 = leaf.split, n1 = static_cast<int>(leaf.legal.size()) - n0;
    const int total = n0 + n1 + n0 * n1;
    Node* children = allocate_children(static_cast<std::size_t>(total), batch);
    for (int i = 0; i < n0; ++i) children[i].reset(leaf.legal[static_cast<std::size_t>(i)], 1.0f / static_cast<float>(n0), 0);
    for (int i = 0; i < n1; ++i) {
      children[n0 + i].reset(leaf.legal[static_cast<std::size_t>(n0 + i)], 1.0f / static_cast<float>(n1), 1);
    }
    for (int j = 0; j < n0 * n1; ++j) {
      children[n0 + n1 + j].reset(j, 1.0f / static_cast<float>(n0 * n1), node->value_player);
    }
    node->children = children;
    node->num_children = static_cast<std::uint16_t>(total);
    node->split = static_cast<std::uint16_t>(n0);
    node->kind = NodeKind::kSimultaneous;
  }
  node->status.store(NodeStatus::kExpanded, std::memory_order_release);
  backup(leaf, values, false, batch);
}

void Search::backup(const PendingLeaf& leaf, const Values& values, bool exact, LeafBatch& batch) {
  const std::span<Node* const> path = leaf.path;
  if (num_players_ == 1) {
    // Running range for normalisation; the CAS loops only run when the range grows.
    const double v = values[0];
    double lo = min_seen_.load(std::memory_order_relaxed), hi = max_seen_.load(std::memory_order_relaxed);
    if (!seen_any_.load(std::memory_order_relaxed)) {
      min_seen_.store(v, std::memory_order_relaxed);
      max_seen_.store(v, std::memory_order_relaxed);
      seen_any_.store(true, std::memory_order_relaxed);
    } else {
      while (v < lo && !min_seen_.compare_exchange_weak(lo, v, std::memory_order_relaxed)) {}
      while (v > hi && !max_seen_.compare_exchange_weak(hi, v, std::memory_order_relaxed)) {}
    }
  }
  // The root gets only its visit count: its value and in-flight count are never read
  // (selection at the root reads its children). Threads sharing a tree always defer it (it
  // is on every thread's every path); selection derives the root's count from its children.
  DeferredStats& deferred = batch.deferred_stats;
  if (shared_tree_) {
    deferred.add_visit(path[0]);
  } else {
    path[0]->visits.fetch_add(1, std::memory_order_relaxed);
  }
  for (std::size_t i = 1; i < path.size(); ++i) {
    Node* node = path[i];
    const double v = values[static_cast<std::size_t>(node->value_player)];
    if (leaf.is_deferred(i)) {
      deferred.add(node, v);
      continue;
    }
    add_relaxed(node->value_sum, v);
    // At every depth: tree reuse makes deep nodes root children, and a spread summed over
    // only some of a node's visits would understate its variance (and LCB trust it).
    add_relaxed(node->value_sq_sum, v * v);
    node->visits.fetch_add(1, std::memory_order_relaxed);
    node->in_flight.fetch_sub(1, std::memory_order_relaxed);
  }
  if (exact && config_.solver && solvable_) {
    for (std::size_t i = path.size() - 1; i-- > 0;) {
      if (!prove(path[i])) break;
    }
  }
}

bool Search::prove(Node* node) {
  if (node->is_proven()) return true;
  if (!node->is_expanded()) return false;
  double value;
  if (node->kind == NodeKind::kDecision) {
    double best = -kInf;
    bool all = true, win = false;
    for (int i = 0; i < node->num_children; ++i) {
      const Node& c = node->children[i];
      if (!c.is_proven()) {
        all = false;
        continue;
      }
      const double v = c.proven_value.load(std::memory_order_relaxed);
      best = std::max(best, v);
      if (v >= return_hi_) win = true;
    }
    if (!win && !all) return false;
    value = node->value_player == node->mover ? best : -best;
  } else if (node->kind == NodeKind::kChance) {
    value = 0;
    for (int i = 0; i < node->num_children; ++i) {
      const Node& c = node->children[i];
      if (!c.is_proven()) return false;
      value += c.prior * c.proven_value.load(std::memory_order_relaxed);
    }
  } else {
    return false;
  }
  node->proven_value.store(static_cast<float>(value), std::memory_order_relaxed);
  node->proven.store(1, std::memory_order_release);
  return true;
}

// --- Bursts ---------------------------------------------------------------------------------

bool Search::burst_path_open(const Burst& burst) const {
  // A node proven since the burst began needs no more simulations below it.
  for (const Node* p : burst.path) {
    if (p->is_proven()) return false;
  }
  return !burst.path.empty();
}

bool Search::join_burst(Burst& burst, const Node& parent, Node& child) {
  // The burst's path runs from the root, so its depth is its length (deferred bits: < 64).
  if (parent.kind != NodeKind::kDecision || burst.path.size() >= 63) return false;
  const int visits = child.visits.load(std::memory_order_relaxed);
  // The path's first node sets the burst's length: what a small part of its visits allows
  // (so a young tree gets short bursts), at most burst_simulations.
  const int length = burst.path.empty() ? std::min(config_.burst_simulations, visits / kBurstVisitsPerSimulation)
                                        : burst.length;
  if (length < 2 || visits < kBurstVisitsPerSimulation * length) return false;
  // The burst holds all its simulations' virtual losses here at once.
  child.in_flight.fetch_add(length, std::memory_order_relaxed);
  if (burst.path.empty()) {
    ++burst.started;
    burst.length = length;
    burst.left = length - 1;
  }
  burst.path.push_back(&child);
  return true;
}

void Search::end_burst(LeafBatch& batch) {
  Burst& burst = batch.burst;
  for (Node* p : burst.path) p->in_flight.fetch_sub(burst.length, std::memory_order_relaxed);
  burst.path.clear();
  burst.left = 0;
  batch.deferred_stats.flush();
}

// --- Driving a search ------------------------------------------------------------------

int Search::gather(LeafBatch& batch, int max_leaves, util::Rng& rng) {
  int reserved = 0;
  return gather(batch, max_leaves, rng, reserved, 1);
}

int Search::gather(LeafBatch& batch, int max_leaves, util::Rng& rng, int& reserved, int chunk) {
  int added = 0, collisions = 0;
  while (added < max_leaves && budget_open() && claim_simulation(reserved, chunk)) {
    PendingLeaf& leaf = batch.next();
    const Descent d = descend(leaf, batch, rng);
    if (d == Descent::kPending) {
      batch.commit();
      ++added;
    } else if (d == Descent::kCollision) {
      if (limit_simulations_) ++reserved;  // the simulation did not happen: keep its claim
      collisions_.fetch_add(1, std::memory_order_relaxed);
      batch.hold_collision(leaf);
      if (++collisions > config_.max_collisions) break;
    }
  }
  // Nothing to evaluate: the caller will wait, so the held paths must not stay penalised.
  if (batch.empty()) batch.release_collisions();
  return added;
}

SearchReport Search::run(Evaluator& evaluator) {
  begin();
  const int threads = config_.threads;
  std::vector<util::Rng> rngs;
  for (int t = 1; t < threads; ++t) rngs.emplace_back(rng_() ^ static_cast<std::uint64_t>(t));
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  // One thread takes its simulations one at a time so that the count is exact at any stop;
  // several take them in small chunks and hand back what they did not use.
  const int chunk = threads > 1 ? kSimulationChunk : 1;
  shared_tree_ = threads > 1;
  bursts_ = shared_tree_ && config_.burst_simulations > 0;
  auto work = [&](util::Rng& rng) {
    LeafBatch batch;
    int reserved = 0;
    try {
      while (!failed.load(std::memory_order_relaxed)) {
        gather(batch, config_.leaves_per_batch, rng, reserved, chunk);
        if (!batch.empty()) {
          evaluate_batch(evaluator, batch);
          continue;
        }
        if (reserved == 0 && !budget_left()) break;
        if (!budget_open()) break;
        std::this_thread::yield();  // every reachable leaf is being expanded by another thread
      }
      if (reserved > 0) sims_started_.fetch_sub(reserved, std::memory_order_relaxed);
      end_burst(batch);
      bursts_run_.fetch_add(batch.burst.started, std::memory_order_relaxed);
    } catch (...) {
      failed.store(true);
      return std::current_exception();
    }
    return std::exception_ptr{};
  };
  if (threads == 1) {
    error = work(rng_);
  } else {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
    team_.run(threads, [&](int t) {
      errors[static_cast<std::size_t>(t)] = work(t == 0 ? rng_ : rngs[static_cast<std::size_t>(t - 1)]);
    });
    for (auto& e : errors) {
      if (e && !error) error = e;
    }
  }
  shared_tree_ = bursts_ = false;
  if (error) {
    // Leaves claimed by the failed batch stay kExpanding forever: the tree is unusable.
    new_root();
    std::rethrow_exception(error);
  }
  return report();
}

void evaluate_batch(Evaluator& evaluator, LeafBatch& batch) {
  auto leaves = batch.leaves();
  auto& requests = batch.requests_;
  requests.clear();
  for (PendingLeaf& leaf : leaves) {
    const int players = leaf.state->game().info().num_players;
    const std::size_t n_priors = leaf.split < 0 ? leaf.legal.size() : 0;
    leaf.priors.resize(n_priors);
    leaf.values.assign(static_cast<std::size_t>(players), 0.0f);
    requests.push_back({leaf.state.get(), std::span<const games::Action>(leaf.legal.data(), n_priors), leaf.priors.data(),
                        leaf.values.data()});
  }
  evaluator.evaluate(requests);
  for (PendingLeaf& leaf : leaves) leaf.owner->complete(leaf, batch);
  batch.release_collisions();
  batch.clear();
}

void LeafBatch::hold_collision(const PendingLeaf& leaf) {
  // Not the root (it takes no virtual loss) nor the deferred nodes (they took none either).
  for (std::size_t i = 1; i < leaf.path.size(); ++i) {
    if (!leaf.is_deferred(i)) collided_.push_back(leaf.path[i]);
  }
}

void LeafBatch::release_collisions() {
  for (Node* node : collided_) node->in_flight.fetch_sub(1, std::memory_order_relaxed);
  collided_.clear();
}

PendingLeaf& LeafBatch::next() {
  if (leaves_.size() <= size_) leaves_.emplace_back();
  return leaves_[size_];
}

// --- Report ------------------------------------------------------------------------------

SearchReport Search::report(games::Player seat, int pv_length) const {
  SearchReport r;
  if (!root_) return r;
  const Bounds b = bounds();
  r.value_low = b.lo;
  r.value_high = b.hi;
  r.win_loss = solvable_ && num_players_ == 2;
  r.root_visits = root_->visits.load();
  r.simulations = r.root_visits - root_visits_at_begin_;
  r.collisions = collisions_.load();
  r.bursts = bursts_run_.load();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  r.tree_nodes = tree_nodes();
  const games::Player mover = root_state_->current_player();
  r.player = seat != -100 ? seat : mover;
  if (!root_->is_expanded()) return r;
  const Node* children = root_->children;
  int count = root_->num_children;
  if (root_->kind == NodeKind::kSimultaneous) {
    const int s = r.player >= 0 && r.player < 2 ? r.player : 0;
    r.player = s;
    children = root_->marginals(s);
    count = root_->marginal_count(s);
  }
  double sum_w = 0, sum_n = 0;
  for (int i = 0; i < count; ++i) {
    const Node& c = children[i];
    ChildReport cr;
    cr.action = c.action;
    cr.visits = c.visits.load();
    cr.q = c.mean_value();
    cr.q_normalized = b.norm(cr.q);
    if (cr.visits > 0) {
      const double mean_sq = c.value_sq_sum.load() / cr.visits;
      const double scale = b.hi > b.lo ? 1.0 / (b.hi - b.lo) : 0.0;
      cr.stddev = std::sqrt(std::max(0.0, mean_sq - cr.q * cr.q)) * scale;
      sum_w += c.value_sum.load();
      sum_n += cr.visits;
    }
    cr.prior = c.prior;
    cr.proven = c.is_proven() && (c.kind == NodeKind::kTerminal || (config_.solver && solvable_));
    cr.proven_value = c.proven_value.load();
    cr.pv.push_back(c.action);
    const Node* node = root_->kind == NodeKind::kSimultaneous ? nullptr : &c;
    while (node && static_cast<int>(cr.pv.size()) < pv_length && node->is_expanded() &&
           (node->kind == NodeKind::kDecision || node->kind == NodeKind::kChance) && node->num_children > 0) {
      const Node* next = nullptr;
      for (int j = 0; j < node->num_children; ++j) {
        const Node& g = node->children[j];
        if (!next || g.visits.load() > next->visits.load()) next = &g;
      }
      if (!next || !pv_continues_into(next->visits.load())) break;  // below it: board-order noise
      cr.pv.push_back(next->action);
      node = next;
    }
    r.children.push_back(std::move(cr));
  }
  if (root_->kind == NodeKind::kDecision) {
    r.root_value = (root_->eval_value + sum_w) / (1.0 + sum_n);
    if (config_.solver && solvable_ && root_->is_proven()) {
      r.root_proven = true;
      const double v = root_->proven_value.load();
      r.root_proven_value = root_->value_player == root_->mover ? v : -v;
    }
  } else if (sum_n > 0) {
    r.root_value = sum_w / sum_n;
  }
  return r;
}

}  // namespace pz::mcts
