// polyzero.tournament(game, players, ...): ratings of several players from a round-robin or
// gauntlet (arena/tournament.h), as `polyzero tournament` plays and rates them: records in
// SQLite (":memory:" by default; a file resumes), Elo with 95% intervals (BayesElo's model),
// the crosstable. Runs without the GIL; Ctrl-C stops between moves — the finished games stay
// in the database, the same call on the same file continues — and raises KeyboardInterrupt.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "arena/tournament.h"
#include "arena/tournament_report.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/games_module.h"
#include "python/interruptible.h"

namespace py = pybind11;

namespace pz::python {

namespace {

py::object json_to_python(const nlohmann::json& value) { return py::module_::import("json").attr("loads")(value.dump()); }

arena::RatingOptions anchor_options(const py::object& anchor, const std::vector<std::string>& players) {
  arena::RatingOptions options;
  if (anchor.is_none()) return options;
  const std::string spec = anchor.cast<std::string>();
  const auto it = std::find(players.begin(), players.end(), spec);
  if (it == players.end()) throw_value_error("tournament: anchor '" + spec + "' is not one of the players (give its spec as listed)");
  options.anchor = static_cast<int>(it - players.begin());
  return options;
}

py::object run_tournament(py::handle game_arg, const std::vector<std::string>& players, int games, const std::string& format,
                          int concurrency, const std::string& openings, const std::string& db_path, std::uint64_t seed,
                          int max_moves, const py::object& anchor, double anchor_elo, const py::object& on_game) {
  const GameHandle game = game_argument(game_arg);
  if (players.size() < 2) throw_value_error("tournament: at least two players");
  if (games < 1 || concurrency < 1 || max_moves < 0) throw_value_error("tournament: games and concurrency at least 1, max_moves at least 0");
  arena::TournamentOptions options;
  options.players = players;
  options.format = arena::parse_format(format);
  options.games_per_pairing = games;
  options.concurrency = concurrency;
  options.openings = openings;
  options.seed = seed;
  options.max_moves = max_moves;
  arena::RatingOptions rating = anchor_options(anchor, players);
  rating.anchor_elo = anchor_elo;

  arena::TournamentDb db(db_path);
  arena::Tournament tournament(*game, options, db);
  // Finished games reach on_game on the calling thread, between the waits.
  std::mutex mutex;
  std::vector<arena::StoredGame> finished;
  run_interruptibly(
      [&](const std::atomic<bool>& stop) {
        tournament.run(stop, [&](const arena::StoredGame& g) {
          if (!on_game.is_none()) {
            std::lock_guard lock(mutex);
            finished.push_back(g);
          }
          return true;
        });
      },
      [&] {
        if (on_game.is_none()) return;
        std::vector<arena::StoredGame> batch;
        {
          std::lock_guard lock(mutex);
          batch.swap(finished);
        }
        for (const auto& g : batch) on_game(g.first_player, g.second_player, g.result, static_cast<int>(g.moves.size()));
      });
  const auto report = arena::make_rating_report(tournament.record().players, tournament.results(), rating);
  nlohmann::json out = arena::rating_report_json(report);
  out["game"] = tournament.record().game;
  out["format"] = tournament.record().format;
  out["games_per_pairing"] = tournament.record().games_per_pairing;
  out["games_played"] = tournament.games().size();
  out["games_total"] = tournament.total_games();
  out["complete"] = static_cast<int>(tournament.games().size()) == tournament.total_games();
  out["db"] = db.path();
  out["table"] = arena::rating_table_text(report);
  out["crosstable"] = arena::crosstable_text(report);
  return json_to_python(out);
}

}  // namespace

void bind_tournament(py::module_& m) {
  m.def("tournament", &run_tournament, py::arg("game"), py::arg("players"), py::kw_only(), py::arg("games") = 10,
        py::arg("format") = "round-robin", py::arg("concurrency") = 1, py::arg("openings") = "",
        py::arg("db") = ":memory:", py::arg("seed") = 1, py::arg("max_moves") = 0, py::arg("anchor") = py::none(),
        py::arg("anchor_elo") = 0.0, py::arg("on_game") = py::none(),
        "Ratings of `players` (specs) from a round-robin or gauntlet of `games` games per pairing, colours "
        "alternating, as `polyzero tournament` plays them. Returns a dict: ratings (Elo with 95% intervals), "
        "crosstable, games played, and the text tables. db: an SQLite file keeps the games; the same call on it "
        "plays only the missing ones. on_game(first_player, second_player, result, moves) after each game. "
        "Ctrl-C stops between moves and raises KeyboardInterrupt.");
}

}  // namespace pz::python
