// polyzero sprt: is --p1 stronger than --p2 by elo1 rather than elo0? Plays game pairs
// (same opening, colours swapped) until the pentanomial SPRT decides (arena/sprt.h). The
// games are a two-player tournament (arena/tournament.h), so --db records them and the
// same command continues an interrupted test.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/player_factory.h"
#include "arena/sprt.h"
#include "arena/tournament.h"
#include "util/error.h"
#include "util/stop_signal.h"

namespace pz::apps {
namespace {

struct Args {
  GameArgs game;
  std::string p1, p2;
  arena::SprtOptions sprt;
  int max_pairs = 20000;
  int concurrency = 1;
  std::string openings = "random:4";
  std::string db;
  std::int64_t seed = 1;
  int max_moves = 0;
  bool json = false;
  bool quiet = false;
};

// Pairs whose two games are both stored, as p1's outcomes; p1 moves first in even rounds.
class PairCollector {
 public:
  void add(const arena::StoredGame& g, const std::string& p1) {
    const bool p1_first = g.first_player == p1;
    const arena::Outcome first = g.result == "1-0"   ? arena::Outcome::kWin
                                 : g.result == "0-1" ? arena::Outcome::kLoss
                                                     : arena::Outcome::kDraw;
    const arena::Outcome mine = p1_first ? first
                                : first == arena::Outcome::kWin ? arena::Outcome::kLoss
                                : first == arena::Outcome::kLoss ? arena::Outcome::kWin
                                                                 : arena::Outcome::kDraw;
    auto& pair = halves_[g.round / 2];
    pair[g.round % 2] = mine;
    if (pair.size() == 2) counts_.add_pair(pair.at(0), pair.at(1));
  }
  const arena::Pentanomial& counts() const { return counts_; }

 private:
  std::map<int, std::map<int, arena::Outcome>> halves_;
  arena::Pentanomial counts_;
};

std::string status_line(const arena::Pentanomial& counts, const arena::SprtStatus& status) {
  char line[256];
  const auto& p = counts.pairs;
  std::snprintf(line, sizeof line,
                "pairs %.0f  LLR %+.3f  bounds [%.3f, %.3f]  score %.1f%% +- %.1f  pentanomial %.0f %.0f %.0f %.0f %.0f",
                counts.total(), status.llr, status.lower, status.upper, 100 * counts.mean_score(),
                196 * counts.stderr_score(), p[0], p[1], p[2], p[3], p[4]);
  return line;
}

}  // namespace

void add_sprt_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("sprt", "sequential probability ratio test: is --p1 stronger than --p2 by --elo1 "
                                         "rather than --elo0? (pentanomial, on game pairs)");
  auto args = std::make_shared<Args>();
  args->game.add_to(*cmd, "connect4");
  cmd->add_option("--p1", args->p1, "the tested player")->required();
  cmd->add_option("--p2", args->p2, "the baseline player")->required();
  cmd->add_option("--elo0", args->sprt.elo0, "H0: p1 is this many (logistic) Elo stronger")->capture_default_str();
  cmd->add_option("--elo1", args->sprt.elo1, "H1: p1 is this many (logistic) Elo stronger")->capture_default_str();
  cmd->add_option("--alpha", args->sprt.alpha, "false-positive rate (accepting H1 when H0 holds)")->capture_default_str();
  cmd->add_option("--beta", args->sprt.beta, "false-negative rate (accepting H0 when H1 holds)")->capture_default_str();
  cmd->add_option("--max-pairs", args->max_pairs, "give up undecided after this many game pairs")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cmd->add_option("--concurrency,-c", args->concurrency, "games played at once")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--openings", args->openings, "random:K or a file of move lines (\"\" for the initial position)")
      ->capture_default_str();
  cmd->add_option("--db", args->db, "SQLite file of the games; the same command on the same file continues");
  cmd->add_option("--seed", args->seed, "seed of the openings and players")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--max-moves", args->max_moves, "adjudicate a draw after this many moves (0: never)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_flag("--json", args->json, "print the outcome as one JSON object");
  cmd->add_flag("--quiet,-q", args->quiet, "no line per pair");
  cmd->footer("Players are written kind[:key=value,...]:\n" + arena::describe_player_kinds());
  cmd->callback([args] {
    arena::validate(args->sprt);
    if (args->p1 == args->p2) throw util::UsageError("--p1 and --p2 are the same player; an SPRT compares two players");
    auto game = args->game.make();
    arena::TournamentOptions options;
    options.players = {args->p1, args->p2};
    options.games_per_pairing = 2 * args->max_pairs;
    options.concurrency = args->concurrency;
    options.openings = args->openings;
    options.seed = static_cast<std::uint64_t>(args->seed);
    options.max_moves = args->max_moves;
    const auto& stop = util::install_stop_signal_handlers();
    arena::TournamentDb db(args->db.empty() ? ":memory:" : args->db);
    arena::Tournament tournament(*game, std::move(options), db);
    PairCollector pairs;
    for (const auto& g : tournament.games()) pairs.add(g, args->p1);
    auto status = arena::sprt_status(pairs.counts(), args->sprt);
    if (status.decision == arena::SprtDecision::kContinue) {
      tournament.run(stop, [&](const arena::StoredGame& g) {
        const double before = pairs.counts().total();
        pairs.add(g, args->p1);
        if (pairs.counts().total() == before) return true;
        status = arena::sprt_status(pairs.counts(), args->sprt);
        if (!args->quiet && !args->json) std::cerr << status_line(pairs.counts(), status) << "\n";
        return status.decision == arena::SprtDecision::kContinue;
      });
    }
    const auto& counts = pairs.counts();
    if (args->json) {
      nlohmann::json out{{"p1", args->p1},
                         {"p2", args->p2},
                         {"elo0", args->sprt.elo0},
                         {"elo1", args->sprt.elo1},
                         {"alpha", args->sprt.alpha},
                         {"beta", args->sprt.beta},
                         {"llr", status.llr},
                         {"lower", status.lower},
                         {"upper", status.upper},
                         {"decision", arena::decision_name(status.decision)},
                         {"pairs", counts.total()},
                         {"pentanomial", counts.pairs},
                         {"score", counts.mean_score()},
                         {"score_stderr", counts.stderr_score()}};
      std::cout << out.dump() << std::endl;
      return;
    }
    std::cout << status_line(counts, status) << "\n";
    switch (status.decision) {
      case arena::SprtDecision::kAcceptH1:
        std::cout << "H1 accepted: " << args->p1 << " is stronger than " << args->p2 << " by about " << args->sprt.elo1
                  << " Elo or more (false-positive rate " << args->sprt.alpha << ")\n";
        break;
      case arena::SprtDecision::kAcceptH0:
        std::cout << "H0 accepted: " << args->p1 << " is not stronger than " << args->p2 << " by " << args->sprt.elo1
                  << " Elo (gap about " << args->sprt.elo0 << " or less; false-negative rate " << args->sprt.beta << ")\n";
        break;
      case arena::SprtDecision::kContinue:
        if (stop.load()) {
          std::cout << "stopped undecided; " << (args->db.empty() ? "with --db FILE, " : "")
                    << "the same command continues\n";
        } else {
          std::cout << "no decision after " << args->max_pairs << " pairs; a larger --max-pairs"
                    << (args->db.empty() ? " with --db FILE" : " on the same --db") << " continues\n";
        }
        break;
    }
  });
}

}  // namespace pz::apps
