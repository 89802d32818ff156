#include "games/mastermind.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "games/move_record.h"
#include "util/error.h"

namespace pz::games {
namespace {

int power(int base, int exponent) {
  long long p = 1;
  for (int i = 0; i < exponent; ++i) p *= base;
  return p > 1'000'000'000 ? 1'000'000'000 : static_cast<int>(p);
}

GameInfo make_info(int length, int colours, int max_guesses) {
  const int codes = power(colours, length);
  GameInfo info;
  info.name = "mastermind";
  info.long_name = "Mastermind";
  info.family = Family::kStrategy;
  info.num_players = 1;
  info.num_distinct_actions = codes;
  info.max_chance_outcomes = codes;
  info.observation_shape = {colours + 2, max_guesses, length};
  info.policy_shape = {1, 1, codes};
  info.zero_sum = false;
  info.perfect_information = false;
  info.min_return = 0;
  info.max_return = max_guesses;
  info.max_game_length = 1 + max_guesses;
  return info;
}

std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

char colour_char(int colour) { return colour == 9 ? '0' : static_cast<char>('1' + colour); }

}  // namespace

// ---------------------------------------------------------------------------------------
// Game

MastermindGame::MastermindGame(util::Spec spec, int length, int colours, int max_guesses, bool hard)
    : Game(make_info(length, colours, max_guesses), std::move(spec)),
      length_(length),
      colours_(colours),
      max_guesses_(max_guesses),
      num_codes_(power(colours, length)),
      hard_(hard) {
  if (length < 1 || length > kMaxLength || colours < 2 || colours > kMaxColours || max_guesses < 1 ||
      max_guesses > kMaxGuesses || num_codes_ > kMaxCodes) {
    throw std::logic_error("mastermind: options out of range");
  }
}

std::unique_ptr<State> MastermindGame::new_initial_state() const { return std::make_unique<MastermindState>(this); }

void MastermindGame::digits(int code, int out[kMaxLength]) const {
  for (int i = length_ - 1; i >= 0; --i) {
    out[i] = code % colours_;
    code /= colours_;
  }
}

std::string MastermindGame::code_to_string(int code) const {
  int d[kMaxLength];
  digits(code, d);
  std::string out;
  for (int i = 0; i < length_; ++i) out += colour_char(d[i]);
  return out;
}

std::optional<int> MastermindGame::parse_code(std::string_view text, std::string* error) const {
  const std::string t = util::trim(text);
  const std::string colours_text = colours_ == 10 ? "1-9 and 0 for the tenth" : "1-" + std::to_string(colours_);
  const std::string expected = "expected " + std::to_string(length_) + " digits, each a colour " + colours_text;
  if (static_cast<int>(t.size()) != length_) {
    if (error) *error = "'" + t + "' is not a code: " + expected;
    return std::nullopt;
  }
  int code = 0;
  for (char c : t) {
    int colour = -1;
    if (c >= '1' && c <= '9') colour = c - '1';
    if (c == '0') colour = 9;
    if (colour < 0 || colour >= colours_) {
      if (error) *error = "'" + t + "': '" + std::string(1, c) + "' is not a colour: " + expected;
      return std::nullopt;
    }
    code = code * colours_ + colour;
  }
  return code;
}

int MastermindGame::score(int secret, int guess) const {
  int s[kMaxLength], g[kMaxLength];
  digits(secret, s);
  digits(guess, g);
  int black = 0, in_secret[kMaxColours] = {}, in_guess[kMaxColours] = {};
  for (int i = 0; i < length_; ++i) {
    black += s[i] == g[i];
    ++in_secret[s[i]];
    ++in_guess[g[i]];
  }
  int common = 0;
  for (int c = 0; c < colours_; ++c) common += std::min(in_secret[c], in_guess[c]);
  return black * 8 + (common - black);
}

std::unique_ptr<State> MastermindGame::deserialize(std::string_view text) const {
  auto state = std::make_unique<MastermindState>(this);
  for_each_word(text, [&](int index, std::string_view token) {
    std::string error;
    auto code = parse_code(token, &error);
    const std::string where = "Mastermind record '" + std::string(text) + "', code " + std::to_string(index);
    if (!code) throw util::UsageError(where + ": " + error);
    if (state->is_terminal()) throw util::UsageError(where + ": the game was already over");
    if (!state->is_chance_node() && !state->is_legal(*code)) throw util::UsageError(where + ": " + state->explain_illegal(*code));
    state->apply_action(*code);
  });
  return state;
}

// ---------------------------------------------------------------------------------------
// State

Player MastermindState::current_player() const {
  if (secret_ < 0) return kChancePlayer;
  if (solved_ || num_guesses_ >= mm().max_guesses()) return kTerminalPlayer;
  return 0;
}

void MastermindState::legal_actions(std::vector<Action>& out) const {
  out.clear();
  if (is_terminal()) return;
  if (mm().hard() && secret_ >= 0) {
    for_each_consistent([&](int code) {
      out.push_back(code);
      return true;
    });
    return;
  }
  const int n = mm().num_codes();
  out.resize(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) out[static_cast<size_t>(c)] = c;
}

std::vector<std::pair<Action, double>> MastermindState::chance_outcomes() const {
  std::vector<std::pair<Action, double>> out;
  if (!is_chance_node()) return out;
  const int n = mm().num_codes();
  out.reserve(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) out.emplace_back(c, 1.0 / n);
  return out;
}

void MastermindState::apply_action(Action action) {
  if (secret_ < 0) {
    secret_ = action;
    return;
  }
  const int pegs = mm().score(secret_, action);
  guesses_[static_cast<size_t>(num_guesses_)] = action;
  pegs_[static_cast<size_t>(num_guesses_)] = static_cast<std::uint8_t>(pegs);
  ++num_guesses_;
  if (pegs / 8 == mm().length()) solved_ = true;
}

std::string MastermindState::explain_illegal(Action action) const {
  if (!is_terminal() && (action < 0 || action >= mm().num_codes())) {
    return "not a code of this game (there are " + std::to_string(mm().num_codes()) + " codes)";
  }
  if (is_terminal()) return solved_ ? "the code has been found: the game is over" : "no guesses are left: the game is over";
  if (mm().hard() && secret_ >= 0) {
    for (int i = 0; i < num_guesses_; ++i) {
      const int pegs = mm().score(action, guesses_[static_cast<size_t>(i)]);
      if (pegs != pegs_[static_cast<size_t>(i)]) {
        return "hard mode: " + mm().code_to_string(action) + " cannot be the secret: against guess " + std::to_string(i + 1) +
               " (" + mm().code_to_string(guesses_[static_cast<size_t>(i)]) + ") it would give " + std::to_string(pegs / 8) +
               " black and " + std::to_string(pegs % 8) + " white, not " + std::to_string(black(i)) + " and " +
               std::to_string(white(i));
      }
    }
  }
  return State::explain_illegal(action);
}

std::vector<double> MastermindState::returns() const {
  if (!solved_) return {0.0};
  return {static_cast<double>(mm().max_guesses() + 1 - num_guesses_)};
}

void MastermindState::observation(Player, float* out) const {
  const auto& g = mm();
  const int length = g.length(), colours = g.colours(), rows = g.max_guesses(), plane = rows * length;
  std::fill(out, out + (colours + 2) * plane, 0.0f);
  int d[MastermindGame::kMaxLength];
  for (int i = 0; i < num_guesses_; ++i) {
    g.digits(guesses_[static_cast<size_t>(i)], d);
    const float b = static_cast<float>(black(i)) / length, w = static_cast<float>(white(i)) / length;
    for (int p = 0; p < length; ++p) {
      const int cell = i * length + p;
      out[d[p] * plane + cell] = 1.0f;
      out[colours * plane + cell] = b;
      out[(colours + 1) * plane + cell] = w;
    }
  }
}

template <typename F>
void MastermindState::for_each_consistent(F&& f) const {
  const auto& g = mm();
  const int length = g.length(), colours = g.colours(), n = g.num_codes(), k = num_guesses_;
  // Each guess's digits and colour counts, computed once.
  int gd[MastermindGame::kMaxGuesses][MastermindGame::kMaxLength];
  int gc[MastermindGame::kMaxGuesses][MastermindGame::kMaxColours] = {};
  for (int i = 0; i < k; ++i) {
    g.digits(guesses_[static_cast<size_t>(i)], gd[i]);
    for (int p = 0; p < length; ++p) ++gc[i][gd[i][p]];
  }
  int cd[MastermindGame::kMaxLength] = {};  // the candidate's digits, an odometer
  for (int code = 0; code < n; ++code) {
    if (code > 0) {
      int p = length - 1;
      while (++cd[p] == colours) cd[p--] = 0;
    }
    int cc[MastermindGame::kMaxColours] = {};
    for (int p = 0; p < length; ++p) ++cc[cd[p]];
    bool ok = true;
    for (int i = 0; ok && i < k; ++i) {
      int b = 0, common = 0;
      for (int p = 0; p < length; ++p) b += cd[p] == gd[i][p];
      for (int c = 0; c < colours; ++c) common += std::min(cc[c], gc[i][c]);
      ok = b * 8 + common - b == pegs_[static_cast<size_t>(i)];
    }
    if (ok && !f(code)) return;
  }
}

int MastermindState::count_consistent() const {
  int count = 0;
  for_each_consistent([&](int) {
    ++count;
    return true;
  });
  return count;
}

std::unique_ptr<State> MastermindState::resample(Player, util::Rng& rng) const {
  auto out = std::make_unique<MastermindState>(*this);
  if (secret_ < 0) return out;
  const int count = count_consistent();  // >= 1: the true secret is consistent
  int pick = static_cast<int>(rng.below(static_cast<std::uint32_t>(count)));
  for_each_consistent([&](int code) {
    if (pick-- > 0) return true;
    out->secret_ = code;
    return false;
  });
  return out;
}

std::string MastermindState::action_to_string(Player player, Action action) const {
  if (action < 0 || action >= mm().num_codes()) return "(not a code)";
  return (player == kChancePlayer ? "secret " : "") + mm().code_to_string(action);
}

std::optional<Action> MastermindState::parse_action(std::string_view text, std::string* error) const {
  std::string t = util::to_lower(util::trim(text));
  if (is_chance_node() && t.rfind("secret", 0) == 0) t = t.substr(6);
  return mm().parse_code(t, error);
}

std::string MastermindState::to_string() const {
  const auto& g = mm();
  std::string out = "Mastermind: a code of " + std::to_string(g.length()) + " from " + std::to_string(g.colours()) +
                    " colours, " + std::to_string(g.max_guesses()) + " guesses\n";
  for (int i = 0; i < num_guesses_; ++i) {
    out += (i + 1 < 10 ? "  " : " ") + std::to_string(i + 1) + ". " + g.code_to_string(guesses_[static_cast<size_t>(i)]) +
           "  " + std::string(static_cast<size_t>(black(i)), 'B') + std::string(static_cast<size_t>(white(i)), 'W') +
           std::string(static_cast<size_t>(g.length() - black(i) - white(i)), '.') + "  (" + std::to_string(black(i)) +
           " black, " + std::to_string(white(i)) + " white)\n";
  }
  if (secret_ < 0) {
    out += "The secret code is to be drawn.\n";
  } else if (solved_) {
    out += "Found " + g.code_to_string(secret_) + " in " + std::to_string(num_guesses_) + " guesses: score " +
           std::to_string(g.max_guesses() + 1 - num_guesses_) + "\n";
  } else if (is_terminal()) {
    out += "No guesses left; the code was " + g.code_to_string(secret_) + ": score 0\n";
  } else {
    out += std::to_string(g.max_guesses() - num_guesses_) + " guesses left\n";
  }
  return out;
}

std::uint64_t MastermindState::hash() const {
  std::uint64_t h = mix(0x4D4D000000000000ULL + static_cast<std::uint64_t>(secret_ + 1));
  for (int i = 0; i < num_guesses_; ++i) h += mix(static_cast<std::uint64_t>(guesses_[static_cast<size_t>(i)]));
  return h;
}

std::string MastermindState::serialize() const {
  std::string out;
  if (secret_ < 0) return out;
  out = mm().code_to_string(secret_);
  for (int i = 0; i < num_guesses_; ++i) out += " " + mm().code_to_string(guesses_[static_cast<size_t>(i)]);
  return out;
}

GameEntry mastermind_entry() {
  util::OptionSchema options;
  options.add_int("length", 4, "number of positions in the code", 2, MastermindGame::kMaxLength)
      .add_int("colours", 6, "number of colours", 2, MastermindGame::kMaxColours)
      .add_int("max_guesses", 10, "guesses allowed", 1, MastermindGame::kMaxGuesses)
      .add_bool("hard", false, "hard mode: every guess must be consistent with all the answers so far");
  return {"mastermind", "Mastermind", Family::kStrategy,
          "single player: find the hidden colour code from black and white pegs; score by guesses left",
          std::move(options),
          [](const util::OptionSchema::Values& v, const util::Spec& spec) -> std::shared_ptr<const Game> {
            const int length = v.get_int("length"), colours = v.get_int("colours");
            if (power(colours, length) > MastermindGame::kMaxCodes) {
              throw util::UsageError("mastermind with " + std::to_string(colours) + " colours and length " +
                                     std::to_string(length) + " has " + std::to_string(power(colours, length)) +
                                     " codes, more than the " + std::to_string(MastermindGame::kMaxCodes) +
                                     " an action space may hold: use fewer colours or a shorter code (e.g. 6 colours "
                                     "x 6, 9 x 5, 10 x 4)");
            }
            return std::make_shared<MastermindGame>(spec, length, colours, v.get_int("max_guesses"), v.get_bool("hard"));
          }};
}

}  // namespace pz::games
