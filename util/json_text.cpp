#include "util/json_text.h"

#include <algorithm>

#include "util/error.h"

namespace pz::util {

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
  }
}

nlohmann::json parse_json_object(std::string_view text, const std::string& what, int max_depth) {
  auto value = parse_json(text, what, max_depth);
  if (!value.is_object()) throw UsageError(what + ": expected a JSON object {...}");
  return value;
}

}  // namespace pz::util
