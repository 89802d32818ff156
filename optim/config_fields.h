// Reading a JSON config object field by field, with errors a user can act on.
//
// Every mistake throws util::UsageError with the field's full path, what was expected and
// what was found: "scheduler.schedulers[1].power: must be a number >= 0, got -1". Every
// key a reader asks for (present or not) counts as allowed, so `finish()` can reject
// unknown keys — usually typos — and list the fields that would have been accepted.
//
// Also here: the JSON form of doubles in saved state. JSON has no inf/nan, and the plateau
// scheduler's initial `best` is ±inf, so non-finite values are written as strings.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pz::optim {

// Inclusive or exclusive numeric bounds, for validation and for the error message.
struct Bounds {
  std::optional<double> min, max;
  bool min_exclusive = false, max_exclusive = false;

  static Bounds at_least(double v) { return {v, std::nullopt, false, false}; }
  static Bounds above(double v) { return {v, std::nullopt, true, false}; }
  static Bounds closed(double lo, double hi) { return {lo, hi, false, false}; }
  bool contains(double v) const;
  std::string describe() const;  // ">= 0", "in (0, 1]", ...
};

class ConfigFields {
 public:
  // `path` names the object in messages ("scheduler", "scheduler.warmup").
  ConfigFields(const nlohmann::json& object, std::string path);

  const std::string& path() const { return path_; }
  std::string where(const std::string& key) const { return path_ + "." + key; }
  bool has(const std::string& key);

  double number(const std::string& key, double fallback, const Bounds& bounds = {});
  double required_number(const std::string& key, const Bounds& bounds = {});
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min);
  // With an upper bound too: a count that sizes memory or threads, or that is stored in an
  // int, is refused above `max` instead of wrapping.
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max);
  std::int64_t required_integer(const std::string& key, std::int64_t min);
  bool boolean(const std::string& key, bool fallback);
  std::string choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed);
  std::string required_string(const std::string& key);
  // A number for every param group, or one number for all of them.
  std::vector<double> per_group(const std::string& key, double fallback, std::size_t groups, const Bounds& bounds);
  std::vector<double> required_per_group(const std::string& key, std::size_t groups, const Bounds& bounds);
  std::vector<std::int64_t> required_integer_list(const std::string& key, std::int64_t min);
  const nlohmann::json& required_array(const std::string& key);
  // The raw value, or nullptr when absent (the key still counts as allowed).
  const nlohmann::json* raw(const std::string& key);

  // Throws if the object has a key nobody asked for. `what` names the object in the message
  // ("scheduler 'poly'").
  void finish(const std::string& what) const;

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

 private:
  const nlohmann::json* find(const std::string& key);
  double to_number(const std::string& key, const nlohmann::json& v, const Bounds& bounds) const;
  std::int64_t to_integer(const std::string& key, const nlohmann::json& v, std::int64_t min) const;

  const nlohmann::json& object_;
  std::string path_;
  std::vector<std::string> asked_;
};

// The JSON value of a double in saved state (finite: a number, else "inf"/"-inf"/"nan").
nlohmann::json json_double(double value);
double double_from_json(const nlohmann::json& value, const std::string& where);
std::vector<double> doubles_from_json(const nlohmann::json& value, const std::string& where);
nlohmann::json json_doubles(const std::vector<double>& values);

}  // namespace pz::optim
