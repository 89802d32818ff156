// A schedule pass of polyc's pipeline, in one shape for every pass (as PPCG's targets share
// one driver signature): it reads the scop, its dependences and the options, proposes a new
// schedule for the current one, and the driver keeps the proposal only if every dependence
// still holds (legality.h), under the pass's own stage budget (stage_budget.h).
//
// The pipeline is then a list of passes (polyc.cpp): adding a transformation means writing
// one `propose` function and adding one row.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "polyhedral/analysis/dependences.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/ir/scop.h"
#include "polyhedral/stage_budget.h"
#include "polyhedral/transform/tiling.h"

namespace pz::poly {

struct PolycOptions;

// What earlier passes tell later ones and the report.
struct PassState {
  bool time_tiled = false;         // a wavefront schedule is in place: no re-tiling
  std::vector<TiledBand> tiled;    // bands tiled rectangularly (for footprints)
};

// Everything a pass may read, and the log it writes its decisions to.
struct PassInput {
  IslContext& ctx;
  const Scop& scop;
  const Dependences& deps;
  const isl::union_map& validity;
  const PolycOptions& options;
  PassState& state;
  std::vector<std::string>& log;
};

struct SchedulePass {
  const char* stage;  // the stage its budget and a budget warning name ("time tiling")
  const char* name;   // its entry in the legality log ("time tiling: legal (...)")
  // Whether the pass applies under these options after the passes before it.
  bool (*applies)(const PolycOptions& options, const PassState& state);
  // The schedule it proposes in place of `current`; nullopt when it has nothing to do (the
  // reason, if any, is in the log).
  std::optional<isl::schedule> (*propose)(const isl::schedule& current, PassInput& in);
  // Called after the legality check with whether the schedule changed; may be null.
  void (*settle)(bool changed, PassState& state);
};

// `before`, or `proposal` if it violates no dependence in `validity`; logs "NAME: legal …"
// or "NAME: UNDONE, it would violate …".
isl::schedule keep_if_legal(const char* name, const isl::schedule& before, const isl::schedule& proposal,
                            const isl::union_map& validity, std::vector<std::string>& log);

// Runs `passes` in order on `schedule`, each under `budget` and re-checked for legality.
isl::schedule run_passes(const std::vector<SchedulePass>& passes, isl::schedule schedule, PassInput& in,
                         StageBudget& budget);

}  // namespace pz::poly
