#include "arena/gtp_engine.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <istream>
#include <ostream>
#include <sstream>

#include "arena/gtp.h"
#include "arena/player_factory.h"
#include "games/go.h"
#include "games/hex.h"
#include "games/registry.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::arena {
namespace {

// A command that fails: its message is the text of the "?" response.
struct CommandFailure {
  std::string message;
};

[[noreturn]] void fail(std::string message) { throw CommandFailure{std::move(message)}; }

// The line as the specification's preprocessing leaves it: control characters other than
// tab dropped, tabs turned into spaces, the comment after '#' removed.
std::string preprocess(const std::string& line) {
  std::string out;
  for (char c : line) {
    if (c == '#') break;
    if (c == '\t') {
      out += ' ';
    } else if (!std::iscntrl(static_cast<unsigned char>(c))) {
      out += c;
    }
  }
  return out;
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A response text holds no empty line (an empty line ends the response): each is given a
// space, and a trailing newline is dropped.
std::string without_empty_lines(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i > 0 && text[i - 1] == '\n') out.insert(out.size() - 1, " ");
  }
  return out;
}

void expect_arguments(const std::vector<std::string>& args, std::size_t count, const char* usage) {
  if (args.size() < count) fail(std::string("syntax error: expected ") + usage);
}

double parse_seconds(const std::string& text, const char* usage) {
  const auto value = util::parse_double(text);
  if (!value || *value < 0) fail(std::string("syntax error: expected ") + usage);
  return *value;
}

int parse_count(const std::string& text, const char* usage) {
  const auto value = util::parse_int(text);
  if (!value || *value < 0 || *value > 1'000'000) fail(std::string("syntax error: expected ") + usage);
  return static_cast<int>(*value);
}

}  // namespace

const std::vector<GtpEngine::Command>& GtpEngine::commands() {
  static const std::vector<Command> list = {
      {"protocol_version", &GtpEngine::protocol_version},
      {"name", &GtpEngine::name},
      {"version", &GtpEngine::version},
      {"known_command", &GtpEngine::known_command},
      {"list_commands", &GtpEngine::list_commands},
      {"quit", &GtpEngine::quit},
      {"boardsize", &GtpEngine::boardsize},
      {"clear_board", &GtpEngine::clear_board},
      {"komi", &GtpEngine::komi},
      {"play", &GtpEngine::play},
      {"genmove", &GtpEngine::genmove},
      {"undo", &GtpEngine::undo},
      {"showboard", &GtpEngine::showboard},
      {"final_score", &GtpEngine::final_score},
      {"time_settings", &GtpEngine::time_settings_command},
      {"time_left", &GtpEngine::time_left_command},
  };
  return list;
}

GtpEngine::GtpEngine(std::shared_ptr<const games::Game> game, GtpEngineConfig config, std::istream& in,
                     std::ostream& out)
    : config_(std::move(config)), in_(in), out_(out) {
  require_gtp_game(*game, "polyzero gtp");
  adopt(std::move(game), {});
  if (player_->is_human()) {
    throw util::UsageError("polyzero gtp: the player generates the moves, so it cannot be '" + player_->name() +
                           "' (the person at the GUI plays through play commands)");
  }
}

GtpEngine::~GtpEngine() = default;

void GtpEngine::adopt(std::shared_ptr<const games::Game> game, const std::vector<std::string>& moves) {
  std::vector<std::unique_ptr<games::State>> history;
  history.push_back(game->new_initial_state());
  for (const auto& move : moves) {
    auto next = history.back()->clone();
    next->apply_checked(*next->parse_action(move));
    history.push_back(std::move(next));
  }
  const std::string spec = config_.resolve_player ? config_.resolve_player(config_.player, *game) : config_.player;
  auto player = make_player(spec, *game, config_.seed);
  player_ = std::move(player);  // the old player goes while its game still lives
  game_ = std::move(game);
  history_ = std::move(history);
  player_->reset(state());
}

std::shared_ptr<const games::Game> GtpEngine::with_option(const std::string& key, const std::string& value) const {
  util::Spec spec = game_->spec();
  spec.options[key] = value;
  return games::make_game(spec);
}

void GtpEngine::run() {
  std::string line;
  while (std::getline(in_, line)) {
    if (!execute(line)) return;
  }
}

bool GtpEngine::execute(const std::string& raw_line) {
  std::istringstream words(preprocess(raw_line));
  std::vector<std::string> tokens;
  for (std::string token; words >> token;) tokens.push_back(token);
  if (tokens.empty()) return true;
  std::string id;
  if (all_digits(tokens.front())) {
    id = tokens.front();
    tokens.erase(tokens.begin());
  }
  if (tokens.empty()) {
    respond(false, id, "syntax error: no command after the id");
    return true;
  }
  const std::string command = tokens.front();
  const Arguments args(tokens.begin() + 1, tokens.end());
  const auto& list = commands();
  const auto found = std::find_if(list.begin(), list.end(), [&](const Command& c) { return command == c.name; });
  if (found == list.end()) {
    respond(false, id, "unknown command");
    return true;
  }
  try {
    respond(true, id, (this->*(found->handler))(args));
  } catch (const CommandFailure& failure) {
    respond(false, id, failure.message);
  } catch (const std::exception& error) {  // a player's forfeit or error: the session goes on
    respond(false, id, error.what());
  }
  return command != "quit";
}

void GtpEngine::respond(bool success, const std::string& id, const std::string& text) {
  out_ << (success ? '=' : '?') << id;
  const std::string body = without_empty_lines(text);
  if (!body.empty()) out_ << (body.front() == '\n' ? "" : " ") << body;
  out_ << "\n\n" << std::flush;
}

games::Player GtpEngine::colour_to_move(const std::string& colour, const std::string& refusal) const {
  const auto seat = parse_gtp_colour(colour);
  if (!seat) fail("syntax error: '" + colour + "' is not a colour (b, w, black or white)");
  if (state().is_terminal()) fail(refusal + "the game is over");
  if (*seat != state().current_player()) {
    fail(refusal + "it is " + gtp_colour_name(state().current_player()) + "'s turn (colours alternate in this engine)");
  }
  return *seat;
}

void GtpEngine::push(games::Action action) {
  player_->observe_action(state(), action);
  auto next = state().clone();
  next->apply_action(action);
  history_.push_back(std::move(next));
}

std::string GtpEngine::protocol_version(const Arguments&) { return "2"; }
std::string GtpEngine::name(const Arguments&) { return config_.name; }
std::string GtpEngine::version(const Arguments&) { return config_.version; }

std::string GtpEngine::known_command(const Arguments& args) {
  expect_arguments(args, 1, "a command name");
  const auto& list = commands();
  const bool known = std::any_of(list.begin(), list.end(), [&](const Command& c) { return args[0] == c.name; });
  return known ? "true" : "false";
}

std::string GtpEngine::list_commands(const Arguments&) {
  std::string out;
  for (const auto& c : commands()) out += std::string(out.empty() ? "" : "\n") + c.name;
  return out;
}

std::string GtpEngine::quit(const Arguments&) { return ""; }

std::string GtpEngine::boardsize(const Arguments& args) {
  expect_arguments(args, 1, "boardsize SIZE");
  const auto size = util::parse_int(args[0]);
  if (!size) fail("syntax error: '" + args[0] + "' is not a board size");
  if (args.size() > 1 && util::parse_int(args[1]) != size) fail("unacceptable size (the board must be square)");
  std::shared_ptr<const games::Game> game;
  try {
    game = with_option("size", std::to_string(*size));
  } catch (const util::UsageError&) {
    fail("unacceptable size");
  }
  adopt(std::move(game), {});
  return "";
}

std::string GtpEngine::clear_board(const Arguments&) {
  history_.resize(1);
  player_->reset(state());
  return "";
}

std::string GtpEngine::komi(const Arguments& args) {
  expect_arguments(args, 1, "komi VALUE");
  const auto value = util::parse_double(args[0]);
  if (!value) fail("syntax error: '" + args[0] + "' is not a komi");
  const auto* go = dynamic_cast<const games::GoGame*>(game_.get());
  if (!go || go->komi() == *value) return "";  // Hex has no komi: accepted and ignored
  std::shared_ptr<const games::Game> game;
  try {
    game = with_option("komi", util::format_double(*value));
  } catch (const util::UsageError& error) {
    fail(std::string("komi out of range: ") + error.what());
  }
  adopt(std::move(game), gtp_moves(state()));
  return "";
}

std::string GtpEngine::play(const Arguments& args) {
  expect_arguments(args, 2, "play COLOUR VERTEX");
  colour_to_move(args[0], "illegal move: ");
  std::string error;
  const auto action = state().parse_action(args[1], &error);
  if (!action) fail("syntax error: " + error);
  if (!state().is_legal(*action)) fail("illegal move: " + state().explain_illegal(*action));
  push(*action);
  return "";
}

std::string GtpEngine::genmove(const Arguments& args) {
  expect_arguments(args, 1, "genmove COLOUR");
  const games::Player seat = colour_to_move(args[0], "");
  games::Action action;
  try {
    action = player_->choose_action(state(), seat);
  } catch (const Resignation&) {
    return "resign";
  }
  const std::string vertex = state().action_to_string(seat, action);
  push(action);
  return vertex;
}

std::string GtpEngine::undo(const Arguments&) {
  if (history_.size() < 2) fail("cannot undo");
  history_.pop_back();
  player_->reset(state());
  return "";
}

std::string GtpEngine::showboard(const Arguments&) { return "\n" + state().to_string(); }

std::string GtpEngine::final_score(const Arguments&) {
  if (const auto* go = dynamic_cast<const games::GoState*>(&state())) {
    const double score = go->score();
    if (score == 0) return "0";
    return (score > 0 ? "B+" : "W+") + util::format_double(std::abs(score));
  }
  const auto& hex = dynamic_cast<const games::HexState&>(state());
  if (hex.winner() < 0) fail("cannot score: the game is not over");
  return hex.winner() == 0 ? "B+" : "W+";
}

std::string GtpEngine::time_settings_command(const Arguments& args) {
  const char* usage = "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES";
  expect_arguments(args, 3, usage);
  time_settings_ =
      TimeSettings{parse_seconds(args[0], usage), parse_seconds(args[1], usage), parse_count(args[2], usage)};
  return "";
}

std::string GtpEngine::time_left_command(const Arguments& args) {
  const char* usage = "time_left COLOUR TIME STONES";
  expect_arguments(args, 3, usage);
  const auto seat = parse_gtp_colour(args[0]);
  if (!seat) fail("syntax error: '" + args[0] + "' is not a colour (b, w, black or white)");
  time_left_[static_cast<std::size_t>(*seat)] = TimeLeft{parse_seconds(args[1], usage), parse_count(args[2], usage)};
  return "";
}

}  // namespace pz::arena
