// Every `polyzero` subcommand lives in its own file and adds itself to the CLI here.
// Commands wire modules together; the logic they run lives in the modules.
#pragma once

#include <CLI/CLI.hpp>

namespace pz::apps {

void add_games_command(CLI::App& app);
void add_perft_command(CLI::App& app);
void add_play_command(CLI::App& app);
void add_match_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_lr_command(CLI::App& app);
void add_polyc_command(CLI::App& app);
void add_solve_command(CLI::App& app);
void add_accuracy_command(CLI::App& app);
void add_gtp_command(CLI::App& app);
void add_tournament_command(CLI::App& app);
void add_sprt_command(CLI::App& app);
void add_replay_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_analyze_command(CLI::App& app);
#ifdef PZ_HAVE_DIST
// distributed/: actors and learners across processes on Redis.
void add_selfplay_command(CLI::App& app);
void add_status_command(CLI::App& app);
#endif

}  // namespace pz::apps
