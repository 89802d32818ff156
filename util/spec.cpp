#include "util/spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>

#include "util/error.h"

namespace pz::util {

std::string trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

std::optional<long long> parse_int(std::string_view text) {
  std::string t = trim(text);
  if (!t.empty() && t[0] == '+') t.erase(0, 1);
  long long value = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  // strtod accepts hex floats, "inf" and "nan": reject what no config would mean.
  char* end = nullptr;
  double value = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<bool> parse_bool(std::string_view text) {
  std::string t = to_lower(trim(text));
  if (t == "true" || t == "1" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "0" || t == "no" || t == "off") return false;
  return std::nullopt;
}

std::string format_double(double value) {
  std::ostringstream out;
  out.precision(15);
  out << value;
  return out.str();
}

static bool valid_key(std::string_view key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
           c == '_' || c == '-';
  });
}

void parse_options(std::string_view text, std::map<std::string, std::string>& into) {
  std::set<std::string> given;  // keys of this text: one may override an earlier text's, not its own
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(pos, comma - pos);
    std::string trimmed = trim(item);
    if (!trimmed.empty()) {
      size_t eq = trimmed.find('=');
      if (eq == std::string::npos) {
        throw UsageError("option '" + trimmed + "' has no value: write it as key=value");
      }
      std::string key = to_lower(trim(std::string_view(trimmed).substr(0, eq)));
      std::string value = trim(std::string_view(trimmed).substr(eq + 1));
      if (!valid_key(key)) {
        throw UsageError("option name '" + key + "' in '" + trimmed +
                         "' is not valid: names are lower-case letters, digits, '_' or '-'");
      }
      if (value.empty()) throw UsageError("option '" + key + "' has an empty value");
      if (!given.insert(key).second) {
        throw UsageError("option '" + key + "' is given twice in '" + std::string(text.substr(0, 200)) +
                         "'; give each option once");
      }
      into[key] = value;
    } else if (comma < text.size()) {
      throw UsageError("empty option in '" + std::string(text) + "' (two commas in a row?)");
    }
    pos = comma + 1;
  }
}

Spec parse_spec(std::string_view text) {
  Spec spec;
  std::string t = trim(text);
  size_t colon = t.find(':');
  spec.name = to_lower(trim(std::string_view(t).substr(0, colon)));
  if (spec.name.empty()) throw UsageError("empty name in '" + t + "': expected name[:key=value,...]");
  if (!valid_key(spec.name)) {
    throw UsageError("'" + spec.name + "' is not a valid name: expected name[:key=value,...]");
  }
  if (colon != std::string::npos) parse_options(std::string_view(t).substr(colon + 1), spec.options);
  return spec;
}

std::string Spec::to_string() const {
  std::string out = name;
  char sep = ':';
  for (const auto& [key, value] : options) {
    out += sep;
    out += key + "=" + value;
    sep = ',';
  }
  return out;
}

OptionSchema& OptionSchema::add_int(std::string key, int def, std::string help, std::optional<int> min,
                                    std::optional<int> max) {
  Option o{std::move(key), Type::kInt, std::to_string(def), std::move(help), {}, {}, {}};
  if (min) o.min = *min;
  if (max) o.max = *max;
  options_.push_back(std::move(o));
  return *this;
}

OptionSchema& OptionSchema::add_double(std::string key, double def, std::string help,
                                       std::optional<double> min, std::optional<double> max) {
  options_.push_back({std::move(key), Type::kDouble, format_double(def), std::move(help), min, max, {}});
  return *this;
}

OptionSchema& OptionSchema::add_bool(std::string key, bool def, std::string help) {
  options_.push_back({std::move(key), Type::kBool, def ? "true" : "false", std::move(help), {}, {}, {}});
  return *this;
}

OptionSchema& OptionSchema::add_string(std::string key, std::string def, std::string help,
                                       std::vector<std::string> choices) {
  options_.push_back({std::move(key), Type::kString, std::move(def), std::move(help), {}, {}, std::move(choices)});
  return *this;
}

static const char* type_name(OptionSchema::Type type) {
  switch (type) {
    case OptionSchema::Type::kInt: return "int";
    case OptionSchema::Type::kDouble: return "number";
    case OptionSchema::Type::kBool: return "bool";
    case OptionSchema::Type::kString: return "string";
  }
  return "?";
}

static std::string range_text(const OptionSchema::Option& o) {
  if (!o.choices.empty()) return "one of " + join(o.choices, "|");
  auto fmt = [&](double v) {
    return o.type == OptionSchema::Type::kInt ? std::to_string(static_cast<long long>(v)) : format_double(v);
  };
  if (o.min && o.max) return fmt(*o.min) + ".." + fmt(*o.max);
  if (o.min) return ">= " + fmt(*o.min);
  if (o.max) return "<= " + fmt(*o.max);
  return "";
}

std::string OptionSchema::describe(const std::string& indent) const {
  std::string out;
  for (const auto& o : options_) {
    std::string range = range_text(o);
    out += indent + o.key + " (" + type_name(o.type) + (range.empty() ? "" : ", " + range) +
           ", default " + o.default_value + "): " + o.help + "\n";
  }
  return out;
}

OptionSchema::Values OptionSchema::resolve(const std::map<std::string, std::string>& given,
                                           const std::string& what) const {
  Values values;
  for (const auto& o : options_) values.values_[o.key] = o.default_value;
  for (const auto& [key, text] : given) {
    auto it = std::find_if(options_.begin(), options_.end(), [&](const Option& o) { return o.key == key; });
    if (it == options_.end()) {
      std::vector<std::string> keys;
      for (const auto& o : options_) keys.push_back(o.key);
      throw UsageError("unknown option '" + key + "' for " + what + "; valid options: " +
                       (keys.empty() ? std::string("none") : join(keys, ", ")));
    }
    const Option& o = *it;
    auto bad = [&](const std::string& expected) {
      return UsageError("bad value '" + text + "' for option '" + key + "' of " + what + ": expected " + expected);
    };
    std::string canonical = text;
    if (o.type == Type::kInt || o.type == Type::kDouble) {
      double v;
      if (o.type == Type::kInt) {
        auto parsed = parse_int(text);
        if (!parsed) throw bad("an integer" + (range_text(o).empty() ? "" : " in " + range_text(o)));
        v = static_cast<double>(*parsed);
        canonical = std::to_string(*parsed);
      } else {
        auto parsed = parse_double(text);
        if (!parsed) throw bad("a number" + (range_text(o).empty() ? "" : " in " + range_text(o)));
        v = *parsed;
        canonical = format_double(v);
      }
      if ((o.min && v < *o.min) || (o.max && v > *o.max)) throw bad(range_text(o));
    } else if (o.type == Type::kBool) {
      auto parsed = parse_bool(text);
      if (!parsed) throw bad("true or false");
      canonical = *parsed ? "true" : "false";
    } else if (!o.choices.empty()) {
      if (std::find(o.choices.begin(), o.choices.end(), text) == o.choices.end()) throw bad(range_text(o));
    }
    values.values_[key] = canonical;
  }
  return values;
}

const std::string& OptionSchema::Values::raw(const std::string& key) const {
  auto it = values_.find(key);
  // Asking for an undeclared key is a programming error, not a user error.
  if (it == values_.end()) throw std::logic_error("option '" + key + "' was never declared");
  return it->second;
}

int OptionSchema::Values::get_int(const std::string& key) const { return static_cast<int>(*parse_int(raw(key))); }
double OptionSchema::Values::get_double(const std::string& key) const { return *parse_double(raw(key)); }
bool OptionSchema::Values::get_bool(const std::string& key) const { return *parse_bool(raw(key)); }
const std::string& OptionSchema::Values::get_string(const std::string& key) const { return raw(key); }

}  // namespace pz::util
