#include "polyhedral/polyc.h"

#include <isl/schedule.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "polyhedral/builder.h"
#include "polyhedral/c_frontend.h"
#include "polyhedral/codegen.h"
#include "polyhedral/dependences.h"
#include "polyhedral/footprint.h"
#include "polyhedral/isl_context.h"
#include "polyhedral/legality.h"
#include "polyhedral/loop_order.h"
#include "polyhedral/parallel_marks.h"
#include "polyhedral/pass.h"
#include "polyhedral/register_tiling.h"
#include "polyhedral/stage_budget.h"
#include "polyhedral/time_tiling.h"

namespace pz::poly {

namespace {

ScopReport describe_scop(const Scop& scop, const Dependences& deps, int line) {
  ScopReport r;
  r.line = line;
  r.params = scop.params;
  for (auto& p : r.params)
    if (auto it = scop.param_values.find(p); it != scop.param_values.end()) {
      p += '=';
      p += std::to_string(it->second);
    }
  for (const auto& s : scop.statements) {
    StatementReport sr;
    sr.name = s.name;
    sr.text = s.to_c();
    sr.line = s.loc.line;
    sr.domain = isl_str(s.domain);
    for (const auto& a : s.accesses) (a.write ? sr.writes : sr.reads).push_back(isl_str(a.relation));
    r.statements.push_back(sr);
  }
  r.raw = isl_str(deps.raw);
  r.war = isl_str(deps.war);
  r.waw = isl_str(deps.waw);
  r.live_in = isl_str(deps.live_in);
  r.live_out = isl_str(deps.live_out);
  return r;
}

// Footprints and data movement of the kernel and of each rectangularly tiled band.
DataMovementReport analyze_data_movement(IslContext& ctx, const Scop& scop, const Dependences& deps,
                                         const std::vector<TiledBand>& tiled, const CacheInfo& cache,
                                         unsigned long budget, std::string note) {
  DataMovementReport d;
  d.cache = cache;
  for (const auto& p : scop.params)
    if (!scop.param_values.count(p)) {
      note += note.empty() ? "" : "; ";
      note += "size " + p + " is symbolic: exact counts need concrete sizes (#define " + p + " <int>)";
      break;
    }
  // Each phase under its own budget, so a costly sum over tiles leaves the rest reported.
  auto phase = [&](const char* what, const std::function<void()>& f) {
    std::string why;
    try {
      IslBudgetScope scope(ctx, budget);
      isl_ctx_reset_error(ctx.raw());
      f();
      // A count over the budget returns no value rather than throwing.
      if (isl_ctx_last_error(ctx.raw()) == isl_error_quota) why = "isl operation budget exceeded";
    } catch (const isl::exception& e) {
      why = e.what();
    }
    if (why.empty()) return true;
    note += note.empty() ? "" : "; ";
    note += std::string(what) + " not computed (" + why + ")";
    return false;
  };
  d.computed = phase("kernel data movement", [&] { d.kernel = kernel_movement(scop, deps); });
  if (!d.computed) d.kernel.clear();
  for (const auto& t : tiled) {
    TilingMovement m;
    if (!phase("tile footprints", [&] { m = tiling_movement(scop, t.band, t.sizes); })) continue;
    if (!phase("sums over tiles", [&] { add_tile_sums(scop, t.band, m); }))
      for (auto& a : m.arrays) a.loaded = a.written_back = std::nullopt;
    m.levels = cache_movement(d.kernel, m, cache);
    d.tilings.push_back(m);
  }
  d.note = note;
  return d;
}

// The original iterators are dead after the region (as in Pluto and PPCG); using them keeps
// -Wunused-variable quiet when they were declared only for these loops.
std::string dead_iterator_uses(const Scop& scop, const std::string& indent) {
  std::string uses;
  for (const auto& it : scop.outer_iterators) uses += "(void)" + it + "; ";
  return uses.empty() ? "" : indent + uses.substr(0, uses.size() - 1) + "\n";
}

// The code of a reduction chain under its register-blocked schedule (register_blocking.h),
// with `report` filled in; nullopt, `scop` as it came and the reason appended to `log`, when
// the scop is no chain or the blocked schedule would break a dependence.
std::optional<std::string> register_blocked_code(IslContext& ctx, StageBudget& budget, Scop& scop, const PolycOptions& o,
                                                 const CodegenOptions& co, int source_line, ScopReport& report,
                                                 std::vector<std::string>& log) {
  const std::size_t statements = scop.statements.size();
  std::optional<RegisterBlocking> blocking;
  std::optional<Dependences> deps;
  ScopReport r;
  std::optional<isl::schedule> blocked_schedule;
  budget.run("register blocking", [&] {
    blocking = register_block(scop, o.register_block, log);
    if (!blocking) return;
    deps = compute_dependences(scop);
    r = describe_scop(scop, *deps, source_line);
    r.passes = log;
    blocked_schedule = keep_if_legal("register blocking", scop.schedule, blocking->schedule, deps->validity(), r.passes);
  });
  if (!blocking) return std::nullopt;
  const isl::schedule& s = *blocked_schedule;
  if (isl_schedule_plain_is_equal(s.get(), scop.schedule.get()) == isl_bool_true) {
    log = r.passes;
    scop.statements.erase(scop.statements.begin() + static_cast<long>(statements), scop.statements.end());
    return std::nullopt;
  }
  r.schedule_origin = "register-blocked reduction chain";
  r.schedule = isl_str(s);
  if (o.data_movement)
    r.data_movement = budget.run("data movement", [&] {
      return analyze_data_movement(ctx, scop, *deps, {TiledBand{blocking->block_band, blocking->block_sizes}},
                                   o.tile.cache, o.data_movement_budget, "tiles: the register blocks");
    });
  report = std::move(r);
  CodegenOptions blocked = co;
  blocked.register_block = &blocking->block;
  std::string code = budget.run("code generation", [&] { return generate_c(scop, s, blocked); });
  return co.indent + "/* polyc: " + blocking->block.describe() + " */\n" + code;
}

// The passes after isl's scheduler, in order. A stencil gets its own skewed, time-tiled
// wavefront schedule, whose point loops keep isl's order (the stride-1 member is innermost
// already) and are not re-tiled; any other scop gets a locality loop order, rectangular
// tiles and unroll-and-jam. Both then get parallel and simd marks.
const std::vector<SchedulePass>& schedule_passes() {
  static const std::vector<SchedulePass> passes = {
      {"time tiling", "time tiling",
       [](const PolycOptions& o, const PassState&) { return o.tile.mode != TileOptions::Mode::kOff && o.time_tile.enabled; },
       [](const isl::schedule&, PassInput& in) {
         TimeTileOptions tt = in.options.time_tile;
         tt.cache = in.options.tile.cache;
         return time_tile(in.ctx, in.scop, in.deps, in.options.schedule, tt, in.log);
       },
       [](bool changed, PassState& state) { state.time_tiled = changed; }},
      {"loop order", "loop order", [](const PolycOptions&, const PassState& state) { return !state.time_tiled; },
       [](const isl::schedule& s, PassInput& in) -> std::optional<isl::schedule> {
         return order_loops_for_locality(s, in.scop, in.log);
       },
       nullptr},
      {"tiling", "tiling",
       [](const PolycOptions& o, const PassState& state) {
         return !state.time_tiled && o.tile.mode != TileOptions::Mode::kOff;
       },
       [](const isl::schedule& s, PassInput& in) -> std::optional<isl::schedule> {
         return tile_bands(s, in.scop, in.options.tile, in.log, &in.state.tiled);
       },
       [](bool changed, PassState& state) {
         if (!changed) state.tiled.clear();
       }},
      {"unroll-and-jam", "unroll-and-jam",
       [](const PolycOptions& o, const PassState& state) { return !state.time_tiled && o.unroll_jam >= 2; },
       [](const isl::schedule& s, PassInput& in) -> std::optional<isl::schedule> {
         return register_tile(s, in.scop, in.options.unroll_jam, in.validity, in.log);
       },
       nullptr},
      {"parallel marks", "parallel", [](const PolycOptions& o, const PassState&) { return o.parallel; },
       [](const isl::schedule& s, PassInput& in) -> std::optional<isl::schedule> {
         return mark_parallel_loops(s, in.validity, in.log, in.options.min_parallel_work, &in.scop);
       },
       nullptr},
      {"simd marks", "vectorize", [](const PolycOptions& o, const PassState&) { return o.vectorize; },
       [](const isl::schedule& s, PassInput& in) -> std::optional<isl::schedule> {
         return mark_simd_loops(s, in.validity, in.log, &in.scop);
       },
       nullptr},
  };
  return passes;
}

}  // namespace

std::string optimize_scop(IslContext& ctx, Scop& scop, const PolycOptions& o, ScopReport& report,
                          const std::string& indent, int source_line) {
  StageBudget budget(ctx, o.budget);
  CodegenOptions co;
  co.indent = indent;
  std::vector<std::string> blocking_log;
  if (auto code = register_blocked_code(ctx, budget, scop, o, co, source_line, report, blocking_log))
    return *code + dead_iterator_uses(scop, indent);
  Dependences deps = budget.run("dependence analysis", [&] { return compute_dependences(scop); });
  const isl::union_map validity = budget.run("dependence analysis", [&] {
    report = describe_scop(scop, deps, source_line);
    return deps.validity();
  });
  auto& log = report.passes;
  log = blocking_log;
  ScheduleOptions so = o.schedule;
  if (so.stream_bytes > 0 && o.tile.cache.l2 > 0) so.stream_bytes = o.tile.cache.l2;
  ScheduleResult sr = budget.run("scheduling", [&] { return compute_schedule(ctx, scop, deps, so); });
  report.schedule_origin = sr.origin;
  PassState state;
  PassInput in{ctx, scop, deps, validity, o, state, log};
  isl::schedule s = run_passes(schedule_passes(), sr.schedule, in, budget);
  std::string movement_note;
  if (state.time_tiled) {
    report.schedule_origin += ", time-tiled wavefront";
    movement_note = "time-tiled (parallelogram tiles): per-tile footprints not computed";
  } else if (state.tiled.empty()) {
    movement_note = "no band tiled rectangularly: no per-tile footprints";
  }
  report.schedule = isl_str(s);
  if (o.data_movement)
    report.data_movement = budget.run("data movement", [&] {
      return analyze_data_movement(ctx, scop, deps, state.tiled, o.tile.cache, o.data_movement_budget, movement_note);
    });
  std::string code = indent + "/* polyc: scop of line " + std::to_string(source_line) + ", " + sr.origin + " */\n";
  code += budget.run("code generation", [&] { return generate_c(scop, s, co); });
  return code + dead_iterator_uses(scop, indent);
}

namespace {

int statement_count(const LoopNode& node) {
  int n = node.kind == LoopNode::Kind::kStmt ? 1 : 0;
  for (const auto& child : node.children) n += statement_count(*child);
  for (const auto& child : node.else_children) n += statement_count(*child);
  return n;
}

int loop_depth(const LoopNode& node) {
  int deepest = 0;
  for (const auto& child : node.children) deepest = std::max(deepest, loop_depth(*child));
  for (const auto& child : node.else_children) deepest = std::max(deepest, loop_depth(*child));
  return deepest + (node.kind == LoopNode::Kind::kFor ? 1 : 0);
}

// Throws BudgetExceeded for a region too large to analyse at all.
void check_size(const LoopNode& tree, const BudgetOptions& budget) {
  const int statements = statement_count(tree);
  if (budget.max_statements > 0 && statements > budget.max_statements)
    throw BudgetExceeded("analysis", "its " + std::to_string(statements) + " statements exceed the budget of " +
                                         std::to_string(budget.max_statements) + " per region");
  const int depth = loop_depth(tree);
  if (budget.max_depth > 0 && depth > budget.max_depth)
    throw BudgetExceeded("analysis", "its " + std::to_string(depth) + " nested loops exceed the budget of " +
                                         std::to_string(budget.max_depth));
}

// The region as the input has it, between its pragma lines, under a comment saying why.
std::string kept_as_written(const std::string& source, const ScopRegion& region, const std::string& why) {
  return region.indent + "/* polyc: scop of line " + std::to_string(region.line) + " kept as written: " + why + " */\n" +
         source.substr(region.body_begin, region.body_end - region.body_begin);
}

// The region's code; over a budget, the region as written, with `report.fallback` and a
// warning saying which stage ran out.
std::string transform_region(const std::string& source, const ScopRegion& region, int index, const PolycOptions& o,
                             ScopReport& report, std::vector<std::string>& warnings) {
  IslContext ctx;
  try {
    check_size(*region.tree, o.budget);
    Scop scop = StageBudget(ctx, o.budget).run("lowering", [&] { return lower(ctx.ctx(), *region.tree, region.options); });
    return optimize_scop(ctx, scop, o, report, region.indent, region.line);
  } catch (const BudgetExceeded& e) {
    report.line = region.line;
    report.fallback = e.what();
    report.schedule_origin = "source order (kept as written: " + report.fallback + ")";
    warnings.push_back("polyc: region " + std::to_string(index) + " (line " + std::to_string(region.line) + "): " +
                       report.fallback + "; kept the source order");
    return kept_as_written(source, region, report.fallback);
  }
}

}  // namespace

PolycResult polyc(const std::string& source, const PolycOptions& options) {
  std::vector<ScopRegion> regions = parse_c_regions(source);
  PolycResult result;
  size_t copied = 0;
  int index = 0;
  for (const auto& r : regions) {
    result.output.append(source, copied, r.begin - copied);
    ScopReport report;
    result.output += transform_region(source, r, ++index, options, report, result.warnings);
    result.scops.push_back(std::move(report));
    copied = r.end;
  }
  result.output.append(source, copied);
  return result;
}

}  // namespace pz::poly
