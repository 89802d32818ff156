#include "nn/net_config.h"

#include "optim/config_fields.h"

namespace pz::nn {

nlohmann::json NetConfig::to_json() const {
  return {{"type", type},
          {"blocks", blocks},
          {"channels", channels},
          {"policy_channels", policy_channels},
          {"value_channels", value_channels},
          {"value_hidden", value_hidden}};
}

NetConfig parse_net_config(const nlohmann::json& config, const std::string& path) {
  optim::ConfigFields f(config, path);
  NetConfig c;
  // Only the residual tower exists so far; the fully-convolutional global-pooling variant
  // will be a second type here.
  c.type = f.choice("type", c.type, {"resnet"});
  c.blocks = static_cast<int>(f.integer("blocks", c.blocks, 0));
  c.channels = static_cast<int>(f.integer("channels", c.channels, 1));
  c.policy_channels = static_cast<int>(f.integer("policy_channels", c.policy_channels, 1));
  c.value_channels = static_cast<int>(f.integer("value_channels", c.value_channels, 1));
  c.value_hidden = static_cast<int>(f.integer("value_hidden", c.value_hidden, 1));
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
