#include "nn/poly_training_report.h"

#include <cstdio>
#include <map>

namespace pz::nn {

namespace {

void add_nest(KernelTraffic& t, const poly::ScopReport& nest) {
  ++t.nests;
  t.schedules.push_back(nest.schedule_origin);
  const poly::DataMovementReport& d = nest.data_movement;
  const auto in = poly::sum_arrays(d.kernel, &poly::ArrayMovement::moved_in).bytes;
  const auto out = poly::sum_arrays(d.kernel, &poly::ArrayMovement::moved_out).bytes;
  if (!d.computed || !in || !out) {
    ++t.nests_not_modelled;
    return;
  }
  t.memory_in += static_cast<double>(*in);
  t.memory_out += static_cast<double>(*out);
  for (const auto& tiling : d.tilings) {
    for (const auto& level : tiling.levels) {
      if (!level.loaded_bytes) continue;
      if (level.level == "L2") t.l2_loads = t.l2_loads.value_or(0) + static_cast<double>(*level.loaded_bytes);
      if (level.level == "L1") t.l1_loads = t.l1_loads.value_or(0) + static_cast<double>(*level.loaded_bytes);
    }
  }
}

void add(KernelTraffic& into, const KernelTraffic& t) {
  into.memory_in += t.memory_in;
  into.memory_out += t.memory_out;
  if (t.l2_loads) into.l2_loads = into.l2_loads.value_or(0) + *t.l2_loads;
  if (t.l1_loads) into.l1_loads = into.l1_loads.value_or(0) + *t.l1_loads;
  into.nests += t.nests;
  into.nests_not_modelled += t.nests_not_modelled;
}

std::string mib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", bytes / (1 << 20));
  return buf;
}
std::string mib(const std::optional<double>& bytes) { return bytes ? mib(*bytes) : "n/a"; }

nlohmann::json traffic_json(const KernelTraffic& t) {
  nlohmann::json j{{"memory_in_bytes", t.memory_in}, {"memory_out_bytes", t.memory_out}, {"nests", t.nests},
                   {"nests_not_modelled", t.nests_not_modelled}, {"schedules", t.schedules}};
  j["l2_load_bytes"] = t.l2_loads ? nlohmann::json(*t.l2_loads) : nlohmann::json();
  j["l1_load_bytes"] = t.l1_loads ? nlohmann::json(*t.l1_loads) : nlohmann::json();
  return j;
}

}  // namespace

TrainingStepReport report_training_step(const NetConfig& config, const NetShape& shape, int batch) {
  const TrainingPlan plan = plan_training_network(config, shape);
  std::map<std::string, poly::KernelReport> functions;
  for (poly::KernelReport& r : analyse_layer_kernels(plan.shapes, batch)) functions.emplace(r.name, std::move(r));
  TrainingStepReport report;
  report.batch = batch;
  const double n = batch, floats = 4;
  for (const TrainingLayer& layer : plan.layers) {
    TrainingLayerTraffic t{layer, {}, {}};
    for (std::size_t f = 0; f < layer.functions.size(); ++f) {
      for (const poly::ScopReport& nest : functions.at(layer.functions[f]).nests) add_nest(f == 0 ? t.forward : t.gradients, nest);
    }
    add(report.forward, t.forward);
    add(report.gradients, t.gradients);
    const double output = static_cast<double>(layer.output_floats) * n * floats;
    report.allocated_bytes += 2 * output;
    report.saved_bytes += output;
    report.layers.push_back(std::move(t));
  }
  for (const ConvShape& s : plan.shapes.convs) {
    const double padded = static_cast<double>(conv_padded_floats(s, batch)) * floats;
    report.allocated_bytes += 2 * padded;  // the forward's copy (kept) and the input gradient's
    report.saved_bytes += padded;
  }
  return report;
}

std::string format_training_step_text(const TrainingStepReport& r) {
  std::string out = "training step of the poly learner (learner.backend \"poly\"), batch " + std::to_string(r.batch) +
                    ": MiB its kernels move under polyc's model, forward | gradients\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-24s %-11s %-20s %19s %19s %21s\n", "layer", "kind", "fused", "memory in", "memory out",
                "L2 loads");
  out += line;
  for (const TrainingLayerTraffic& t : r.layers) {
    const std::string name = t.layer.module.empty() ? "-" : t.layer.module;
    std::snprintf(line, sizeof line, "  %-24s %-11s %-20s %9s|%-9s %9s|%-9s %10s|%-10s\n", name.c_str(), t.layer.kind.c_str(),
                  t.layer.fused.empty() ? "-" : t.layer.fused.c_str(), mib(t.forward.memory_in).c_str(),
                  mib(t.gradients.memory_in).c_str(), mib(t.forward.memory_out).c_str(), mib(t.gradients.memory_out).c_str(),
                  mib(t.forward.l2_loads).c_str(), mib(t.gradients.l2_loads).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line,
                "  all layers: forward in %s out %s MiB, gradients in %s out %s MiB; L2 loads %s | %s MiB over the tiled "
                "nests (%d of %d nests not modelled)\n",
                mib(r.forward.memory_in).c_str(), mib(r.forward.memory_out).c_str(), mib(r.gradients.memory_in).c_str(),
                mib(r.gradients.memory_out).c_str(), mib(r.forward.l2_loads).c_str(), mib(r.gradients.l2_loads).c_str(),
                r.forward.nests_not_modelled + r.gradients.nests_not_modelled, r.forward.nests + r.gradients.nests);
  out += line;
  std::snprintf(line, sizeof line,
                "  the step's tensors: %s MiB allocated (outputs, gradients, padded copies; no buffer shared between "
                "layers), %s MiB alive when the backward pass starts\n",
                mib(r.allocated_bytes).c_str(), mib(r.saved_bytes).c_str());
  out += line;
  return out;
}

nlohmann::json training_step_json(const TrainingStepReport& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (const TrainingLayerTraffic& t : r.layers) {
    layers.push_back({{"module", t.layer.module}, {"kind", t.layer.kind}, {"fused", t.layer.fused},
                      {"functions", t.layer.functions}, {"forward", traffic_json(t.forward)},
                      {"gradients", traffic_json(t.gradients)}});
  }
  return {{"batch", r.batch}, {"layers", layers}, {"forward", traffic_json(r.forward)}, {"gradients", traffic_json(r.gradients)},
          {"allocated_bytes", r.allocated_bytes}, {"alive_at_backward_bytes", r.saved_bytes}};
}

}  // namespace pz::nn
