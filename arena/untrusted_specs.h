// Player specs from a client that must not hold the powers of the machine's user: a web page
// talking to `polyzero serve`, or an analysis query from another program
// (`polyzero analyze --untrusted`).
//
// A spec is a capability: `gtp:cmd=…` runs a shell command, `mcts:model=PATH` opens a file,
// `gtp:…,log=PATH` writes one, and a budget of 10^7 simulations holds a core for hours. An
// untrusted client gets only what computes, within bounds:
//
//   - the kinds human, random, uct, mcts, policy and solver (never gtp, nor a kind added
//     later, until it is listed here);
//   - for each kind, only the options listed below; every number finite, and those that
//     size time or memory (sims, seconds, threads, batch, rollouts, worlds, nnthreads, sym)
//     at most the bound given;
//   - networks only by the names the server's operator registered (`--model GAME=PATH`
//     registers GAME): `mcts:model=connect4` is resolved to its checkpoint here, and a
//     path is refused like any other unknown name.
//
// The rule is an allow-list, so an option added to a player kind stays unavailable to
// untrusted clients until it is added here too.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace pz::arena {

// The most an untrusted client may ask of one move.
struct UntrustedBudget {
  int max_simulations = 100000;
  double max_seconds = 60;
  int max_threads = 4;  // search threads and network threads
};

class UntrustedSpecs {
 public:
  // `models`: the registered network names (a game name) and their checkpoints.
  explicit UntrustedSpecs(std::map<std::string, std::string> models = {}, UntrustedBudget budget = {});

  // The spec as it can be made (model names replaced by their checkpoints). Throws
  // util::UsageError saying what is refused and what is accepted.
  std::string resolve(std::string_view spec) const;

  // The registered names and their checkpoints.
  const std::map<std::string, std::string>& models() const { return models_; }

 private:
  std::map<std::string, std::string> models_;
  UntrustedBudget budget_;
};

}  // namespace pz::arena
