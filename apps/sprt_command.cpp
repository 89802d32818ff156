// polyzero sprt: is --p1 stronger than --p2 by elo1 rather than elo0? Plays game pairs
// (same opening, colours swapped) until the pentanomial SPRT decides (arena/sprt.h). The
// games are a two-player tournament (arena/tournament.h), so --db records them and the
// same command continues an interrupted test.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "arena/player_factory.h"
#include "arena/sprt.h"
#include "arena/sprt_match.h"
#include "util/error.h"
#include "util/stop_signal.h"

namespace pz::apps {
namespace {

struct SprtArgs {
  GameArgs game;
  arena::SprtMatchOptions match;
  std::string db;
  std::int64_t seed = 1;
  bool json = false;
  bool quiet = false;
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
  auto args = std::make_shared<SprtArgs>();
  args->game.add_to(*cmd, "connect4");
  cmd->add_option("--p1", args->match.tested, "the tested player")->required();
  cmd->add_option("--p2", args->match.baseline, "the baseline player")->required();
  cmd->add_option("--elo0", args->match.sprt.elo0, "H0: p1 is this many (logistic) Elo stronger")->capture_default_str();
  cmd->add_option("--elo1", args->match.sprt.elo1, "H1: p1 is this many (logistic) Elo stronger")->capture_default_str();
  cmd->add_option("--alpha", args->match.sprt.alpha, "false-positive rate (accepting H1 when H0 holds)")->capture_default_str();
  cmd->add_option("--beta", args->match.sprt.beta, "false-negative rate (accepting H0 when H1 holds)")->capture_default_str();
  cmd->add_option("--max-pairs", args->match.max_pairs, "give up undecided after this many game pairs")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cmd->add_option("--concurrency,-c", args->match.concurrency, "games played at once")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--openings", args->match.openings, "random:K or a file of move lines (\"\" for the initial position)")
      ->capture_default_str();
  cmd->add_option("--db", args->db, "SQLite file of the games; the same command on the same file continues");
  cmd->add_option("--seed", args->seed, "seed of the openings and players")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--max-moves", args->match.max_moves, "adjudicate a draw after this many moves (0: never)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_flag("--json", args->json, "print the outcome as one JSON object");
  cmd->add_flag("--quiet,-q", args->quiet, "no line per pair");
  cmd->footer("Players are written kind[:key=value,...]:\n" + arena::describe_player_kinds());
  cmd->callback([args] {
    auto game = args->game.make();
    args->match.seed = static_cast<std::uint64_t>(args->seed);
    const auto& stop = util::install_stop_signal_handlers();
    arena::TournamentDb db(args->db.empty() ? ":memory:" : args->db);
    const auto result = arena::play_sprt(*game, args->match, db, stop, [&](const arena::SprtMatchResult& so_far) {
      if (!args->quiet && !args->json) std::cerr << status_line(so_far.counts, so_far.status) << "\n";
    });
    const auto& status = result.status;
    const auto& counts = result.counts;
    if (args->json) {
      nlohmann::json out{{"p1", args->match.tested},
                         {"p2", args->match.baseline},
                         {"elo0", args->match.sprt.elo0},
                         {"elo1", args->match.sprt.elo1},
                         {"alpha", args->match.sprt.alpha},
                         {"beta", args->match.sprt.beta},
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
        std::cout << "H1 accepted: " << args->match.tested << " is stronger than " << args->match.baseline << " by about " << args->match.sprt.elo1
                  << " Elo or more (false-positive rate " << args->match.sprt.alpha << ")\n";
        break;
      case arena::SprtDecision::kAcceptH0:
        std::cout << "H0 accepted: " << args->match.tested << " is not stronger than " << args->match.baseline << " by " << args->match.sprt.elo1
                  << " Elo (gap about " << args->match.sprt.elo0 << " or less; false-negative rate " << args->match.sprt.beta << ")\n";
        break;
      case arena::SprtDecision::kContinue:
        if (stop.load()) {
          std::cout << "stopped undecided; " << (args->db.empty() ? "with --db FILE, " : "")
                    << "the same command continues\n";
        } else {
          std::cout << "no decision after " << args->match.max_pairs << " pairs; a larger --max-pairs"
                    << (args->db.empty() ? " with --db FILE" : " on the same --db") << " continues\n";
        }
        break;
    }
  });
}

}  // namespace pz::apps
