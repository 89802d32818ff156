// JSON from the outside (API bodies, analysis queries): parsed only after its nesting depth
// is checked, so that a deeply nested text is refused with a clear error instead of
// exhausting the stack.
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

namespace pz::server {

// The deepest nesting of arrays and objects in `text` (brackets inside strings ignored).
int json_nesting_depth(std::string_view text);

// A JSON object; throws util::UsageError for malformed text, another type, or nesting
// deeper than `max_depth`.
nlohmann::json parse_json_object(std::string_view text, int max_depth = 32);

}  // namespace pz::server
