// polyzero: one executable, one subcommand per file (see commands.h).

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>
#include <iostream>

#include "apps/commands.h"
#include "apps/torch_support.h"
#include "solve/solver_player.h"
#include "util/error.h"

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// CLI11 answers a mistyped command with "A subcommand is required": name it, and the
// nearest command, instead.
void check_command_name(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind('-', 0) == 0) continue;
    std::string names, nearest;
    std::size_t best = 3;  // suggest only within two edits
    for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
      if (command->get_name() == arg) return;
      names += (names.empty() ? "" : ", ") + command->get_name();
      if (const std::size_t d = edit_distance(arg, command->get_name()); d < best) {
        best = d;
        nearest = command->get_name();
      }
    }
    const std::string shown = arg.size() <= 40 ? arg : arg.substr(0, 37) + "...";
    throw pz::util::UsageError("unknown command '" + shown + "'" +
                               (nearest.empty() ? "" : " (did you mean '" + nearest + "'?)") + "; the commands are " +
                               names + " (polyzero --help describes them)");
  }
}

// No option of any command takes a number that is not finite, and CLI11's range checks let
// NaN through (every comparison with it is false): refuse "nan", "inf" and numbers beyond a
// double's range wherever they are given, as an option's value or after '='.
void check_finite_numbers(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string value = argv[i];
    std::string option = i > 1 && argv[i - 1][0] == '-' ? argv[i - 1] : "";
    if (value.rfind("--", 0) == 0 && value.find('=') != std::string::npos) {
      option = value.substr(0, value.find('='));
      value = value.substr(value.find('=') + 1);
    }
    if (value.empty()) continue;
    errno = 0;
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    if (end != value.c_str() + value.size()) continue;  // not a number
    if (std::isfinite(number) && errno != ERANGE) continue;
    if (errno == ERANGE && std::isfinite(number)) continue;  // a denormal, still a number
    const std::string shown = value.size() <= 24 ? value : value.substr(0, 21) + "...";
    throw pz::util::UsageError((option.empty() ? std::string("argument") : option) + " '" + shown +
                               "': not a finite number; give an ordinary number");
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"polyzero — self-play game AI: games, search, training, tournaments and play"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "polyzero 0.1.0");

  // Model-backed players (policy:model=…, mcts:model=…) join the arena's list.
  pz::apps::register_model_players();
  // The perfect player (solver[:seconds=S]) for the games that have an exact solver.
  pz::solve::register_solver_player();

  pz::apps::add_train_command(app);
  pz::apps::add_play_command(app);
  pz::apps::add_match_command(app);
  pz::apps::add_tournament_command(app);
  pz::apps::add_sprt_command(app);
  pz::apps::add_replay_command(app);
  pz::apps::add_serve_command(app);
  pz::apps::add_analyze_command(app);
  pz::apps::add_gtp_command(app);
  pz::apps::add_games_command(app);
  pz::apps::add_perft_command(app);
  pz::apps::add_bench_command(app);
  pz::apps::add_lr_command(app);
  pz::apps::add_polyc_command(app);
  pz::apps::add_solve_command(app);
  pz::apps::add_accuracy_command(app);
  pz::apps::add_info_command(app);
  pz::apps::add_export_command(app);
#ifdef PZ_HAVE_DIST
  pz::apps::add_selfplay_command(app);
  pz::apps::add_status_command(app);
#endif

  try {
    check_command_name(app, argc, argv);
    check_finite_numbers(argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;  // every usage error exits with 2, whatever CLI11's own code
  } catch (const pz::util::UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const pz::util::RunError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
