// polyzero serve: play against the AI in a browser (server/play_server.h). Prints the
// address it listens on as its first line, serves until Ctrl-C.
#include <iostream>
#include <thread>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "server/play_server.h"
#include "util/data_dirs.h"
#include "util/error.h"
#include "util/stop_signal.h"

namespace pz::apps {

void add_serve_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("serve", "play in a browser against the AI: a web page and a JSON API (see server/README.md)");
  auto options = std::make_shared<server::ServeOptions>();
  auto models = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--host", options->host, "address to listen on (loopback unless told otherwise)")->capture_default_str();
  cmd->add_option("--port", options->port, "port (0: any free port)")->check(CLI::Range(0, 65535))->capture_default_str();
  cmd->add_option("--model", *models, "GAME=CHECKPOINT: the default AI of a game searches with this network (repeatable; default: the models shipped in models/)");
  cmd->add_option("--allow-host", options->allowed_hosts,
                  "a host name browsers may use to reach the server besides its address and localhost (repeatable); "
                  "requests naming any other host are refused, against DNS rebinding");
  cmd->add_option("--db", options->db, "SQLite file of the sessions (:memory: keeps nothing)")->capture_default_str();
  cmd->add_option("--web", options->web_dir,
                  "directory of the page's files (default: $PZ_WEB_DIR, else found beside the executable: "
                  "share/polyzero/web of an install, server/web of a source tree)");
  cmd->add_option("--ai-threads", options->ai_threads, "AI searches run at once")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--ai-queue", options->ai_queue, "AI moves waiting at most; more are refused (503)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->callback([options, models] {
    if (options->web_dir.empty())
      options->web_dir = util::require_data_dir({"PZ_WEB_DIR", "web", "server/web", "index.html"}, "the web client");
    // A damaged or foreign checkpoint is refused now, not at the first AI move.
    const GameModels networks = load_game_models(*models);
    options->models = networks.paths;
    options->model_games = networks.games;
    server::PlayServer server(*options);
    const int port = server.bind();
    const auto& stop = util::install_stop_signal_handlers();  // before the line scripts wait for
    std::cout << "serving on http://" << options->host << ":" << port << std::endl;
    std::atomic<bool> ended{false};
    std::thread watcher([&] {
      while (!stop.load() && !ended.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      server.stop();
    });
    server.run();
    ended.store(true);
    watcher.join();
  });
}

}  // namespace pz::apps
