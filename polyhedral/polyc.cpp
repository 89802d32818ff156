#include "polyhedral/polyc.h"

#include <isl/schedule.h>

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
#include "polyhedral/register_tiling.h"
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

// Runs one pass and keeps its result only if every dependence still holds.
isl::schedule checked(const char* name, const isl::schedule& before, const isl::union_map& validity,
                      std::vector<std::string>& log, const std::function<isl::schedule()>& pass) {
  isl::schedule after = pass();
  if (auto bad = find_violation(after, validity)) {
    log.push_back(std::string(name) + ": UNDONE, it would violate " + *bad);
    return before;
  }
  log.push_back(std::string(name) + ": legal (all dependences respected)");
  return after;
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
std::optional<std::string> register_blocked_code(IslContext& ctx, Scop& scop, const PolycOptions& o, const CodegenOptions& co,
                                                 int source_line, ScopReport& report, std::vector<std::string>& log) {
  const std::size_t statements = scop.statements.size();
  std::optional<RegisterBlocking> blocking = register_block(scop, o.register_block, log);
  if (!blocking) return std::nullopt;
  Dependences deps = compute_dependences(scop);
  ScopReport r = describe_scop(scop, deps, source_line);
  r.passes = log;
  isl::schedule s = checked("register blocking", scop.schedule, deps.validity(), r.passes, [&] { return blocking->schedule; });
  if (isl_schedule_plain_is_equal(s.get(), scop.schedule.get()) == isl_bool_true) {
    log = r.passes;
    scop.statements.erase(scop.statements.begin() + static_cast<long>(statements), scop.statements.end());
    return std::nullopt;
  }
  r.schedule_origin = "register-blocked reduction chain";
  r.schedule = isl_str(s);
  if (o.data_movement)
    r.data_movement = analyze_data_movement(ctx, scop, deps, {TiledBand{blocking->block_band, blocking->block_sizes}},
                                            o.tile.cache, o.data_movement_budget, "tiles: the register blocks");
  report = std::move(r);
  CodegenOptions blocked = co;
  blocked.register_block = &blocking->block;
  return co.indent + "/* polyc: " + blocking->block.describe() + " */\n" + generate_c(scop, s, blocked);
}

}  // namespace

std::string optimize_scop(IslContext& ctx, Scop& scop, const PolycOptions& o, ScopReport& report,
                          const std::string& indent, int source_line) {
  CodegenOptions co;
  co.indent = indent;
  std::vector<std::string> blocking_log;
  if (auto code = register_blocked_code(ctx, scop, o, co, source_line, report, blocking_log))
    return *code + dead_iterator_uses(scop, indent);
  Dependences deps = compute_dependences(scop);
  const isl::union_map validity = deps.validity();
  report = describe_scop(scop, deps, source_line);
  auto& log = report.passes;
  log = blocking_log;
  std::string code;
  {
    ScheduleOptions so = o.schedule;
    if (so.stream_bytes > 0 && o.tile.cache.l2 > 0) so.stream_bytes = o.tile.cache.l2;
    ScheduleResult sr = compute_schedule(ctx, scop, deps, so);
    report.schedule_origin = sr.origin;
    isl::schedule s = sr.schedule;
    // A stencil gets its own skewed, time-tiled wavefront schedule; its point loops keep
    // isl's order (the stride-1 member is innermost already) and are not re-tiled.
    bool time_tiled = false;
    std::vector<TiledBand> tiled;
    std::string movement_note;
    if (o.tile.mode != TileOptions::Mode::kOff && o.time_tile.enabled) {
      TimeTileOptions tt = o.time_tile;
      tt.cache = o.tile.cache;
      if (auto t = time_tile(ctx, scop, deps, o.schedule, tt, log)) {
        isl::schedule before = s;
        s = checked("time tiling", s, validity, log, [&] { return *t; });
        time_tiled = isl_schedule_plain_is_equal(s.get(), before.get()) != isl_bool_true;
        if (time_tiled) {
          report.schedule_origin += ", time-tiled wavefront";
          movement_note = "time-tiled (parallelogram tiles): per-tile footprints not computed";
        }
      }
    }
    if (!time_tiled) {
      s = checked("loop order", s, validity, log, [&] { return order_loops_for_locality(s, scop, log); });
      if (o.tile.mode != TileOptions::Mode::kOff) {
        isl::schedule before = s;
        s = checked("tiling", s, validity, log, [&] { return tile_bands(s, scop, o.tile, log, &tiled); });
        if (isl_schedule_plain_is_equal(s.get(), before.get()) == isl_bool_true) tiled.clear();
      }
      if (tiled.empty()) movement_note = "no band tiled rectangularly: no per-tile footprints";
      if (o.unroll_jam >= 2)
        s = checked("unroll-and-jam", s, validity, log, [&] { return register_tile(s, scop, o.unroll_jam, validity, log); });
    }
    if (o.parallel) s = checked("parallel", s, validity, log, [&] { return mark_parallel_loops(s, validity, log, o.min_parallel_work, &scop); });
    if (o.vectorize) s = checked("vectorize", s, validity, log, [&] { return mark_simd_loops(s, validity, log, &scop); });
    report.schedule = isl_str(s);
    if (o.data_movement)
      report.data_movement = analyze_data_movement(ctx, scop, deps, tiled, o.tile.cache, o.data_movement_budget, movement_note);
    code = indent + "/* polyc: scop of line " + std::to_string(source_line) + ", " + sr.origin + " */\n";
    code += generate_c(scop, s, co) + dead_iterator_uses(scop, indent);
  }
  return code;
}

namespace {

std::string transform_region(const ScopRegion& region, const PolycOptions& o, ScopReport& report) {
  IslContext ctx;
  Scop scop = lower(ctx.ctx(), *region.tree, region.options);
  return optimize_scop(ctx, scop, o, report, region.indent, region.line);
}

}  // namespace

PolycResult polyc(const std::string& source, const PolycOptions& options) {
  std::vector<ScopRegion> regions = parse_c_regions(source);
  PolycResult result;
  size_t copied = 0;
  for (const auto& r : regions) {
    result.output += source.substr(copied, r.begin - copied);
    ScopReport report;
    result.output += transform_region(r, options, report);
    result.scops.push_back(std::move(report));
    copied = r.end;
  }
  result.output += source.substr(copied);
  return result;
}

}  // namespace pz::poly
