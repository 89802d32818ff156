#include "arena/tournament.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "arena/sgf.h"
#include "arena/tournament_report.h"
#include "games/registry.h"
#include "util/error.h"
#include "util/sqlite.h"

namespace pz::arena {
namespace {

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("pz_tournament_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::filesystem::remove(path);
  return path.string();
}

TournamentOptions tictactoe_options() {
  TournamentOptions options;
  options.players = {"random:seed=1", "uct:sims=30", "uct:sims=300"};
  options.games_per_pairing = 4;
  options.seed = 11;
  return options;
}

std::set<std::string> game_keys(const std::vector<StoredGame>& games) {
  std::set<std::string> keys;
  for (const auto& g : games) {
    std::string key = std::to_string(g.pairing_a) + "," + std::to_string(g.pairing_b) + "," + std::to_string(g.round) +
                      ":" + g.first_player + ":" + g.result;
    for (const auto& m : g.moves) key += " " + m;
    keys.insert(key);
  }
  return keys;
}

TEST(Tournament, PairingsOfEachFormat) {
  EXPECT_EQ(make_pairings(TournamentFormat::kRoundRobin, 4).size(), 6u);
  const auto gauntlet = make_pairings(TournamentFormat::kGauntlet, 4);
  ASSERT_EQ(gauntlet.size(), 3u);
  for (const auto& p : gauntlet) EXPECT_EQ(p.a, 0);
  // Two anchors, three models: each model meets both anchors, and each the next model.
  EXPECT_EQ(make_pairings(TournamentFormat::kChainGauntlet, 5, 2).size(), 8u);
  EXPECT_THROW(make_pairings(TournamentFormat::kRoundRobin, 1), util::UsageError);
  EXPECT_THROW(make_pairings(TournamentFormat::kChainGauntlet, 2, 2), util::UsageError);
  EXPECT_EQ(parse_format("gauntlet"), TournamentFormat::kGauntlet);
  EXPECT_THROW(parse_format("swiss"), util::UsageError);
}

TEST(Tournament, RoundRobinOnTicTacToeRanksTheSearchAboveRandom) {
  const auto game = games::make_game("tictactoe");
  TournamentDb db(":memory:");
  Tournament tournament(*game, tictactoe_options(), db);
  EXPECT_EQ(tournament.total_games(), 12);
  std::atomic<bool> stop{false};
  int calls = 0;
  tournament.run(stop, [&](const StoredGame& g) {
    ++calls;
    EXPECT_GT(g.id, 0);
    EXPECT_FALSE(g.moves.empty());
    return true;
  });
  EXPECT_EQ(calls, 12);
  EXPECT_EQ(tournament.missing_games(), 0);
  const auto results = tournament.results();
  double games = 0;
  for (int i = 0; i < 3; ++i) games += results.total_games(i);
  EXPECT_EQ(games, 24);  // each game counted for both players
  // Colours alternate within each pairing.
  for (const auto& g : tournament.games()) {
    const auto& expected_first = tournament.record().players[static_cast<std::size_t>(g.round % 2 == 0 ? g.pairing_a : g.pairing_b)];
    EXPECT_EQ(g.first_player, expected_first);
  }
  const auto report = make_rating_report(tournament.record().players, results, RatingOptions{});
  EXPECT_GT(report.ratings.elo[2], report.ratings.elo[0]);
  EXPECT_NE(rating_table_text(report).find("uct:sims=300"), std::string::npos);
  EXPECT_NE(crosstable_text(report).find("/4"), std::string::npos);
  EXPECT_EQ(rating_report_json(report)["ratings"].size(), 3u);
}

TEST(Tournament, StoppedTournamentResumesToTheSameGames) {
  const auto game = games::make_game("tictactoe");
  const std::string path = temp_path("resume.sqlite");
  std::atomic<bool> stop{false};
  {
    TournamentDb db(path);
    Tournament first(*game, tictactoe_options(), db);
    int played = 0;
    first.run(stop, [&](const StoredGame&) { return ++played < 5; });
    EXPECT_EQ(first.games().size(), 5u);
  }
  TournamentDb db(path);
  Tournament resumed(*game, tictactoe_options(), db);
  EXPECT_EQ(resumed.games().size(), 5u);
  EXPECT_EQ(resumed.missing_games(), 7);
  resumed.run(stop);
  EXPECT_EQ(resumed.games().size(), 12u);
  EXPECT_EQ(db.tournaments().size(), 1u);

  // The same games as a tournament played in one go, two at a time.
  TournamentDb fresh(":memory:");
  auto options = tictactoe_options();
  options.concurrency = 2;
  Tournament whole(*game, options, fresh);
  whole.run(stop);
  EXPECT_EQ(game_keys(whole.games()), game_keys(resumed.games()));
}

TEST(Tournament, MoreGamesPerPairingExtendTheStoredTournament) {
  const auto game = games::make_game("tictactoe");
  TournamentDb db(":memory:");
  std::atomic<bool> stop{false};
  auto options = tictactoe_options();
  options.games_per_pairing = 2;
  Tournament small(*game, options, db);
  small.run(stop);
  options.games_per_pairing = 4;
  Tournament larger(*game, options, db);
  EXPECT_EQ(larger.record().id, small.record().id);
  EXPECT_EQ(larger.missing_games(), 6);
  options.games_per_pairing = 1;  // fewer: the stored extra rounds do not count
  Tournament fewer(*game, options, db);
  EXPECT_EQ(fewer.games().size(), 3u);
  EXPECT_EQ(fewer.missing_games(), 0);
}

TEST(Tournament, AStopRequestPlaysNothingMore) {
  const auto game = games::make_game("tictactoe");
  TournamentDb db(":memory:");
  Tournament tournament(*game, tictactoe_options(), db);
  std::atomic<bool> stop{true};
  tournament.run(stop);
  EXPECT_TRUE(tournament.games().empty());
}

TEST(Tournament, GamePairsShareTheirRandomOpening) {
  const auto game = games::make_game("connect4");
  TournamentDb db(":memory:");
  TournamentOptions options;
  options.players = {"random:seed=1", "random:seed=2"};
  options.games_per_pairing = 4;
  options.openings = "random:3";
  Tournament tournament(*game, options, db);
  std::atomic<bool> stop{false};
  tournament.run(stop);
  std::vector<std::vector<std::string>> openings(2);
  for (const auto& g : tournament.games()) {
    ASSERT_EQ(g.opening_plies, 3);
    std::vector<std::string> opening(g.moves.begin(), g.moves.begin() + 3);
    auto& pair = openings[static_cast<std::size_t>(g.round / 2)];
    if (pair.empty()) {
      pair = opening;
    } else {
      EXPECT_EQ(pair, opening);
    }
  }
  EXPECT_NE(openings[0], openings[1]);
}

TEST(Tournament, OpeningFilesAreCheckedLineByLine) {
  const auto game = games::make_game("connect4");
  const std::string path = temp_path("openings.txt");
  {
    std::ofstream out(path);
    out << "# two openings\n4 4\n\n4 3 9\n";
  }
  try {
    Openings openings(path, *game);
    FAIL() << "an illegal move was accepted";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("line 4, move 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Openings("random:0", *game), util::UsageError);
  EXPECT_THROW(Openings("random:x", *game), util::UsageError);
  EXPECT_THROW(Openings(temp_path("missing.txt"), *game), util::UsageError);
}

TEST(Tournament, RejectsBadPlayerLists) {
  const auto tictactoe = games::make_game("tictactoe");
  TournamentDb db(":memory:");
  TournamentOptions options;
  options.players = {"random", "random"};
  EXPECT_THROW(Tournament(*tictactoe, options, db), util::UsageError);
  options.players = {"random", "human"};
  EXPECT_THROW(Tournament(*tictactoe, options, db), util::UsageError);
  options.players = {"random"};
  EXPECT_THROW(Tournament(*tictactoe, options, db), util::UsageError);
  options.players = {"random", "nonsense:x=1"};
  EXPECT_THROW(Tournament(*tictactoe, options, db), util::UsageError);
  const auto solo = games::make_game("2048");
  options.players = {"random", "random:seed=3"};
  EXPECT_THROW(Tournament(*solo, options, db), util::UsageError);
}

TEST(TournamentDb, KeepsGamesAndRefusesOtherFiles) {
  const std::string path = temp_path("records.sqlite");
  TournamentRecord record;
  record.game = "tictactoe";
  record.format = "round-robin";
  record.players = {"random", "uct:sims=10"};
  record.games_per_pairing = 2;
  std::int64_t id = 0;
  {
    TournamentDb db(path);
    const auto opened = db.open_tournament(record);
    StoredGame g;
    g.tournament_id = opened.id;
    g.pairing_a = 0, g.pairing_b = 1, g.round = 0;
    g.game = "tictactoe";
    g.first_player = "random";
    g.second_player = "uct:sims=10";
    g.result = "0-1";
    g.reason = "game over";
    g.moves = {"b2", "a1"};
    g.final_state = "x";
    g.started = g.finished = TournamentDb::now_utc();
    id = db.add_game(g);
    EXPECT_THROW(db.add_game(g), std::runtime_error);  // the same slot twice
  }
  TournamentDb db(path);
  const auto game = db.game(id);
  ASSERT_TRUE(game.has_value());
  EXPECT_EQ(game->moves, (std::vector<std::string>{"b2", "a1"}));
  EXPECT_EQ(game->second_player, "uct:sims=10");
  EXPECT_FALSE(db.game(id + 100).has_value());
  EXPECT_EQ(db.open_tournament(record).id, game->tournament_id);

  const std::string text = temp_path("not-a-db.txt");
  {
    std::ofstream out(text);
    out << "this is not an SQLite database, just text that is long enough to have a header\n";
  }
  EXPECT_THROW(TournamentDb{text}, util::UsageError);
}

TEST(Sgf, GoGamesExportWithSizeKomiAndMoves) {
  StoredGame g;
  g.id = 7;
  g.game = "go:size=9";
  g.first_player = "uct:sims=10";
  g.second_player = "gtp:cmd=gnugo";
  g.result = "0-1";
  g.reason = "game over";
  g.moves = {"d4", "e5", "pass", "pass"};
  g.started = "2026-12-01T10:00:00Z";
  const std::string sgf = go_game_to_sgf(g);
  EXPECT_NE(sgf.find("SZ[9]"), std::string::npos) << sgf;
  EXPECT_NE(sgf.find("KM[7.5]"), std::string::npos) << sgf;
  EXPECT_NE(sgf.find(";B[df];W[ee];B[];W[]"), std::string::npos) << sgf;  // d4: column d, 6th row from the top
  EXPECT_NE(sgf.find("RE[W+7.5]"), std::string::npos) << sgf;  // one stone each, komi 7.5
  EXPECT_NE(sgf.find("DT[2026-12-01]"), std::string::npos) << sgf;
  g.game = "hex";
  EXPECT_THROW(go_game_to_sgf(g), util::UsageError);
}

TEST(TournamentDb, AnotherSchemaIsRefusedAndLeftUntouched) {
  const std::string foreign = temp_path("foreign.sqlite");
  {
    util::Database db(foreign);
    db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT)");
  }
  EXPECT_THROW(TournamentDb{foreign}, util::UsageError);
  {
    util::Database db(foreign);
    auto tables = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
    ASSERT_TRUE(tables.step());
    EXPECT_EQ(tables.column_int(0), 1) << "the refused file was changed";
  }
  const std::string other_columns = temp_path("other_columns.sqlite");
  {
    util::Database db(other_columns);
    db.execute("CREATE TABLE games(id INTEGER PRIMARY KEY, moves TEXT)");
  }
  try {
    TournamentDb db(other_columns);
    FAIL() << "a games table of other columns was accepted";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("other columns"), std::string::npos) << e.what();
  }
  const std::string ours = temp_path("ours.sqlite");
  { TournamentDb first(ours); }
  EXPECT_NO_THROW(TournamentDb{ours});
}

TEST(TournamentDb, DamagedPagesAreAUsageErrorNamingTheFile) {
  const std::string path = temp_path("damaged.sqlite");
  {
    const auto game = games::make_game("tictactoe");
    TournamentDb db(path);
    Tournament tournament(*game, tictactoe_options(), db);
    std::atomic<bool> stop{false};
    tournament.run(stop, [](const StoredGame&) { return true; });
  }
  {
    // Page 1 (the header and the schema) stays; the pages of the tables become noise.
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(0, std::ios::end);
    const auto size = static_cast<std::size_t>(file.tellg());
    ASSERT_GT(size, 8192u);
    file.seekp(4096);
    const std::string noise(size - 4096, '\x5a');
    file.write(noise.data(), static_cast<std::streamsize>(noise.size()));
  }
  try {
    TournamentDb db(path);
    for (std::int64_t id = 1; id <= 3; ++id) db.game(id);
    FAIL() << "a database of damaged pages was read without an error";
  } catch (const util::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pz::arena
