#include "optim/config_fields.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/error.h"
#include "util/spec.h"

namespace pz::optim {

using nlohmann::json;

namespace {

std::string show(const json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::string kind_of(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

}  // namespace

bool Bounds::contains(double v) const {
  if (std::isnan(v)) return false;
  if (min && (min_exclusive ? !(v > *min) : !(v >= *min))) return false;
  if (max && (max_exclusive ? !(v < *max) : !(v <= *max))) return false;
  return true;
}

std::string Bounds::describe() const {
  auto f = [](double v) { return util::format_double(v); };
  if (min && max)
    return std::string("in ") + (min_exclusive ? "(" : "[") + f(*min) + ", " + f(*max) + (max_exclusive ? ")" : "]");
  if (min) return (min_exclusive ? "> " : ">= ") + f(*min);
  if (max) return (max_exclusive ? "< " : "<= ") + f(*max);
  return "finite";
}

ConfigFields::ConfigFields(const json& object, std::string path) : object_(object), path_(std::move(path)) {
  if (!object_.is_object())
    throw util::UsageError(path_ + ": must be a JSON object {\"type\": ..., ...}, got " + kind_of(object_) + " " +
                           show(object_));
}

void ConfigFields::fail(const std::string& key, const std::string& problem) const {
  throw util::UsageError(where(key) + ": " + problem);
}

const json* ConfigFields::find(const std::string& key) {
  if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) asked_.push_back(key);
  auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

bool ConfigFields::has(const std::string& key) { return find(key) != nullptr; }

const json* ConfigFields::raw(const std::string& key) { return find(key); }

double ConfigFields::to_number(const std::string& key, const json& v, const Bounds& bounds) const {
  if (!v.is_number()) fail(key, "must be a number " + bounds.describe() + ", got " + kind_of(v) + " " + show(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || !bounds.contains(d)) fail(key, "must be a number " + bounds.describe() + ", got " + show(v));
  return d;
}

std::int64_t ConfigFields::to_integer(const std::string& key, const json& v, std::int64_t min) const {
  const std::string want = "must be an integer >= " + std::to_string(min);
  if (!v.is_number()) fail(key, want + ", got " + kind_of(v) + " " + show(v));
  std::int64_t i;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) fail(key, want + ", got " + show(v) + " (too large)");
    i = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    i = v.get<std::int64_t>();
  } else {
    // JSON written by Python or by hand often spells integers as 1000.0 or 1e3.
    const double d = v.get<double>();
    if (!(std::abs(d) < 9.0e15) || d != std::floor(d)) fail(key, want + ", got " + show(v));
    i = static_cast<std::int64_t>(d);
  }
  if (i < min) fail(key, want + ", got " + show(v));
  return i;
}

double ConfigFields::number(const std::string& key, double fallback, const Bounds& bounds) {
  const json* v = find(key);
  return v ? to_number(key, *v, bounds) : fallback;
}

double ConfigFields::required_number(const std::string& key, const Bounds& bounds) {
  const json* v = find(key);
  if (!v) fail(key, "is required (a number " + bounds.describe() + ")");
  return to_number(key, *v, bounds);
}

std::int64_t ConfigFields::integer(const std::string& key, std::int64_t fallback, std::int64_t min) {
  const json* v = find(key);
  return v ? to_integer(key, *v, min) : fallback;
}

std::int64_t ConfigFields::integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) {
  const json* v = find(key);
  if (!v) return fallback;
  const std::int64_t i = to_integer(key, *v, min);
  if (i > max) fail(key, "must be an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " + show(*v));
  return i;
}

std::int64_t ConfigFields::required_integer(const std::string& key, std::int64_t min) {
  const json* v = find(key);
  if (!v) fail(key, "is required (an integer >= " + std::to_string(min) + ")");
  return to_integer(key, *v, min);
}

bool ConfigFields::boolean(const std::string& key, bool fallback) {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(key, "must be true or false, got " + kind_of(*v) + " " + show(*v));
  return v->get<bool>();
}

std::string ConfigFields::choice(const std::string& key, const std::string& fallback,
                                 const std::vector<std::string>& allowed) {
  const json* v = find(key);
  if (!v) return fallback;
  const std::string list = "\"" + util::join(allowed, "\", \"") + "\"";
  if (!v->is_string()) fail(key, "must be one of " + list + ", got " + kind_of(*v) + " " + show(*v));
  const auto s = v->get<std::string>();
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    fail(key, "must be one of " + list + ", got \"" + s + "\"");
  return s;
}

std::string ConfigFields::required_string(const std::string& key) {
  const json* v = find(key);
  if (!v) fail(key, "is required (a string)");
  if (!v->is_string()) fail(key, "must be a string, got " + kind_of(*v) + " " + show(*v));
  return v->get<std::string>();
}

std::vector<double> ConfigFields::per_group(const std::string& key, double fallback, std::size_t groups,
                                            const Bounds& bounds) {
  const json* v = find(key);
  if (!v) return std::vector<double>(groups, fallback);
  if (!v->is_array()) return std::vector<double>(groups, to_number(key, *v, bounds));
  if (v->size() != groups)
    fail(key, "has " + std::to_string(v->size()) + " values but the optimiser has " + std::to_string(groups) +
                  " param group(s); give one number for all groups or one per group");
  std::vector<double> out;
  for (std::size_t i = 0; i < v->size(); ++i) out.push_back(to_number(key + "[" + std::to_string(i) + "]", (*v)[i], bounds));
  return out;
}

std::vector<double> ConfigFields::required_per_group(const std::string& key, std::size_t groups,
                                                     const Bounds& bounds) {
  if (!has(key)) fail(key, "is required (a number " + bounds.describe() + ", or one per param group)");
  return per_group(key, 0.0, groups, bounds);
}

std::vector<std::int64_t> ConfigFields::required_integer_list(const std::string& key, std::int64_t min) {
  const json* v = find(key);
  if (!v) fail(key, "is required (a list of integers >= " + std::to_string(min) + ")");
  if (!v->is_array()) fail(key, "must be a list of integers >= " + std::to_string(min) + ", got " + kind_of(*v) + " " + show(*v));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < v->size(); ++i) out.push_back(to_integer(key + "[" + std::to_string(i) + "]", (*v)[i], min));
  return out;
}

const json& ConfigFields::required_array(const std::string& key) {
  const json* v = find(key);
  if (!v) fail(key, "is required (a list)");
  if (!v->is_array()) fail(key, "must be a list, got " + kind_of(*v) + " " + show(*v));
  return *v;
}

void ConfigFields::finish(const std::string& what) const {
  for (const auto& [key, value] : object_.items()) {
    if (std::find(asked_.begin(), asked_.end(), key) != asked_.end()) continue;
    throw util::UsageError(path_ + ": unknown field '" + key + "' for " + what + "; allowed fields: " +
                           util::join(asked_, ", "));
  }
}

json json_double(double value) {
  if (std::isfinite(value)) return value;
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

double double_from_json(const json& value, const std::string& where) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  throw util::UsageError(where + ": expected a number in the saved state, got " + show(value));
}

std::vector<double> doubles_from_json(const json& value, const std::string& where) {
  if (!value.is_array()) throw util::UsageError(where + ": expected a list of numbers in the saved state, got " + show(value));
  std::vector<double> out;
  for (std::size_t i = 0; i < value.size(); ++i) out.push_back(double_from_json(value[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

json json_doubles(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(json_double(v));
  return out;
}

}  // namespace pz::optim
