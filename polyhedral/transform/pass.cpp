#include "polyhedral/transform/pass.h"

#include <isl/schedule.h>

#include "polyhedral/analysis/legality.h"

namespace pz::poly {

isl::schedule keep_if_legal(const char* name, const isl::schedule& before, const isl::schedule& proposal,
                            const isl::union_map& validity, std::vector<std::string>& log) {
  if (auto bad = find_violation(proposal, validity)) {
    log.push_back(std::string(name) + ": UNDONE, it would violate " + *bad);
    return before;
  }
  log.push_back(std::string(name) + ": legal (all dependences respected)");
  return proposal;
}

isl::schedule run_passes(const std::vector<SchedulePass>& passes, isl::schedule schedule, PassInput& in,
                         StageBudget& budget) {
  for (const SchedulePass& pass : passes) {
    if (!pass.applies(in.options, in.state)) continue;
    budget.run(pass.stage, [&] {
      std::optional<isl::schedule> proposal = pass.propose(schedule, in);
      if (!proposal) return;
      isl::schedule before = schedule;
      schedule = keep_if_legal(pass.name, before, *proposal, in.validity, in.log);
      if (pass.settle) pass.settle(isl_schedule_plain_is_equal(schedule.get(), before.get()) != isl_bool_true, in.state);
    });
  }
  return schedule;
}

}  // namespace pz::poly
