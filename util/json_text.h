// JSON from the outside (config files, --config and --set text, API bodies, analysis
// queries): parsed only after its nesting depth is checked, so that a deeply nested text is
// refused with a clear error instead of exhausting the stack (nlohmann's values are
// destroyed and printed recursively), and errors quote at most a short excerpt.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace pz::util {

constexpr int kMaxJsonDepth = 64;

// JSON text is UTF-8 (RFC 8259): true when `text` is well-formed UTF-8 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF). nlohmann's parser checks strings it
// parses; text that becomes a JSON string some other way must be checked before it is dumped.
bool is_valid_utf8(std::string_view text);

// `text` with each byte that does not start or continue a well-formed sequence replaced by
// U+FFFD, so that foreign bytes (a request path, a cut excerpt) can be quoted in an answer.
std::string to_valid_utf8(std::string_view text);

// JSON text of `value` that cannot throw on a string that is not UTF-8 (such bytes print as
// U+FFFD): for every answer that may quote what a client sent.
std::string dump_json(const nlohmann::json& value, int indent = -1);

// The deepest nesting of arrays and objects in `text` (brackets inside strings ignored).
int json_nesting_depth(std::string_view text);

// Parses `text`; throws UsageError naming `what` ("--config", a file name) for malformed
// text or nesting deeper than `max_depth`.
nlohmann::json parse_json(std::string_view text, const std::string& what, int max_depth = kMaxJsonDepth);

// The same, and the value must be an object.
nlohmann::json parse_json_object(std::string_view text, const std::string& what, int max_depth = kMaxJsonDepth);

// Numbers of a JSON document read without a silent change: an integer field must hold an
// integer in [min, max] (1e14 or 2.5 are refused, never wrapped or truncated), a number a
// finite value in [min, max]. Throws UsageError naming `what` and the accepted range.
std::int64_t json_integer(const nlohmann::json& value, const std::string& what, std::int64_t min, std::int64_t max);
double json_number(const nlohmann::json& value, const std::string& what, double min, double max);

}  // namespace pz::util
