// Mastermind (Mordecai Meirowitz, 1970), single player against a hidden code. Options: code
// `length` (2–6, default 4), `colours` (2–10, default 6), `max_guesses` (1–20, default 10);
// colours^length, the number of codes and so the size of the action space, may be at most
// 65535 (e.g. 6 colours × 6, 9 × 5, 10 × 4); `hard` (default false) is hard mode.
//
// Rules: a chance node first draws the secret code uniformly among all colours^length codes
// (repeated colours allowed). The player then guesses codes; every code is a legal guess.
// Each guess is answered with black pegs (right colour in the right position) and white
// pegs (right colour in the wrong position): white = Σ over colours of min(times in the
// secret, times in the guess) − black, the standard scoring (secret 1234, guess 1122 → 1
// black, 1 white). The game ends when a guess equals the secret or after max_guesses
// guesses. In hard mode (as in Wordle's) a guess must be consistent with every answer so
// far, i.e. be a code that could still be the secret; this needs only what the player has
// seen, and makes random play and random-rollout search reasonable players.
// Return (a score, single player): max_guesses + 1 − (guesses used) when the code is found,
// so 10 for a first-guess hit and 1 for a hit with the last guess by default, and 0 when it
// is not found; min_return 0, max_return max_guesses. Before the end returns() is 0.
//
// Notation: a code is written as `length` digits, colour 1 to 9 as '1'–'9' and the tenth
// colour as '0' (keyboard order), e.g. "1122". The chance outcome drawing the secret is
// written "secret 1234" (reading also accepts the bare code). Action / outcome index: the
// code read as a base-`colours` number with the first position most significant and colour
// k (0-based) as digit k, so "11…1" is 0 and the actions in ascending order are the codes in
// lexicographic order.
//
// Hidden information: the secret. observation() shows only the guesses and their pegs;
// resample(0, rng) draws the secret uniformly among the codes consistent with every answer
// so far (exact, by enumerating all codes: at most 65535 codes × 20 guesses). to_string()
// shows the secret only once the game is over.
//
// Representation: the secret and the guesses as code indices with their black and white
// counts in fixed arrays (max 20 guesses): a copy is about 150 bytes.
// Observation ((colours + 2) × max_guesses × length): row i is guess i; planes 0..colours−1
// are the one-hot colour of each position, plane colours holds black/length and plane
// colours+1 white/length across the row. Rows of guesses not yet made are zero.
// Policy: 1 × 1 × colours^length, one logit per code (action = code index).
// Symmetries: identity only (permuting colours or positions is a symmetry of the game, but
// not a board transformation of these planes).
// Hash: the secret and the multiset of guesses, each code mixed into a 64-bit key by a
// fixed function (SplitMix64 finaliser) instead of a Zobrist table, which would need one key
// per (guess, code) pair.
// Serialised form: the codes played, separated by spaces: first the secret (the chance
// outcome), then the guesses in order; "" before the draw, e.g. "1234 1122 1344".
#pragma once

#include <array>
#include <cstdint>

#include "games/game.h"
#include "games/registry.h"

namespace pz::games {

class MastermindGame final : public Game {
 public:
  static constexpr int kMaxLength = 6, kMaxColours = 10, kMaxGuesses = 20, kMaxCodes = 65535;

  MastermindGame(util::Spec spec, int length, int colours, int max_guesses, bool hard = false);
  std::unique_ptr<State> new_initial_state() const override;
  std::unique_ptr<State> deserialize(std::string_view text) const override;

  int length() const { return length_; }
  int colours() const { return colours_; }
  int max_guesses() const { return max_guesses_; }
  bool hard() const { return hard_; }
  int num_codes() const { return num_codes_; }

  // Code index <-> colours by position (0-based colours, position 0 first).
  void digits(int code, int out[kMaxLength]) const;
  std::string code_to_string(int code) const;
  // Nullopt with a reason in `error` when `text` is not a code of this game.
  std::optional<int> parse_code(std::string_view text, std::string* error) const;
  // Pegs for `guess` against `secret`: black · 8 + white (both at most 6).
  int score(int secret, int guess) const;

 private:
  int length_, colours_, max_guesses_, num_codes_;
  bool hard_;
};

class MastermindState final : public State {
 public:
  explicit MastermindState(const MastermindGame* game) : State(game) {}
  std::unique_ptr<State> clone() const override { return std::make_unique<MastermindState>(*this); }
  bool assign_from(const State& other) override { return assign_same(*this, other); }

  Player current_player() const override;
  int move_number() const override { return secret_ < 0 ? 0 : 1 + num_guesses_; }
  using State::legal_actions;
  using State::observation;
  void legal_actions(std::vector<Action>& out) const override;
  std::vector<std::pair<Action, double>> chance_outcomes() const override;
  void apply_action(Action action) override;
  std::string explain_illegal(Action action) const override;
  std::vector<double> returns() const override;
  void observation(Player player, float* out) const override;
  std::unique_ptr<State> resample(Player player, util::Rng& rng) const override;
  std::string action_to_string(Player player, Action action) const override;
  std::optional<Action> parse_action(std::string_view text, std::string* error) const override;
  std::string to_string() const override;
  std::uint64_t hash() const override;
  std::string serialize() const override;

  int secret() const { return secret_; }  // -1 before the draw
  int num_guesses() const { return num_guesses_; }
  int guess(int i) const { return guesses_[static_cast<size_t>(i)]; }
  int black(int i) const { return pegs_[static_cast<size_t>(i)] / 8; }
  int white(int i) const { return pegs_[static_cast<size_t>(i)] % 8; }
  bool solved() const { return solved_; }
  // Number of codes consistent with every answer so far (all codes before any guess).
  int count_consistent() const;

 private:
  const MastermindGame& mm() const { return static_cast<const MastermindGame&>(State::game()); }
  // Calls f(code) for each code consistent with the answers, in ascending order; stops when
  // f returns false.
  template <typename F>
  void for_each_consistent(F&& f) const;

  std::array<std::int32_t, MastermindGame::kMaxGuesses> guesses_{};
  std::array<std::uint8_t, MastermindGame::kMaxGuesses> pegs_{};  // black·8 + white
  std::int32_t secret_ = -1;
  std::int8_t num_guesses_ = 0;
  bool solved_ = false;
};

GameEntry mastermind_entry();

}  // namespace pz::games
