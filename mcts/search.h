// PUCT search (AlphaZero) over any game of the Game API, with what the strongest engines
// added. One Search owns one tree and its root position.
//
// Selection at a decision node maximises Q + c(N)·P·√N/(1+n), c(N) = c_init +
// log((N + c_base + 1)/c_base), Q normalised to [0, 1]; unvisited children take the parent's
// value minus a first-play-urgency reduction (KataGo). Chance nodes are expanded without
// the evaluator and their outcomes sampled by probability, so a chance node's mean is the
// expectation over outcomes. Simultaneous-move nodes (two players) select decoupled, each
// seat by PUCT over its own marginal statistics. Single-player games normalise Q by the
// running min/max of the tree's values.
//
// Parallelism: config().threads threads descend the same tree under virtual loss, each
// gathering up to leaves_per_batch leaves per evaluator call; expansions are published
// lock-free (node.h). So that they do not all write the same top nodes on every simulation
// (their cache lines would move between cores each time), they run bursts
// (config().burst_simulations): a thread keeps its path through the busy top of the tree
// for several simulations, under the burst's virtual losses, and publishes the statistics
// there when the burst ends (deferred_stats.h). The helper threads are kept from search to
// search (util/thread_team.h). For self-play, the stepping API (begin / gather /
// evaluate_batch / finished) lets one thread drive many searches in lockstep with one
// evaluator call per step, and BatchingEvaluator merges those calls across threads.
//
// MCTS-solver (two-player zero-sum and single-player games): terminal nodes are exact;
// a decision node with a child proven to win for its mover, or with every child proven, is
// proven and its exact value is backed up instead of estimates, so solved lines are played
// perfectly; chance nodes are proven when every outcome is. Expansion also looks one move
// ahead for a win (config().check_immediate_wins), so such positions are proven on arrival.
//
// Tree reuse: advance() keeps the subtree of the move played, copying it into the second
// of two node arenas (compacting it) and recycling the first.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>

#include "games/game.h"
#include "mcts/evaluator.h"
#include "mcts/leaf_batch.h"
#include "mcts/node.h"
#include "mcts/node_arena.h"
#include "mcts/report.h"
#include "mcts/search_config.h"
#include "util/rng.h"
#include "util/thread_team.h"

namespace pz::mcts {

class Search {
 public:
  static constexpr int kMaxPlayers = 8;

  // `game` must outlive the search.
  Search(const games::Game& game, SearchConfig config, std::uint64_t seed);
  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;

  const SearchConfig& config() const { return config_; }
  // Between searches only. Throws std::invalid_argument when no budget limit is set.
  void set_config(const SearchConfig& config);

  // --- The root ---------------------------------------------------------------------
  // Searches from `state` next; the tree is kept when `state` is the current root position.
  void set_root(const games::State& state);
  // Plays `action` (decision or chance) at the root; keeps its subtree when reuse is on.
  void advance(games::Action action);
  // Plays a joint action at a simultaneous root.
  void advance_joint(std::span<const games::Action> actions);
  bool has_root() const { return root_state_ != nullptr; }
  const games::State& root_state() const { return *root_state_; }
  // Drops the tree, keeping the root position.
  void clear_tree();

  // --- Blocking search ---------------------------------------------------------------
  // Runs until the budget is spent, on config().threads threads.
  SearchReport run(Evaluator& evaluator);
  // A flag set from another thread (Ctrl-C) ends run() and the stepping searches at their
  // next budget check, as a spent budget does: the tree and report stay valid. nullptr: none.
  void set_stop(const std::atomic<bool>* stop) { stop_ = stop; }

  // --- Stepping (one thread, many searches in lockstep) -------------------------------
  void begin();
  // Adds up to `max_leaves` claimed leaves to `batch`; descents that end at a terminal or
  // proven node are backed up at once. Returns the number added.
  int gather(LeafBatch& batch, int max_leaves, util::Rng& rng);
  bool wants_leaves() const { return budget_left(); }
  // The budget is spent. Call it between steps, once every gathered leaf has been through
  // evaluate_batch (in-flight leaves are not counted: that would cost every simulation two
  // more contended atomic operations).
  bool finished() const { return !budget_left(); }

  // --- Results ------------------------------------------------------------------------
  // The root's children for `seat` (the mover by default; at a simultaneous root, the seat
  // whose marginal statistics to report). Each child's principal variation holds at most
  // `pv_length` moves and stops below kPvMinVisits visits (report.h).
  SearchReport report(games::Player seat = -100, int pv_length = 12) const;
  std::size_t tree_nodes() const { return arenas_[live_].nodes_in_use(); }
  util::Rng& rng() { return rng_; }
  const Node* root_node() const { return root_; }

 private:
  friend void evaluate_batch(Evaluator& evaluator, LeafBatch& batch);
  enum class Descent { kPending, kDone, kCollision };
  struct Bounds {
    double lo, hi;
    double norm(double v) const { return hi > lo ? (v - lo) / (hi - lo) : 0.5; }
    // norm(v) as a multiply-add, for loops that normalise many values.
    struct Affine {
      double scale, offset;
      double operator()(double v) const { return v * scale + offset; }
    };
    Affine affine() const { return hi > lo ? Affine{1.0 / (hi - lo), -lo / (hi - lo)} : Affine{0.0, 0.5}; }
  };
  using Values = std::array<double, kMaxPlayers>;

  // Claims one simulation of the budget. `reserved` is the calling thread's stock of
  // simulations already counted in sims_started_; `chunk` > 1 refills it several at a time
  // so threads on one tree do not bounce the counter's cache line on every simulation.
  bool claim_simulation(int& reserved, int chunk);
  int gather(LeafBatch& batch, int max_leaves, util::Rng& rng, int& reserved, int chunk);
  // The budget limits other than the simulation count.
  bool budget_open() const;
  // One simulation's walk from the root to a leaf, in the stages of its comment (search.cpp).
  Descent descend(PendingLeaf& leaf, LeafBatch& batch, util::Rng& rng);
  // Stage 1: the leaf's path and position start at the root, or at the end of the thread's
  // burst path (then `at_root` is false); `new_burst` says the descent records a new one.
  Node* start_descent(PendingLeaf& leaf, LeafBatch& batch, bool& at_root, bool& new_burst);
  // Stage 2: claims the leaf `node` and expands what needs no network (terminal, chance,
  // immediate win) or leaves it pending for the evaluator. False when the node must be
  // looked at again (another thread claimed it first, or it became a chance node).
  bool claim_leaf(PendingLeaf& leaf, LeafBatch& batch, Node* node, Descent& result);
  // Stage 3: the child to descend into, its move applied to the leaf's position; nullptr
  // when the descent ends here (a terminal or proven node, whose values are backed up).
  Node* select_child(PendingLeaf& leaf, LeafBatch& batch, Node* node, bool at_root, util::Rng& rng);
  // Stage 4: the child joins the path with a virtual loss, or as a node of the new burst.
  void enter_child(PendingLeaf& leaf, Burst& burst, bool& new_burst, const Node& node, Node* child);
  void complete(PendingLeaf& leaf, LeafBatch& batch);
  // Expands `node` (a decision node of the leaf's position, legal moves in leaf.legal) as
  // proven if one of the moves wins at once, and backs up the win. False if none does.
  bool expand_immediate_win(PendingLeaf& leaf, LeafBatch& batch);
  Node* allocate_children(std::size_t count, LeafBatch& batch);
  // Backs `values` up the leaf's path (its deferred nodes into the batch's DeferredStats).
  void backup(const PendingLeaf& leaf, const Values& values, bool exact, LeafBatch& batch);

  // The burst's path can take more simulations.
  bool burst_path_open(const Burst& burst) const;
  // While a descent chooses a new burst: adds `child` (selected at `parent`) to the burst's
  // path if it is busy enough. False: the path ends above it.
  bool join_burst(Burst& burst, const Node& parent, Node& child);
  // Releases the burst's virtual losses and publishes the thread's deferred statistics.
  void end_burst(LeafBatch& batch);
  // PUCT selection at a decision node (first-play urgency, virtual loss, proofs).
  Node* select_decision(Node* node, bool at_root) const;
  class ChildScores;  // the PUCT terms of one node's children (search.cpp)
  // The root's count lags while run() defers it: the children's sums come first.
  Node* select_root_child(const Node& node, ChildScores& scores) const;
  // Below the root: one pass over the children.
  Node* select_inner_child(const Node& node, ChildScores& scores) const;
  int select_marginal(const Node* node, int seat, bool at_root) const;
  static Node* select_chance(Node* node, util::Rng& rng);
  void expand_chance(Node* node, const games::State& state);
  bool prove(Node* node);
  Values proven_values(const Node* node) const;
  void apply_root_noise(Node* children, int count);
  bool budget_left() const;
  Bounds bounds() const;
  void reroot(Node* child);
  void new_root();
  Node* copy_subtree(const Node& from, Node* to, NodeArena& arena);

  const games::Game& game_;
  SearchConfig config_;
  util::Rng rng_;
  util::Rng noise_rng_;  // drawn from rng_ in begin(); only the thread expanding the root uses it
  int num_players_;
  double return_lo_, return_hi_;
  bool solvable_;  // the solver's value algebra holds for this game

  NodeArena arenas_[2];
  int live_ = 0;
  Node* root_ = nullptr;
  std::unique_ptr<games::State> root_state_;
  const Node* noised_root_ = nullptr;
  bool noise_active_ = false;

  // Each counter every simulation touches gets its own cache line: threads on one tree
  // should contend only where they must (the root's statistics).
  alignas(64) std::atomic<std::int64_t> sims_started_{0};
  alignas(64) std::atomic<std::int64_t> collisions_{0};
  std::atomic<std::int64_t> bursts_run_{0};  // added once per thread, when its run ends
  // Read on every simulation, written only by begin(): kept off the counters' lines.
  alignas(64) std::chrono::steady_clock::time_point start_{};
  std::chrono::steady_clock::time_point deadline_{};
  bool has_deadline_ = false;
  const std::atomic<bool>* stop_ = nullptr;
  std::int64_t root_visits_at_begin_ = 0;  // simulations done = root visits gained since begin()
  // Simulations this search may start: the count and max_visits limits (begin()).
  bool limit_simulations_ = false;
  std::int64_t simulation_limit_ = 0;
  util::ThreadTeam team_;  // run()'s helper threads, kept from search to search
  bool shared_tree_ = false;  // run() with several threads (see backup)
  bool bursts_ = false;       // and SearchConfig::burst_simulations > 0
  // Single-player value normalisation: the range of values backed up so far.
  std::atomic<double> min_seen_{0}, max_seen_{0};
  std::atomic<bool> seen_any_{false};
};

}  // namespace pz::mcts
