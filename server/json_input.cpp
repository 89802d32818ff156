#include "server/json_input.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace pz::server {

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

nlohmann::json parse_json_object(std::string_view text, int max_depth) {
  if (json_nesting_depth(text) > max_depth) {
    throw util::UsageError("the JSON is nested more than " + std::to_string(max_depth) + " levels deep");
  }
  auto value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded()) throw util::UsageError("not valid JSON");
  if (!value.is_object()) throw util::UsageError("expected a JSON object {...}");
  return value;
}

}  // namespace pz::server
