#include "nn/net_config.h"

#include "optim/config_fields.h"
#include "util/error.h"

namespace pz::nn {

nlohmann::json NetConfig::to_json() const {
  nlohmann::json j = {{"type", type},
                      {"blocks", blocks},
                      {"channels", channels},
                      {"policy_channels", policy_channels},
                      {"value_channels", value_channels},
                      {"value_hidden", value_hidden},
                      {"value_head", value_head}};
  if (pooled()) j["global_channels"] = global_channels;
  if (!value_range.empty()) j["value_range"] = value_range;
  // Written only when on, so that the configs of nets without them read as they always did.
  if (ownership) j["ownership"] = true;
  if (score) j["score"] = true;
  return j;
}

std::string NetConfig::describe_heads() const {
  std::string s = value_head + " value head";
  if (ownership && score) s += ", ownership and score heads";
  else if (ownership) s += ", ownership head";
  else if (score) s += ", score head";
  return s;
}

NetConfig parse_net_config(const nlohmann::json& config, const std::string& path) {
  optim::ConfigFields f(config, path);
  NetConfig c;
  c.type = f.choice("type", c.type, {"resnet", "pooled"});
  c.blocks = static_cast<int>(f.integer("blocks", c.blocks, 0));
  c.channels = static_cast<int>(f.integer("channels", c.channels, 1));
  c.policy_channels = static_cast<int>(f.integer("policy_channels", c.policy_channels, 1));
  c.value_channels = static_cast<int>(f.integer("value_channels", c.value_channels, 1));
  c.value_hidden = static_cast<int>(f.integer("value_hidden", c.value_hidden, 1));
  // Checkpoints written before the field existed had a scalar head: the default keeps them loading.
  c.value_head = f.choice("value_head", c.value_head, {"scalar", "wdl"});
  if (const nlohmann::json* range = f.raw("value_range")) {
    if (!range->is_array() || range->size() != 2 || !(*range)[0].is_number() || !(*range)[1].is_number()) {
      f.fail("value_range", "must be [lo, hi], two numbers, got " + range->dump());
    }
    c.value_range = {(*range)[0].get<double>(), (*range)[1].get<double>()};
    if (!(c.value_range[1] > c.value_range[0])) f.fail("value_range", "must have lo < hi, got " + range->dump());
  }
  c.ownership = f.boolean("ownership", false);
  c.score = f.boolean("score", false);
  if (c.pooled()) {
    c.global_channels = static_cast<int>(f.integer("global_channels", c.global_channels, 1));
  } else if (f.has("global_channels")) {
    f.fail("global_channels", "only a \"pooled\" network has global pooling branches (type is \"" + c.type + "\")");
  }
  if (c.blocks > 64) f.fail("blocks", "must be at most 64, got " + std::to_string(c.blocks));
  if (c.channels > 1024) f.fail("channels", "must be at most 1024, got " + std::to_string(c.channels));
  f.finish("network");
  return c;
}

NetShape net_shape(const games::GameInfo& info) {
  NetShape s;
  s.input = info.observation_shape;
  s.policy = info.policy_shape;
  s.spatial_policy = info.policy_shape.height == info.observation_shape.height &&
                     info.policy_shape.width == info.observation_shape.width;
  s.value_outputs = (info.num_players == 1 || (info.num_players == 2 && info.zero_sum)) ? 1 : info.num_players;
  s.board_ownership = info.board_ownership;
  return s;
}

void check_net_config(const NetConfig& config, const games::GameInfo& info) {
  if (config.auxiliary() && !info.board_ownership) {
    throw util::UsageError(std::string("network.") + (config.ownership ? "ownership" : "score") + ": " + info.name +
                           " has no final ownership or score to predict (games scored on their board have: go, "
                           "othello); remove the field");
  }
}

}  // namespace pz::nn
