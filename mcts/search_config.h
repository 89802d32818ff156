// Everything that tunes one search, with the defaults of AlphaZero / KataGo where they
// apply. Values are in the game's return units; selection normalises them to [0, 1] (by
// the game's return bounds, or for single-player games by the running min/max of values
// seen in the tree, as MuZero does) so that c_puct means the same for every game.
#pragma once

#include <cmath>

#include <cstdint>

namespace pz::mcts {

// Hidden-information games: resampled states a player's search budget is split over when
// it does not say (determinization.h). More worlds average out the sampling; fewer leave
// each world a deeper search.
inline constexpr int kDefaultWorlds = 8;

struct SearchConfig {
  // --- Budget: the search stops at the first limit reached (0 = no such limit) ---
  int simulations = 800;      // new playouts in this search
  int max_visits = 0;         // root visits, reused ones included (KataGo's maxVisits)
  double max_seconds = 0;     // wall-clock time
  bool stop_when_proven = true;  // the solver proved the root: nothing left to learn

  // --- PUCT: c(N) = c_puct_init + log((N + c_puct_base + 1) / c_puct_base) ---
  double c_puct_init = 1.25;
  double c_puct_base = 19652;
  // c(N)·√N for a parent with N visits: a child's exploration bonus is this · prior / (1 + n).
  double puct_exploration(double parent_visits) const {
    return (c_puct_init + std::log((parent_visits + c_puct_base + 1.0) / c_puct_base)) * std::sqrt(parent_visits);
  }
  // First-play urgency: an unvisited child's Q is the parent's value minus
  // reduction · sqrt(prior mass of the visited children) (KataGo, Leela).
  double fpu_reduction = 0.25;
  double fpu_reduction_root = 0.0;

  // --- Root exploration (self-play) ---
  bool root_noise = false;
  double noise_fraction = 0.25;    // P' = (1 - f)·P + f·Dir(alpha)
  double noise_alpha_total = 10.0; // alpha = min(noise_alpha_max, total / number of legal moves)
  double noise_alpha_max = 1.0;
  bool forced_playouts = false;    // KataGo: root child c gets at least sqrt(k·P(c)·N) visits
  double forced_playout_k = 2.0;

  // --- Parallelism ---
  int threads = 1;             // threads searching this tree
  int leaves_per_batch = 1;    // leaves each thread gathers (under virtual loss) per evaluation
  int max_collisions = 4;      // collisions tolerated while gathering before evaluating early
  double virtual_loss = 1.0;   // weight of one in-flight descent, counted as a loss
  // Threads sharing a tree run bursts of up to this many simulations (0: off). A burst's
  // first descent selects as usual, and its path through the busy top of the tree (the
  // nodes with at least kBurstVisitsPerSimulation × the burst's length in visits, search.cpp;
  // the first node's visits set the length, up to this) is kept for the whole burst: the
  // burst's virtual losses are put on that path at once, its visits and values there are
  // published when it ends, and its other simulations start where that path ends. Without
  // bursts every simulation writes the same top nodes as every other thread's, and moving
  // those cache lines between cores costs more than a cheap simulation itself; with them the
  // threads search different subtrees for a while. Strength with and without bursts:
  // docs/BENCHMARKS.md, "Search bursts".
  int burst_simulations = 16;

  // --- Solver and reuse ---
  bool solver = true;          // MCTS-solver for two-player zero-sum and single-player games
  // With the solver, in two-player zero-sum games: expanding a position first tries each
  // legal move for one that ends the game in a win for the mover. Such a position is proven
  // at once, without an evaluation, so a move that allows an immediate win is seen to lose
  // the first time it is searched. Without it a network that gives the winning reply a tiny
  // prior hides it from a short search (at 200 simulations, 15 of one Connect Four model's
  // 26 losses to uct:sims=1000 were moves that let the opponent win on the next move).
  bool check_immediate_wins = true;
  bool reuse_tree = true;
};

// Move choice after a search.
struct TemperatureSchedule {
  double initial = 0.0;     // temperature at move 0
  double final = 0.0;       // temperature it decays to
  int moves = 0;            // step schedule: `initial` for the first `moves` moves, then `final`
  double halflife = 0.0;    // > 0: smooth decay, final + (initial - final)·0.5^(move / halflife)
  double at(int move_number) const;
};

struct MoveSelection {
  enum class Method { kVisits, kLcb };
  Method method = Method::kVisits;
  double lcb_z = 1.96;                  // LCB = Q - z·σ/√N, in normalised value units
  double lcb_min_visit_fraction = 0.1;  // children with fewer visits than this × the most are not LCB candidates
  TemperatureSchedule temperature;
};

}  // namespace pz::mcts
