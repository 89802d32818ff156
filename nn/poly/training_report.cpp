#include "nn/poly/training_report.h"

#include <algorithm>
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
  // The learner's own plan (nn/poly/backprop.cpp): kernels for every batch (no fusion
  // weighed for one), its 3×3 convolutions as PZ_POLY_WINOGRAD says.
  const int winograd = training_winograd_mode();
  const TrainingPlan plan = plan_training_network(config, shape, 0, winograd);
  std::map<std::string, poly::KernelReport> functions;
  for (poly::KernelReport& r : analyse_layer_kernels(plan.shapes, batch)) functions.emplace(r.name, std::move(r));
  TrainingStepReport report;
  report.batch = batch;
  for (const TrainingLayer& layer : plan.layers) {
    TrainingLayerTraffic t{layer, {}, {}};
    for (std::size_t f = 0; f < layer.functions.size(); ++f) {
      for (const poly::ScopReport& nest : functions.at(layer.functions[f]).nests) add_nest(f == 0 ? t.forward : t.gradients, nest);
    }
    add(report.forward, t.forward);
    add(report.gradients, t.gradients);
    report.layers.push_back(std::move(t));
  }
  report.winograd = winograd;
  report.fusions = plan_training_network(config, shape, batch).fusions;
  report.memory = training_step_memory(plan, batch);
  return report;
}

std::string format_training_step_text(const TrainingStepReport& r) {
  const std::string convolutions = r.winograd == 0 ? "direct (PZ_POLY_WINOGRAD=off)"
                                   : r.winograd == kTrainingWinogradAuto
                                       ? "Winograd where the cost model picks a tile (PZ_POLY_WINOGRAD=auto)"
                                       : "Winograd F(" + std::to_string(r.winograd) + "x" + std::to_string(r.winograd) +
                                             ",3x3) where it applies (PZ_POLY_WINOGRAD=" + std::to_string(r.winograd) + ")";
  std::string out = "training step of the poly learner (learner.backend \"poly\"), batch " + std::to_string(r.batch) +
                    ", 3x3 convolutions " + convolutions + ": MiB its kernels move under polyc's model, forward | gradients\n";
  char line[512];
  int fused_width = 5;
  for (const TrainingLayerTraffic& t : r.layers) fused_width = std::max(fused_width, static_cast<int>(t.layer.fused.size()));
  std::snprintf(line, sizeof line, "  %-24s %-11s %-*s %19s %19s %21s\n", "layer", "kind", fused_width, "fused", "memory in",
                "memory out", "L2 loads");
  out += line;
  for (const TrainingLayerTraffic& t : r.layers) {
    const std::string name = t.layer.module.empty() ? "-" : t.layer.module;
    std::snprintf(line, sizeof line, "  %-24s %-11s %-*s %9s|%-9s %9s|%-9s %10s|%-10s\n", name.c_str(), t.layer.kind.c_str(),
                  fused_width, t.layer.fused.empty() ? "-" : t.layer.fused.c_str(), mib(t.forward.memory_in).c_str(),
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
  if (!r.fusions.empty())
    out += "  backward fusions weighed on polyc's footprints for this batch, MiB moved unfused -> fused (the path through "
           "LibTorch's autograd takes them; the learner above, whose kernels serve every batch, keeps them apart):\n";
  for (const FusionChoice& f : r.fusions) {
    std::snprintf(line, sizeof line, "    %s, %s: %s -> %s: %s\n", f.kernel.c_str(), f.fusion.c_str(), mib(f.unfused_bytes).c_str(),
                  mib(f.fused_bytes).c_str(), f.fused() ? "fused" : "kept apart");
    out += line;
  }
  const TrainingStepMemory& m = r.memory;
  std::snprintf(line, sizeof line,
                "  the step's buffers (outputs, gradients passed back, workspaces; not the parameters' gradients): %s MiB "
                "each alone, %s MiB placed by the storage planner (live peak %s MiB), %s MiB kept for the backward pass\n",
                mib(static_cast<double>(m.unshared_bytes)).c_str(), mib(static_cast<double>(m.planned_bytes)).c_str(),
                mib(static_cast<double>(m.live_peak_bytes)).c_str(), mib(static_cast<double>(m.kept_for_backward_bytes)).c_str());
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
  nlohmann::json fusions = nlohmann::json::array();
  for (const FusionChoice& f : r.fusions) {
    fusions.push_back({{"kernel", f.kernel}, {"fusion", f.fusion}, {"batch", f.batch}, {"unfused_bytes", f.unfused_bytes},
                       {"fused_bytes", f.fused_bytes}, {"fused", f.fused()}});
  }
  return {{"batch", r.batch}, {"winograd", r.winograd == kTrainingWinogradAuto ? nlohmann::json("auto") : nlohmann::json(r.winograd)},
          {"layers", layers}, {"fusions", fusions}, {"forward", traffic_json(r.forward)}, {"gradients", traffic_json(r.gradients)},
          {"memory", {{"unshared_bytes", r.memory.unshared_bytes}, {"planned_bytes", r.memory.planned_bytes},
                      {"live_peak_bytes", r.memory.live_peak_bytes},
                      {"kept_for_backward_bytes", r.memory.kept_for_backward_bytes},
                      {"buffers", r.memory.buffers.size()}}}};
}

}  // namespace pz::nn
