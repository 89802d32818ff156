#include "optim/optimizer_config.h"

#include <algorithm>

#include "optim/config_fields.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::optim {

using nlohmann::json;

namespace {

// Reads the options that `type` has, starting from `base` (the type's defaults at the top
// level, the optimiser's options inside a param-group rule).
OptimizerOptions read_options(ConfigFields& f, const std::string& type, OptimizerOptions base, bool top_level) {
  OptimizerOptions o = base;
  if (type == "sgd" && top_level) {
    o.lr = f.required_number("lr", Bounds::at_least(0));
  } else {
    o.lr = f.number("lr", base.lr, Bounds::at_least(0));
  }
  o.weight_decay = f.number("weight_decay", base.weight_decay, Bounds::at_least(0));
  if (type == "sgd") {
    o.momentum = f.number("momentum", base.momentum, Bounds::at_least(0));
    o.dampening = f.number("dampening", base.dampening, Bounds::closed(0, 1));
    o.nesterov = f.boolean("nesterov", base.nesterov);
    if (o.nesterov && (o.momentum <= 0 || o.dampening != 0))
      f.fail("nesterov", "needs momentum > 0 and dampening 0 (got momentum " + util::format_double(o.momentum) +
                             ", dampening " + util::format_double(o.dampening) + ")");
  } else {
    if (const json* betas = f.raw("betas")) {
      if (!betas->is_array() || betas->size() != 2 || !(*betas)[0].is_number() || !(*betas)[1].is_number())
        f.fail("betas", "must be [beta1, beta2], two numbers in [0, 1), got " + betas->dump());
      o.beta1 = (*betas)[0].get<double>();
      o.beta2 = (*betas)[1].get<double>();
      for (double b : {o.beta1, o.beta2})
        if (!(b >= 0 && b < 1)) f.fail("betas", "must be [beta1, beta2], two numbers in [0, 1), got " + betas->dump());
    }
    o.eps = f.number("eps", base.eps, Bounds::at_least(0));
    o.amsgrad = f.boolean("amsgrad", base.amsgrad);
  }
  return o;
}

json options_json(const std::string& type, const OptimizerOptions& o) {
  json j{{"lr", o.lr}, {"weight_decay", o.weight_decay}};
  if (type == "sgd") {
    j["momentum"] = o.momentum;
    j["dampening"] = o.dampening;
    j["nesterov"] = o.nesterov;
  } else {
    j["betas"] = {o.beta1, o.beta2};
    j["eps"] = o.eps;
    j["amsgrad"] = o.amsgrad;
  }
  return j;
}

}  // namespace

OptimizerConfig parse_optimizer_config(const json& config, const std::string& path) {
  ConfigFields f(config, path);
  OptimizerConfig c;
  c.type = f.choice("type", "", {"sgd", "adam", "adamw"});
  if (c.type.empty()) f.fail("type", "is required: \"sgd\", \"adam\" or \"adamw\"");
  OptimizerOptions defaults;
  if (c.type == "adamw") defaults.weight_decay = 1e-2;
  c.options = read_options(f, c.type, defaults, true);
  if (f.has("clip_grad_norm")) c.clip_grad_norm = f.required_number("clip_grad_norm", Bounds::above(0));
  c.clip_norm_type = f.number("clip_norm_type", 2.0, Bounds::above(0));
  if (const json* groups = f.raw("param_groups")) {
    if (!groups->is_array()) f.fail("param_groups", "must be a list of rules, e.g. [{\"max_ndim\": 1, \"weight_decay\": 0}]");
    for (std::size_t i = 0; i < groups->size(); ++i) {
      ConfigFields g((*groups)[i], f.where("param_groups[" + std::to_string(i) + "]"));
      ParamGroupRule rule;
      if (const json* m = g.raw("match")) {
        if (m->is_string()) {
          rule.match.push_back(m->get<std::string>());
        } else if (m->is_array() && !m->empty() && std::all_of(m->begin(), m->end(), [](const json& v) { return v.is_string(); })) {
          rule.match = m->get<std::vector<std::string>>();
        } else {
          g.fail("match", "must be a glob pattern or a list of them (e.g. [\"*.bias\", \"*norm*\"]), got " + m->dump());
        }
      }
      if (g.has("max_ndim")) rule.max_ndim = g.required_integer("max_ndim", 0);
      if (rule.match.empty() && !rule.max_ndim)
        g.fail("match", "a param group rule needs \"match\" (name patterns) and/or \"max_ndim\" to select parameters");
      rule.options = read_options(g, c.type, c.options, false);
      g.finish("a param group rule of optimiser '" + c.type + "'");
      rule.overrides = json::object();
      for (const auto& [key, value] : (*groups)[i].items())
        if (key != "match" && key != "max_ndim") rule.overrides[key] = value;
      c.param_groups.push_back(std::move(rule));
    }
  }
  f.finish("optimiser '" + c.type + "'");
  return c;
}

json OptimizerConfig::to_json() const {
  json j = options_json(type, options);
  j["type"] = type;
  if (clip_grad_norm) j["clip_grad_norm"] = *clip_grad_norm;
  j["clip_norm_type"] = clip_norm_type;
  if (!param_groups.empty()) {
    json rules = json::array();
    for (const auto& r : param_groups) {
      json rule = r.overrides;
      if (!r.match.empty()) rule["match"] = r.match;
      if (r.max_ndim) rule["max_ndim"] = *r.max_ndim;
      rules.push_back(rule);
    }
    j["param_groups"] = rules;
  }
  return j;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matcher with one backtrack point for the last '*': linear in practice.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

GroupAssignment assign_param_groups(const OptimizerConfig& config, const std::vector<ParamInfo>& params) {
  const std::size_t rules = config.param_groups.size();
  std::vector<std::vector<std::size_t>> by_rule(rules + 1);  // [0]: unmatched
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::size_t slot = 0;
    for (std::size_t r = 0; r < rules; ++r) {
      const auto& rule = config.param_groups[r];
      const bool name_ok = rule.match.empty() || std::any_of(rule.match.begin(), rule.match.end(), [&](const auto& pat) {
                             return glob_match(pat, params[i].name);
                           });
      const bool ndim_ok = !rule.max_ndim || params[i].ndim <= *rule.max_ndim;
      if (name_ok && ndim_ok) {
        slot = r + 1;
        break;
      }
    }
    by_rule[slot].push_back(i);
  }
  GroupAssignment out;
  if (!by_rule[0].empty()) {
    out.members.push_back(by_rule[0]);
    out.rule.push_back(-1);
  }
  for (std::size_t r = 0; r < rules; ++r) {
    if (by_rule[r + 1].empty()) {
      std::vector<std::string> examples;
      for (std::size_t i = 0; i < params.size() && examples.size() < 6; ++i)
        examples.push_back(params[i].name + " (" + std::to_string(params[i].ndim) + "-d)");
      throw util::UsageError("optimizer.param_groups[" + std::to_string(r) +
                             "]: selects no parameter (an earlier rule may have taken them); the model's parameters "
                             "look like: " + util::join(examples, ", "));
    }
    out.members.push_back(by_rule[r + 1]);
    out.rule.push_back(static_cast<int>(r));
  }
  return out;
}

}  // namespace pz::optim
