// The one grammar for everything named with options on the command line:
//
//   spec   := name [ ":" option { "," option } ]
//   option := key "=" value
//
// e.g. `hex:size=11,swap=true`, `go:size=9,komi=7.5`, `uct:sims=400`, `random`.
// Keys are lower-case identifiers; values are anything without ',' (a value may contain
// ':' or '=' after the first '=', so `gtp:cmd=/usr/games/gnugo --mode gtp` works when
// quoted by the shell). Games and players both parse with this, and both report unknown
// keys with the list of valid ones (see OptionSchema).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pz::util {

struct Spec {
  std::string name;
  std::map<std::string, std::string> options;

  // Canonical text form: name, then options sorted by key.
  std::string to_string() const;
};

// Throws UsageError naming the offending part of `text`.
Spec parse_spec(std::string_view text);

// Parses `key=value,key=value` (the part after ':'); merges into `into`, where its keys
// replace those of an earlier text. A key given twice in `text` is a UsageError.
void parse_options(std::string_view text, std::map<std::string, std::string>& into);

// Declared options of something a spec names: their types, defaults and ranges. It
// validates a Spec's options (unknown key → error listing the valid ones; bad value →
// error giving the accepted type/range) and hands out typed values.
class OptionSchema {
 public:
  enum class Type { kInt, kDouble, kBool, kString };
  struct Option {
    std::string key;
    Type type;
    std::string default_value;
    std::string help;
    std::optional<double> min, max;  // numeric bounds, inclusive
    std::vector<std::string> choices;  // for strings: the accepted values (empty = any)
  };

  OptionSchema& add_int(std::string key, int def, std::string help, std::optional<int> min = {},
                        std::optional<int> max = {});
  OptionSchema& add_double(std::string key, double def, std::string help,
                           std::optional<double> min = {}, std::optional<double> max = {});
  OptionSchema& add_bool(std::string key, bool def, std::string help);
  OptionSchema& add_string(std::string key, std::string def, std::string help,
                           std::vector<std::string> choices = {});

  const std::vector<Option>& options() const { return options_; }

  // Checks every given option and fills in defaults. `what` names the owner in errors
  // (e.g. "game 'hex'").
  class Values;
  Values resolve(const std::map<std::string, std::string>& given, const std::string& what) const;

  // One line per option: "size (int, 5..19, default 11): board side".
  std::string describe(const std::string& indent = "  ") const;

 private:
  std::vector<Option> options_;
};

class OptionSchema::Values {
 public:
  int get_int(const std::string& key) const;
  double get_double(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;
  // Every option, defaults included, in canonical text form.
  const std::map<std::string, std::string>& all() const { return values_; }

 private:
  friend class OptionSchema;
  const std::string& raw(const std::string& key) const;
  std::map<std::string, std::string> values_;
};

// Helpers shared by option parsing and move notation.
std::optional<long long> parse_int(std::string_view text);
std::optional<double> parse_double(std::string_view text);
std::optional<bool> parse_bool(std::string_view text);
std::string format_double(double value);
std::string to_lower(std::string_view text);
std::string trim(std::string_view text);
std::string join(const std::vector<std::string>& parts, std::string_view separator);

}  // namespace pz::util
