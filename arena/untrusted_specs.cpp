#include "arena/untrusted_specs.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "util/error.h"
#include "util/spec.h"

namespace pz::arena {
namespace {

enum class Bound { kNone, kSimulations, kSeconds, kThreads, kSmall, kModel };

struct AllowedOption {
  const char* key;
  Bound bound;
};

struct AllowedKind {
  const char* name;
  std::vector<AllowedOption> options;
};

// The kinds and options an untrusted client may use (untrusted_specs.h). kSmall bounds a
// count that multiplies the work of one simulation (rollouts, worlds, batch, symmetries).
const std::vector<AllowedKind>& allowed_kinds() {
  static const std::vector<AllowedKind> kinds = {
      {"human", {}},
      {"random", {{"seed", Bound::kNone}}},
      {"uct",
       {{"sims", Bound::kSimulations}, {"seconds", Bound::kSeconds}, {"c", Bound::kNone}, {"rollouts", Bound::kSmall},
        {"worlds", Bound::kSmall}, {"seed", Bound::kNone}}},
      {"mcts",
       {{"sims", Bound::kSimulations}, {"seconds", Bound::kSeconds}, {"threads", Bound::kThreads},
        {"batch", Bound::kSmall}, {"burst", Bound::kNone}, {"c", Bound::kNone}, {"cbase", Bound::kNone},
        {"fpu", Bound::kNone}, {"rollouts", Bound::kSmall}, {"select", Bound::kNone}, {"lcb_z", Bound::kNone},
        {"lcb_min", Bound::kNone}, {"temp", Bound::kNone}, {"temp_moves", Bound::kNone}, {"noise", Bound::kNone},
        {"solver", Bound::kNone}, {"wincheck", Bound::kNone}, {"reuse", Bound::kNone}, {"worlds", Bound::kSmall},
        {"model", Bound::kModel}, {"seed", Bound::kNone}, {"sym", Bound::kSmall}, {"backend", Bound::kNone},
        {"nnthreads", Bound::kThreads}, {"winograd", Bound::kNone}}},
      {"policy",
       {{"model", Bound::kModel}, {"temp", Bound::kNone}, {"seed", Bound::kNone}, {"sym", Bound::kSmall},
        {"backend", Bound::kNone}, {"nnthreads", Bound::kThreads}, {"winograd", Bound::kNone}}},
      {"solver", {{"seconds", Bound::kSeconds}}},
  };
  return kinds;
}

constexpr double kMaxSmall = 256;

std::string kind_names() {
  std::string out;
  for (const auto& kind : allowed_kinds()) out += (out.empty() ? "" : ", ") + std::string(kind.name);
  return out;
}

std::string option_names(const AllowedKind& kind) {
  std::string out;
  for (const auto& option : kind.options) out += (out.empty() ? "" : ", ") + std::string(option.key);
  return out.empty() ? "none" : out;
}

// A number's text as a finite double; nullopt for text that is not a number (the player
// kind's own schema then reports booleans and choices).
std::optional<double> number_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  if (!std::isfinite(value) || errno == ERANGE) return NAN;
  return value;
}

}  // namespace

UntrustedSpecs::UntrustedSpecs(std::map<std::string, std::string> models, UntrustedBudget budget)
    : models_(std::move(models)), budget_(budget) {}

std::string UntrustedSpecs::resolve(std::string_view text) const {
  util::Spec spec = util::parse_spec(text);
  const AllowedKind* kind = nullptr;
  for (const auto& k : allowed_kinds()) {
    if (spec.name == k.name) kind = &k;
  }
  if (!kind) {
    throw util::UsageError("player kind '" + spec.name.substr(0, 40) + "' is not offered here (kinds: " + kind_names() +
                           "; engines that run commands are for the command line only)");
  }
  for (auto& [key, value] : spec.options) {
    const AllowedOption* option = nullptr;
    for (const auto& o : kind->options) {
      if (key == o.key) option = &o;
    }
    if (!option) {
      throw util::UsageError("player '" + spec.name + "': option '" + key.substr(0, 40) +
                             "' is not offered here (options: " + option_names(*kind) + ")");
    }
    if (option->bound == Bound::kModel) {
      const auto model = models_.find(value);
      if (model == models_.end()) {
        std::string names;
        for (const auto& [name, path] : models_) names += (names.empty() ? "" : ", ") + name;
        throw util::UsageError("player '" + spec.name + "': model='" + value.substr(0, 40) +
                               "' is not a network offered here (" + (names.empty() ? "none is" : "offered: " + names) +
                               "; networks are named, not given by path)");
      }
      value = model->second;
      continue;
    }
    const auto number = number_of(value);
    if (!number) continue;  // a word: the kind's schema checks it
    if (std::isnan(*number)) {
      throw util::UsageError("player '" + spec.name + "': " + key + "=" + value.substr(0, 40) + " is not a finite number");
    }
    double max = INFINITY;
    switch (option->bound) {
      case Bound::kSimulations: max = budget_.max_simulations; break;
      case Bound::kSeconds: max = budget_.max_seconds; break;
      case Bound::kThreads: max = budget_.max_threads; break;
      case Bound::kSmall: max = kMaxSmall; break;
      case Bound::kNone:
      case Bound::kModel: break;
    }
    if (*number > max) {
      throw util::UsageError("player '" + spec.name + "': " + key + "=" + value.substr(0, 40) +
                             " is more than this server allows (at most " +
                             std::to_string(static_cast<long long>(max)) + ")");
    }
  }
  return spec.to_string();
}

}  // namespace pz::arena
