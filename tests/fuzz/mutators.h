// Input mutators for the CLI fuzz driver. Every choice is drawn from the util::Rng passed
// in (below() and uniform() only, never a std:: distribution), so the same seed gives the
// same bytes on every platform.
//
//  * Byte-level mutations work on any text: flip bytes, delete or duplicate spans, splice
//    with another input, truncate, empty it, replace a number or an identifier, and insert
//    "interesting" tokens: huge and special numbers, deep bracket nesting (thousands of
//    levels), long identifiers, unbalanced braces, #pragma scop markers, loops with bounds
//    of 2^31-1, non-UTF-8 bytes, NUL bytes.
//  * JSON mutations understand the structure of a text that parses: a value replaced by a
//    wrong type, an extreme number (written as raw text, so 99999999999999999999, 1e999 or
//    NaN reach the program as such), an empty object or array, a huge string or deep
//    nesting; a key deleted, duplicated, renamed or added. A text that does not parse gets
//    byte-level mutations instead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/rng.h"

namespace pz::fuzz {

class Mutator {
 public:
  // `max_size` bounds what the mutations produce (they never grow a text past it).
  Mutator(util::Rng& rng, std::size_t max_size) : rng_(rng), max_size_(max_size) {}

  // One to `max_steps` byte-level mutations; `others` are splice partners. `c_like` adds
  // the C tokens (loops, pragmas, comments) to the insertions.
  std::string mutate_bytes(std::string text, const std::vector<std::string>& others, bool c_like, int max_steps = 3);

  // One to `max_steps` structural mutations of JSON text, sometimes followed by a
  // byte-level one.
  std::string mutate_json(const std::string& text, const std::vector<std::string>& others, int max_steps = 3);

  // One or two changes that keep the text well formed and mostly valid: a number scaled or
  // nudged, a boolean flipped, a string replaced by a word the program knows, a key
  // removed. For cases that should get past validation into the program's logic.
  std::string mutate_json_mildly(const std::string& text);

  // A value for a key=value option or a --set: mostly extreme or malformed ("", "nan",
  // "99999999999999999999", "[[[[...", non-UTF-8, ...), sometimes one of `valid`.
  std::string option_value(const std::vector<std::string>& valid);

  // A value for --set: option_value's, or JSON text (objects, arrays, strings, deep nesting).
  std::string json_value_text();

  // A whole polyc input, well formed, of a kind that stresses the polyhedral stages: deep
  // loop nests with bounds up to 2^31-1 (or wider than 64 bits), many statements or
  // regions, deeply parenthesised expressions, long identifiers, huge coefficients and
  // steps, a time-stepped stencil, or a file of megabytes.
  std::string pathological_c();

  // Deeply nested brackets: `open` repeated, `core`, then `close` repeated.
  static std::string nested(const std::string& open, const std::string& core, const std::string& close, int depth);

  // Uniform integer in [lo, hi].
  int pick(int lo, int hi) { return lo + static_cast<int>(rng_.below(static_cast<std::uint32_t>(hi - lo + 1))); }
  bool chance(double p) { return rng_.uniform() < p; }
  template <typename T>
  const T& one_of(const std::vector<T>& items) {
    return items[rng_.below(static_cast<std::uint32_t>(items.size()))];
  }

 private:
  std::string mutate_once(std::string text, const std::vector<std::string>& others, bool c_like);
  std::string interesting_token(bool c_like);
  std::string replace_number(std::string text);
  std::string replace_identifier(std::string text);
  std::size_t span_length(std::size_t size);
  std::string clip(std::string text) const;

  util::Rng& rng_;
  std::size_t max_size_;
};

// Numbers that break naive parsers and range checks, as text.
const std::vector<std::string>& extreme_numbers();

}  // namespace pz::fuzz
