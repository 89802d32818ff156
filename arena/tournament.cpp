#include "arena/tournament.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "arena/match.h"
#include "arena/player_factory.h"
#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::arena {
namespace {

std::string result_text(const GameResult& g) {
  const double first = g.returns.at(0), second = g.returns.at(1);
  return first > second ? "1-0" : first < second ? "0-1" : "1/2-1/2";
}

// Seeds must not change between the run that starts a tournament and the one that resumes
// it: FNV-1a is the same in every build.
std::uint64_t stable_hash(std::string_view text) { return util::fnv1a(text); }

std::string end_reason(const GameResult& g) {
  if (!g.termination.empty()) return g.termination;
  if (g.cut_short) return "move limit reached (draw)";
  return "game over";
}

}  // namespace

const char* format_name(TournamentFormat format) {
  switch (format) {
    case TournamentFormat::kRoundRobin: return "round-robin";
    case TournamentFormat::kGauntlet: return "gauntlet";
    case TournamentFormat::kChainGauntlet: return "chain-gauntlet";
  }
  return "?";
}

TournamentFormat parse_format(std::string_view text) {
  if (text == "round-robin") return TournamentFormat::kRoundRobin;
  if (text == "gauntlet") return TournamentFormat::kGauntlet;
  throw util::UsageError("unknown tournament format '" + std::string(text.substr(0, 40)) +
                         "'; use round-robin (every pair) or gauntlet (the first player against each other one)");
}

std::vector<Pairing> make_pairings(TournamentFormat format, int players, int anchors) {
  if (players < 2) throw util::UsageError("a tournament needs at least two players");
  std::vector<Pairing> out;
  switch (format) {
    case TournamentFormat::kRoundRobin:
      for (int a = 0; a < players; ++a) {
        for (int b = a + 1; b < players; ++b) out.push_back({a, b});
      }
      break;
    case TournamentFormat::kGauntlet:
      for (int b = 1; b < players; ++b) out.push_back({0, b});
      break;
    case TournamentFormat::kChainGauntlet:
      if (anchors < 1 || anchors >= players) {
        throw util::UsageError("a chain gauntlet needs at least one anchor and one player besides the anchors");
      }
      for (int b = anchors; b < players; ++b) {
        for (int a = 0; a < anchors; ++a) out.push_back({a, b});
        if (b + 1 < players) out.push_back({b, b + 1});
      }
      break;
  }
  return out;
}

Tournament::Tournament(const games::Game& game, TournamentOptions options, TournamentDb& db)
    : game_(game), options_(std::move(options)), db_(db) {
  if (game.info().num_players != 2) {
    throw util::UsageError("tournaments are for two-player games; " + game.info().name + " has " +
                           std::to_string(game.info().num_players) + " player(s) (use match for single-player games)");
  }
  if (options_.games_per_pairing < 1) throw util::UsageError("--games: at least one game per pairing");
  if (options_.concurrency < 1) throw util::UsageError("--concurrency: at least one game at a time");
  std::set<std::string> seen;
  for (const auto& spec : options_.players) {
    auto player = make_player(spec, game, 0);  // fails early on a bad spec
    if (player->is_human()) throw util::UsageError("tournaments are between programs; '" + spec + "' is a person");
    if (!seen.insert(spec).second) {
      throw util::UsageError("player '" + spec + "' is listed twice; give each player once (add seed=N to tell "
                             "copies of a random player apart)");
    }
  }
  pairings_ = make_pairings(options_.format, static_cast<int>(options_.players.size()), options_.anchors);
  openings_ = Openings(options_.openings, game);

  TournamentRecord record;
  record.game = game.spec().to_string();
  record.format = format_name(options_.format);
  if (options_.format == TournamentFormat::kChainGauntlet) record.format += ":" + std::to_string(options_.anchors);
  record.openings = options_.openings;
  record.players = options_.players;
  record.seed = options_.seed;
  record.max_moves = options_.max_moves;
  record.games_per_pairing = options_.games_per_pairing;
  record_ = db_.open_tournament(std::move(record));
  // Games of rounds beyond a smaller games_per_pairing stay stored but do not count now.
  for (auto& g : db_.games_of(record_.id)) {
    if (g.round < options_.games_per_pairing) games_.push_back(std::move(g));
  }
}

int Tournament::total_games() const { return static_cast<int>(pairings_.size()) * options_.games_per_pairing; }

std::vector<Tournament::Slot> Tournament::missing_slots() const {
  std::set<std::tuple<int, int, int>> played;
  for (const auto& g : games_) played.insert({g.pairing_a, g.pairing_b, g.round});
  std::vector<Slot> slots;
  // Round by round, so a stopped tournament has every pairing at about the same count.
  for (int round = 0; round < options_.games_per_pairing; ++round) {
    for (int p = 0; p < static_cast<int>(pairings_.size()); ++p) {
      const Pairing& pairing = pairings_[static_cast<std::size_t>(p)];
      if (!played.count({pairing.a, pairing.b, round})) slots.push_back({p, round});
    }
  }
  return slots;
}

StoredGame Tournament::play_slot(const Slot& slot, const std::function<bool()>& should_stop, bool& interrupted) const {
  const Pairing& pairing = pairings_[static_cast<std::size_t>(slot.pairing)];
  const int first = slot.round % 2 == 0 ? pairing.a : pairing.b;
  const int second = slot.round % 2 == 0 ? pairing.b : pairing.a;
  const auto& first_spec = options_.players[static_cast<std::size_t>(first)];
  const auto& second_spec = options_.players[static_cast<std::size_t>(second)];
  // Seeds from the pairing's players and the round, not from positions in a list that a
  // later command may extend.
  const std::uint64_t game_key = derive_seed(options_.seed, stable_hash(first_spec + "\n" + second_spec),
                                             static_cast<std::uint64_t>(slot.round));
  auto p1 = make_player(first_spec, game_, derive_seed(game_key, 1, 0));
  auto p2 = make_player(second_spec, game_, derive_seed(game_key, 2, 0));
  Player* seats[2] = {p1.get(), p2.get()};
  util::Rng chance(derive_seed(game_key, 3, 0));
  PlayOptions play;
  play.max_moves = options_.max_moves;
  play.opening = openings_.for_pair(game_, slot.round / 2, options_.seed);
  play.should_stop = should_stop;

  StoredGame stored;
  stored.started = TournamentDb::now_utc();
  const GameResult result = play_game(game_, seats, chance, play);
  interrupted = result.interrupted;
  stored.finished = TournamentDb::now_utc();
  stored.tournament_id = record_.id;
  stored.pairing_a = pairing.a;
  stored.pairing_b = pairing.b;
  stored.round = slot.round;
  stored.game = record_.game;
  stored.first_player = first_spec;
  stored.second_player = second_spec;
  stored.result = result_text(result);
  stored.reason = end_reason(result);
  stored.opening_plies = static_cast<int>(play.opening.size());
  stored.moves = result.moves;
  stored.final_state = result.final_state;
  return stored;
}

void Tournament::run(const std::atomic<bool>& stop, const GameCallback& on_game) {
  const std::vector<Slot> slots = missing_slots();
  std::atomic<std::size_t> next{0};
  std::atomic<bool> halt{false};  // a failure, or on_game said enough
  const std::function<bool()> should_stop = [&] { return stop.load() || halt.load(); };
  std::mutex mutex;
  std::exception_ptr error;
  auto worker = [&] {
    for (;;) {
      if (should_stop()) return;
      const std::size_t index = next.fetch_add(1);
      if (index >= slots.size()) return;
      try {
        bool interrupted = false;
        StoredGame game = play_slot(slots[index], should_stop, interrupted);
        if (interrupted) return;
        std::lock_guard lock(mutex);
        if (halt.load()) return;  // decided while this game was being played
        game.id = db_.add_game(game);
        games_.push_back(game);
        if (on_game && !on_game(games_.back())) halt.store(true);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        halt.store(true);
        return;
      }
    }
  };
  const int threads = std::max(1, std::min<int>(options_.concurrency, static_cast<int>(slots.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

ResultTable Tournament::results() const {
  const int n = static_cast<int>(options_.players.size());
  ResultTable table(n);
  std::unordered_map<std::string, int> index;  // a player's spec → its seat in the table
  for (int p = 0; p < n; ++p) index.emplace(options_.players[static_cast<std::size_t>(p)], p);
  const auto position = [&](const std::string& spec) {
    const auto it = index.find(spec);
    return it == index.end() ? -1 : it->second;
  };
  for (const auto& g : games_) {
    const int first = position(g.first_player), second = position(g.second_player);
    if (first < 0 || second < 0) continue;
    if (g.result == "1-0") {
      table.add_win(first, second);
    } else if (g.result == "0-1") {
      table.add_loss(first, second);
    } else {
      table.add_draw(first, second);
    }
  }
  return table;
}

}  // namespace pz::arena
