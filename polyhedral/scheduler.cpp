#include "polyhedral/scheduler.h"

#include <isl/options.h>
#include <isl/schedule.h>

#include "polyhedral/legality.h"

#include <vector>

namespace pz::poly {

namespace {

isl::schedule try_isl(IslContext& ctx, const Scop& scop, const isl::union_map& validity, bool serialize,
                      const ScheduleOptions& o, std::string& error) {
  isl_ctx* raw = ctx.raw();
  isl_options_set_schedule_serialize_sccs(raw, serialize ? 1 : 0);
  isl_options_set_schedule_outer_coincidence(raw, 1);
  isl_options_set_schedule_maximize_band_depth(raw, 1);
  isl_options_set_schedule_max_coefficient(raw, o.max_coefficient);
  IslBudgetScope budget(ctx, o.budget);
  try {
    isl_schedule_constraints* sc = isl_schedule_constraints_on_domain(scop.domain().release());
    sc = isl_schedule_constraints_set_context(sc, scop.context.copy());
    sc = isl_schedule_constraints_set_validity(sc, validity.copy());
    sc = isl_schedule_constraints_set_proximity(sc, validity.copy());
    sc = isl_schedule_constraints_set_coincidence(sc, validity.copy());
    isl_schedule* s = isl_schedule_constraints_compute_schedule(sc);
    if (!s) {
      const char* msg = isl_ctx_last_error_msg(raw);
      error = msg ? msg : "isl could not compute a schedule";
      return {};
    }
    return isl::manage(s);
  } catch (const isl::exception& e) {
    error = e.what();
    return {};
  }
}

}  // namespace

ScheduleResult compute_schedule(IslContext& ctx, const Scop& scop, const Dependences& deps,
                                const ScheduleOptions& options) {
  if (!options.use_isl || scop.statements.empty()) return {scop.schedule, "source order"};
  const isl::union_map validity = deps.validity();
  std::string error;
  bool serialize_first = options.fusion == ScheduleOptions::Fusion::kMin;
  std::vector<bool> attempts = {serialize_first};
  if (!serialize_first) attempts.push_back(true);
  for (bool serialize : attempts) {
    isl::schedule s = try_isl(ctx, scop, validity, serialize, options, error);
    // isl's result is trusted only after our own check: a wrong schedule would mean wrong
    // numbers, a missed optimisation only a slower kernel.
    if (!s.is_null() && !find_violation(s, validity)) return {s, serialize ? "isl (fusion=min)" : "isl (fusion=max)"};
    if (!s.is_null()) error = "isl's schedule violates a dependence";
  }
  return {scop.schedule, "source order (isl: " + error + ")"};
}

}  // namespace pz::poly
