#include "nn/net_config.h"

#include "optim/config_fields.h"

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
  return j;
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
  return s;
}

}  // namespace pz::nn
