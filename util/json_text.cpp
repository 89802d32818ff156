#include "util/json_text.h"

#include <algorithm>
#include <climits>
#include <sstream>

#include "util/error.h"

namespace pz::util {

namespace {

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629), 0 when there is none.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) return 1;
  int extra = 0;
  unsigned min_second = 0x80, max_second = 0xBF;  // the second byte's range excludes overlongs and surrogates
  if (lead >= 0xC2 && lead <= 0xDF) {
    extra = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    extra = 2;
    if (lead == 0xE0) min_second = 0xA0;
    if (lead == 0xED) max_second = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    extra = 3;
    if (lead == 0xF0) min_second = 0x90;
    if (lead == 0xF4) max_second = 0x8F;
  } else {
    return 0;
  }
  if (i + static_cast<std::size_t>(extra) >= text.size()) return 0;  // truncated sequence
  for (int k = 1; k <= extra; ++k) {
    const auto c = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
    const unsigned lo = k == 1 ? min_second : 0x80, hi = k == 1 ? max_second : 0xBF;
    if (c < lo || c > hi) return 0;
  }
  return static_cast<std::size_t>(extra) + 1;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string dump_json(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// The number quoted in nlohmann's "number overflow parsing '1e999'", cut to a short excerpt.
std::string number_excerpt(std::string_view message) {
  const auto start = message.find('\'');
  if (start == std::string_view::npos) return "out of range";
  const auto end = message.find('\'', start + 1);
  const std::string_view number = message.substr(start + 1, end == std::string_view::npos ? end : end - start - 1);
  return number.size() <= 24 ? std::string(number) : std::string(number.substr(0, 20)) + "...";
}

std::string format_bound(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

int json_nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if (c == ']' || c == '}') --depth;
  }
  return deepest;
}

nlohmann::json parse_json(std::string_view text, const std::string& what, int max_depth) {
  if (json_nesting_depth(text) > max_depth) {
    throw UsageError(what + ": the JSON is nested more than " + std::to_string(max_depth) + " levels deep");
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // The byte where parsing stopped, not the (unbounded) text itself.
    throw UsageError(what + " is not valid JSON (at byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::out_of_range& e) {
    // nlohmann's only parse-time out_of_range: a number too large for a double (1e999).
    throw UsageError(what + ": a number is too large (" + number_excerpt(e.what()) + "); numbers must fit a double");
  }
}

nlohmann::json parse_json_object(std::string_view text, const std::string& what, int max_depth) {
  auto value = parse_json(text, what, max_depth);
  if (!value.is_object()) throw UsageError(what + ": expected a JSON object {...}");
  return value;
}

std::int64_t json_integer(const nlohmann::json& value, const std::string& what, std::int64_t min, std::int64_t max) {
  const std::string range = " (an integer from " + std::to_string(min) + " to " + std::to_string(max) + ")";
  std::int64_t n = 0;
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) throw UsageError(what + ": " + value.dump() + " is out of range" + range);
    n = static_cast<std::int64_t>(u);
  } else if (value.is_number_integer()) {
    n = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    const double d = value.get<double>();
    // 1e3 is an integer written as a float; 2.5 and 1e300 are not integers of any field.
    if (!(d >= -9.2e18 && d <= 9.2e18) || d != static_cast<double>(static_cast<std::int64_t>(d))) {
      throw UsageError(what + ": " + value.dump() + " is not an integer in range" + range);
    }
    n = static_cast<std::int64_t>(d);
  } else {
    throw UsageError(what + ": must be a number" + range);
  }
  if (n < min || n > max) throw UsageError(what + ": " + std::to_string(n) + " is out of range" + range);
  return n;
}

double json_number(const nlohmann::json& value, const std::string& what, double min, double max) {
  if (!value.is_number()) throw UsageError(what + ": must be a number");
  const double d = value.get<double>();
  if (!(d >= min && d <= max)) {  // NaN fails both comparisons
    throw UsageError(what + ": " + value.dump() + " is out of range (a number from " + format_bound(min) + " to " +
                     format_bound(max) + ")");
  }
  return d;
}

}  // namespace pz::util
