// Every scheduler against PyTorch's numbers (reference.json, written by make_reference.py,
// which runs PyTorch's lr_scheduler arithmetic statement for statement), in both modes:
//   * closed form (the default) equals what PyTorch's step() produces to 1e-12 relative, and
//     PyTorch's own closed form (where it has one) exactly up to 1e-15;
//   * chainable mode reproduces PyTorch's step() bit for bit.
// Then every case again, saved at several steps and resumed on fresh param groups: the
// continuation is bit-identical to the unbroken run.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "optim/scheduler_factory.h"

#ifndef PZ_OPTIM_REFERENCE_JSON
#error "PZ_OPTIM_REFERENCE_JSON must name tests/optim/reference.json"
#endif

namespace pz::optim {
namespace {

using nlohmann::json;

const json& reference() {
  static const json cases = [] {
    std::ifstream in(PZ_OPTIM_REFERENCE_JSON);
    if (!in) throw std::runtime_error("cannot open " + std::string(PZ_OPTIM_REFERENCE_JSON));
    return json::parse(in)["cases"];
  }();
  return cases;
}

const json& find_case(const std::string& name) {
  for (const auto& c : reference())
    if (c["name"] == name) return c;
  throw std::runtime_error("no reference case " + name);
}

SchedulerContext context() {
  SchedulerContext ctx;
  ctx.lambdas["decay_0.95"] = [](std::int64_t t) { return std::pow(0.95, static_cast<double>(t)); };
  return ctx;
}

std::shared_ptr<VectorParamGroups> groups_for(const json& c) {
  const auto base = c["base_lrs"].get<std::vector<double>>();
  return std::make_shared<VectorParamGroups>(base, MomentumKind::kMomentum, std::vector<double>(base.size(), 0.9));
}

struct Trace {
  std::vector<std::vector<double>> lr, momentum;
};

void record(Trace& run, const VectorParamGroups& groups) {
  run.lr.push_back(groups.lrs());
  run.momentum.push_back(groups.momenta());
}

void advance(LRScheduler& s, const json& c, std::int64_t t) {
  if (c.contains("metrics")) {
    s.step(c["metrics"][static_cast<std::size_t>(t - 1)].get<double>());
  } else {
    s.step();
  }
}

Trace run_case(const json& c, const json& config) {
  auto groups = groups_for(c);
  auto s = build_scheduler(config, groups, context());
  Trace run;
  const auto steps = c["steps"].get<std::int64_t>();
  for (std::int64_t t = 0; t < steps; ++t) {
    if (t > 0) advance(*s, c, t);
    EXPECT_EQ(s->last_epoch(), t);
    EXPECT_EQ(s->get_last_lr(), groups->lrs()) << "get_last_lr() at t=" << t;
    record(run, *groups);
  }
  return run;
}

json with_chainable(json config) {
  config["chainable"] = true;
  return config;
}

void expect_close(const std::vector<std::vector<double>>& got, const json& want, double rel, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t t = 0; t < got.size(); ++t) {
    for (std::size_t g = 0; g < got[t].size(); ++g) {
      const double a = got[t][g], b = want[t][g].get<double>();
      const double tol = rel * std::max(std::abs(a), std::abs(b)) + 1e-300;
      EXPECT_LE(std::abs(a - b), tol) << what << ": t=" << t << " group " << g << " got " << a << " want " << b
                                      << " (diff " << a - b << ")";
    }
  }
}

void expect_identical(const std::vector<std::vector<double>>& got, const json& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t t = 0; t < got.size(); ++t)
    for (std::size_t g = 0; g < got[t].size(); ++g)
      EXPECT_EQ(got[t][g], want[t][g].get<double>()) << what << ": t=" << t << " group " << g;
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : reference()) names.push_back(c["name"].get<std::string>());
  return names;
}

class PyTorchReference : public ::testing::TestWithParam<std::string> {};

TEST_P(PyTorchReference, ClosedFormMatchesPyTorch) {
  const json& c = find_case(GetParam());
  const Trace run = run_case(c, c["config"]);
  if (c.contains("pytorch")) expect_close(run.lr, c["pytorch"], 1e-12, "vs PyTorch step()");
  if (c.contains("closed")) expect_close(run.lr, c["closed"], 1e-15, "vs closed form");
  if (c.contains("momentum")) expect_close(run.momentum, c["momentum"], 1e-12, "momentum vs PyTorch");
}

TEST_P(PyTorchReference, ChainableModeIsPyTorchBitForBit) {
  const json& c = find_case(GetParam());
  const Trace run = run_case(c, with_chainable(c["config"]));
  if (c.contains("pytorch")) {
    expect_identical(run.lr, c["pytorch"], "chainable vs PyTorch step()");
    if (c.contains("momentum")) expect_identical(run.momentum, c["momentum"], "momentum vs PyTorch");
  } else {
    // Schedules PyTorch lacks: the recursion agrees with the formula.
    expect_close(run.lr, c["closed"], 1e-12, "chainable vs formula");
  }
}

TEST_P(PyTorchReference, ResumeFromSavedStateIsBitIdentical) {
  const json& c = find_case(GetParam());
  const auto steps = c["steps"].get<std::int64_t>();
  for (const json& config : {c["config"], with_chainable(c["config"])}) {
    const Trace unbroken = run_case(c, config);
    for (std::int64_t k : {std::int64_t{0}, std::int64_t{1}, steps / 2, steps - 1}) {
      auto groups = groups_for(c);
      auto s = build_scheduler(config, groups, context());
      for (std::int64_t t = 1; t <= k; ++t) advance(*s, c, t);
      // Through text, as a checkpoint would go.
      const std::string saved = s->state_dict().dump();
      s.reset();
      auto fresh = groups_for(c);  // base lrs and momenta as at the start, not as at step k
      auto resumed = restore_scheduler(json::parse(saved), fresh, context());
      EXPECT_EQ(resumed->last_epoch(), k);
      EXPECT_EQ(fresh->lrs(), unbroken.lr[static_cast<std::size_t>(k)]) << "restored lr at k=" << k;
      for (std::int64_t t = k + 1; t < steps; ++t) {
        advance(*resumed, c, t);
        EXPECT_EQ(fresh->lrs(), unbroken.lr[static_cast<std::size_t>(t)]) << "k=" << k << " t=" << t << " " << config.dump();
        if (c.contains("momentum")) {
          EXPECT_EQ(fresh->momenta(), unbroken.momentum[static_cast<std::size_t>(t)]) << "momentum k=" << k << " t=" << t;
        }
      }
    }
  }
}

TEST_P(PyTorchReference, ConfigRoundTrips) {
  const json& c = find_case(GetParam());
  auto s = build_scheduler(c["config"], groups_for(c), context());
  auto again = build_scheduler(s->config(), groups_for(c), context());
  EXPECT_EQ(again->config(), s->config());
}

INSTANTIATE_TEST_SUITE_P(Cases, PyTorchReference, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace pz::optim
