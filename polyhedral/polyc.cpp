#include "polyhedral/polyc.h"

#include <isl/schedule.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <functional>
#include <map>
#include <optional>

#include "polyhedral/analysis/cost_model.h"
#include "polyhedral/analysis/dependences.h"
#include "polyhedral/analysis/footprint.h"
#include "polyhedral/analysis/in_bounds_sizes.h"
#include "polyhedral/analysis/inner_loops.h"
#include "polyhedral/analysis/legality.h"
#include "polyhedral/codegen/busy_machine.h"
#include "polyhedral/codegen/codegen.h"
#include "polyhedral/codegen/matmul_kernel.h"
#include "polyhedral/frontend/builder.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/frontend/frontend_error.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/runtime/tuner.h"
#include "polyhedral/stage_budget.h"
#include "polyhedral/transform/loop_order.h"
#include "polyhedral/transform/matmul_packing.h"
#include "polyhedral/transform/outer_loop.h"
#include "polyhedral/transform/parallel_marks.h"
#include "polyhedral/transform/pass.h"
#include "polyhedral/transform/recurrence_strips.h"
#include "polyhedral/transform/register_tiling.h"
#include "polyhedral/transform/time_tiling.h"

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

// The original iterators are dead after the region (as in Pluto and PPCG), and so are the
// scalars forwarded into elements; using them keeps -Wunused-variable quiet when they were
// declared only for these loops.
std::string dead_iterator_uses(const Scop& scop, const std::string& indent) {
  std::string uses;
  for (const auto& it : scop.outer_iterators) uses += "(void)" + it + "; ";
  for (const auto& scalar : scop.removed_scalars) uses += "(void)" + scalar.name + "; ";
  return uses.empty() ? "" : indent + uses.substr(0, uses.size() - 1) + "\n";
}

// The report's schedule origin of a scop compiled as a register-blocked chain.
constexpr const char* kRegisterBlockedOrigin = "register-blocked reduction chain";

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
  // Blocks of the default shape; where they break a dependence, blocks over the whole of v
  // (register_blocking.h, whole_columns).
  // Returns whether the blocks were undone as illegal.
  auto legal_blocking = [&](const RegisterBlockOptions& options) {
    budget.run("register blocking", [&] {
      blocking = register_block(scop, options, log);
      if (!blocking) return;
      deps = compute_dependences(scop);
      r = describe_scop(scop, *deps, source_line);
      r.passes = log;
      blocked_schedule = keep_if_legal("register blocking", scop.schedule, blocking->schedule, deps->validity(), r.passes);
    });
    if (!blocking || isl_schedule_plain_is_equal(blocked_schedule->get(), scop.schedule.get()) != isl_bool_true)
      return false;
    log = r.passes;
    blocking.reset();
    scop.statements.erase(scop.statements.begin() + static_cast<long>(statements), scop.statements.end());
    return true;
  };
  if (legal_blocking(o.register_block)) {
    RegisterBlockOptions whole = o.register_block;
    whole.whole_columns = true;
    legal_blocking(whole);
  }
  if (!blocking) return std::nullopt;
  const isl::schedule& s = *blocked_schedule;
  r.schedule_origin = kRegisterBlockedOrigin;
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

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The code of a scop with packed contractions (matmul_packing.h): its pieces in source
// order, each contraction as BLIS loops (matmul_kernel.h), the other pieces through
// optimize_scop as scops of their own. nullopt, with the reasons appended to `log`, when
// nothing is packed. Automatic tiling only: given tile sizes, or none, are the user's.
// With symbolic sizes the packed code runs where the contractions' multiply-adds reach the
// packing threshold, the plain pipeline elsewhere. Given `hoisted_guard`, where the
// condition does not mention `batch_iterator` (the peeled loop's, a parameter of `scop`),
// the code returned is the packed code alone and the condition is stored there, for the
// caller to test outside that loop.
std::optional<std::string> packed_contraction_code(IslContext& ctx, StageBudget& budget, Scop& scop, const PolycOptions& o,
                                                   const std::string& indent, int source_line, ScopReport& report,
                                                   std::vector<std::string>& log, std::string* hoisted_guard = nullptr,
                                                   const std::string& batch_iterator = "") {
  if (!o.matmul.enabled || o.tile.mode != TileOptions::Mode::kAuto || !may_hold_contractions(scop)) return std::nullopt;
  std::optional<Dependences> deps;
  std::vector<std::string> plan_log;
  const std::optional<MatmulPlan> plan = budget.run("matmul packing", [&] {
    deps = compute_dependences(scop);
    return plan_matmul_packing(scop, *deps, o.tile.cache, o.matmul, plan_log);
  });
  log.insert(log.end(), plan_log.begin(), plan_log.end());
  if (!plan) return std::nullopt;
  report = describe_scop(scop, *deps, source_line);
  report.passes = log;
  report.schedule_origin = "source order of pieces, contractions packed";
  PolycOptions rest = o;
  rest.matmul.enabled = false;
  // Symbolic sizes: whether packing pays is the program's decision, at run time.
  std::string multiply_adds;
  for (const MatmulPiece& piece : plan->pieces)
    if (piece.contraction && piece.contraction->multiply_adds < 0 && o.matmul.min_multiply_adds > 0)
      multiply_adds += (multiply_adds.empty() ? "" : " + ") + box_multiply_adds_c(*piece.contraction);
  const bool hoist = hoisted_guard && !multiply_adds.empty() && !mentions(multiply_adds, batch_iterator);
  const std::string inner = multiply_adds.empty() || hoist ? indent : indent + "  ";
  std::string packed;
  for (std::size_t i = 0; i < plan->pieces.size(); ++i) {
    const MatmulPiece& piece = plan->pieces[i];
    if (const auto& c = piece.contraction) {
      PackedKernelOptions ko;
      ko.indent = inner;
      ko.num_threads = o.num_threads;
      ko.parallel = o.parallel && (c->multiply_adds < 0 || c->multiply_adds >= o.min_parallel_work);
      ko.min_parallel_work = o.min_parallel_work;
      packed += budget.run("code generation", [&] { return packed_matmul_c(*c, plan->blockings[i], ko); });
      continue;
    }
    Scop part = restrict_scop(scop, piece.statements);
    ScopReport part_report;
    packed += optimize_scop(ctx, part, rest, part_report, inner, source_line);
    for (const auto& line : part_report.passes) report.passes.push_back(joined(piece.statements) + ": " + line);
  }
  const std::string header = indent + "/* polyc: scop of line " + std::to_string(source_line) + ", contractions packed */\n";
  if (multiply_adds.empty()) return header + packed;
  const std::string limit_text = std::to_string(o.matmul.min_multiply_adds) + "LL";
  if (hoist) {
    *hoisted_guard = multiply_adds + " >= " + limit_text;
    return header + packed;
  }
  ScopReport plain_report;
  const std::string plain = optimize_scop(ctx, scop, rest, plain_report, inner, source_line);
  const std::string& limit = limit_text;
  report.passes.push_back("cost model: symbolic sizes; at run time, contractions of fewer than " + limit +
                          " multiply-adds (their bounds' boxes) take the plain pipeline");
  for (const auto& line : plain_report.passes) report.passes.push_back("plain pipeline: " + line);
  return header + indent + "if (" + multiply_adds + " >= " + limit + ") {\n" + packed + indent + "} else {\n" + plain +
         indent + "}\n";
}

// The code of a scop whose contractions lie one loop deeper than matmul_packing.h matches
// (a batched contraction, outer_loop.h): its top-level parts in source order, a part under
// one loop whose body packs a contraction as that loop around the body's packed pieces, the
// other parts through optimize_scop. nullopt, with the reasons appended to `log`, when no
// part packs.
std::optional<std::string> batched_contraction_code(IslContext& ctx, StageBudget& budget, Scop& scop, const PolycOptions& o,
                                                    const std::string& indent, int source_line, ScopReport& report,
                                                    std::vector<std::string>& log) {
  if (!o.matmul.enabled || o.tile.mode != TileOptions::Mode::kAuto || !may_hold_contractions(scop, 4)) return std::nullopt;
  const std::vector<std::vector<std::string>> parts = top_level_parts(scop);
  std::vector<std::optional<std::string>> packed(parts.size());
  std::vector<std::string> passes, guards;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    Scop part = restrict_scop(scop, parts[i]);
    std::optional<PeeledLoop> loop;
    try {
      loop = budget.run("matmul packing", [&] { return peel_outer_loop(part); });
    } catch (const isl::exception&) {
    }
    if (!loop) continue;
    ScopReport body_report;
    std::vector<std::string> body_log;
    std::string guard;
    std::optional<std::string> body = packed_contraction_code(ctx, budget, loop->body, o, indent + "  ", source_line,
                                                              body_report, body_log, &guard, loop->iterator);
    if (body && !guard.empty()) guards.push_back(guard);
    const std::string batch = "batched over " + loop->iterator + ": ";
    for (const auto& line : body ? body_report.passes : body_log) passes.push_back(batch + line);
    if (!body) continue;
    const std::string& it = loop->iterator;
    packed[i] = indent + "for (int " + it + " = " + loop->lower + "; " + it + " <= " + loop->upper + "; " + it + "++) {\n" +
                *body + indent + "}\n";
  }
  if (std::none_of(packed.begin(), packed.end(), [](const auto& p) { return p.has_value(); })) {
    log.insert(log.end(), passes.begin(), passes.end());
    return std::nullopt;
  }
  const Dependences deps = budget.run("dependence analysis", [&] { return compute_dependences(scop); });
  report = describe_scop(scop, deps, source_line);
  report.passes = log;
  report.passes.insert(report.passes.end(), passes.begin(), passes.end());
  report.schedule_origin = "source order of top-level parts, batched contractions packed";
  std::string code = indent + "/* polyc: scop of line " + std::to_string(source_line) + ", batched contractions packed */\n";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (packed[i]) {
      code += *packed[i];
      continue;
    }
    Scop part = restrict_scop(scop, parts[i]);
    ScopReport part_report;
    code += optimize_scop(ctx, part, o, part_report, indent, source_line);
    for (const auto& line : part_report.passes) report.passes.push_back(joined(parts[i]) + ": " + line);
  }
  if (guards.empty()) return code;
  // Below the packing threshold the whole scop takes the plain pipeline, whose schedule may
  // fuse across the batch loop (doitgen: each row's sums zeroed, summed and copied back in
  // turn, where the plain pipeline of each batch sweeps all rows three times).
  std::string condition;
  for (const std::string& g : guards) condition += (condition.empty() ? "(" : " && (") + g + ")";
  PolycOptions plain_options = o;
  plain_options.matmul.enabled = false;
  ScopReport plain_report;
  const std::string plain = optimize_scop(ctx, scop, plain_options, plain_report, indent + "  ", source_line);
  report.passes.push_back("cost model: symbolic sizes; at run time, batched contractions under the packing threshold take "
                          "the plain pipeline of the whole scop");
  for (const auto& line : plain_report.passes) report.passes.push_back("plain pipeline: " + line);
  return indent + "if (" + condition + ") {\n" + code + indent + "} else {\n" + plain + indent + "}\n";
}

// The passes after isl's scheduler, in order. A stencil gets its own skewed, time-tiled
// wavefront schedule, whose point loops keep isl's order (the stride-1 member is innermost
// already) and are not re-tiled; any other scop gets a locality loop order, vector strips
// across independent recurrences, rectangular tiles and unroll-and-jam. Both then get
// parallel and simd marks.
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
      {"recurrence strips", "recurrence strips",
       [](const PolycOptions& o, const PassState& state) { return !state.time_tiled && o.vectorize; },
       [](const isl::schedule& s, PassInput& in) -> std::optional<isl::schedule> {
         return strip_recurrences(s, in.scop, in.deps, in.validity, in.log);
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
         return register_tile(s, in.scop, in.options.unroll_jam, in.validity, in.state.tiled.empty(), in.log);
       },
       nullptr},
      {"parallel marks", "parallel", [](const PolycOptions& o, const PassState&) { return o.parallel; },
       [](const isl::schedule& s, PassInput& in) -> std::optional<isl::schedule> {
         return mark_parallel_loops(s, in.validity, in.log, in.options.min_parallel_work,
                                    in.options.reassociate ? &in.scop : nullptr, in.options.num_threads);
       },
       nullptr},
      {"simd marks", "vectorize", [](const PolycOptions& o, const PassState&) { return o.vectorize; },
       [](const isl::schedule& s, PassInput& in) -> std::optional<isl::schedule> {
         return mark_simd_loops(s, in.validity, in.log, in.options.reassociate ? &in.scop : nullptr);
       },
       nullptr},
  };
  return passes;
}

// The cost model's prediction for sizes at which no tile can pay (inner_loops.h), from the
// schedule passes under `small` analysed without unroll-and-jam (its unrolled strips are no
// loops) and without forks: whether the region as written is kept there, under which extra
// C condition ("" none: loops whose only gain is a vector accumulator need long runs), and
// why. A gain is assumed where isl cannot tell within a small budget.
struct SourceVerdict {
  bool keep = false;
  std::string condition;
  std::string reason;
};

SourceVerdict source_verdict(IslContext& ctx, Scop& scop, const Dependences& deps, const isl::union_map& validity,
                             const isl::schedule& scheduled, PolycOptions small, StageBudget& budget) {
  small.unroll_jam = 0;
  small.parallel = false;
  PassState state;
  std::vector<std::string> ignored;
  PassInput in{ctx, scop, deps, validity, small, state, ignored};
  const isl::schedule analysed = run_passes(schedule_passes(), scheduled, in, budget);
  const std::optional<std::vector<InnerLoopGain>> gains =
      budget.run("cost model", [&]() -> std::optional<std::vector<InnerLoopGain>> {
        try {
          IslBudgetScope scope(ctx, 2'000'000);
          std::vector<InnerLoopGain> g = inner_loop_gains(scop, validity, analysed);
          if (scope.exceeded()) return std::nullopt;
          return g;
        } catch (const isl::exception&) {
          return std::nullopt;
        }
      });
  SourceVerdict v;
  if (!gains) return v;
  std::string names;
  int depth = 0;
  for (const auto& st : scop.statements) depth = std::max(depth, static_cast<int>(isl_set_dim(st.domain.get(), isl_dim_set)));
  for (const auto& st : scop.statements)
    if (static_cast<int>(isl_set_dim(st.domain.get(), isl_dim_set)) == depth) names += (names.empty() ? "" : ", ") + st.name;
  v.reason = "no tile can pay, and the schedule gives the deepest statements (" + names + ") no better innermost loop";
  const std::string max_simd_trips = std::to_string(kMarkedSimdMaxTrips);
  std::string accumulated, marked;
  // Marks count as no gain only where they are all there is: beside accumulators (bicg,
  // atax), the schedule's vectorised sums beat the source at every size measured.
  bool all_marks = !gains->empty();
  for (const InnerLoopGain& g : *gains)
    all_marks = all_marks && g.after == InnerLoopKind::kMarkedSimd && g.before == InnerLoopKind::kIndependentUnit;
  for (const InnerLoopGain& g : *gains) {
    const bool accumulates = g.after == InnerLoopKind::kAccumulated;
    if (!accumulates && !all_marks) return v;
    if (g.trips < 0 && g.trips_c.empty()) return v;
    // Accumulators gain on long runs, marks on short ones: no gain on the other side.
    const long long min_trips = g.accumulated_min_trips();
    if (g.trips >= 0 && (accumulates ? g.trips >= min_trips : g.trips < kMarkedSimdMaxTrips)) return v;
    const std::string test =
        "(" + g.trips_c + ")" + (accumulates ? " < " + std::to_string(min_trips) : " >= " + max_simd_trips);
    if (g.trips < 0 && v.condition.find(test) == std::string::npos)
      v.condition += (v.condition.empty() ? "" : " && ") + test;
    if (accumulates)
      accumulated += (accumulated.empty() ? "" : ", ") + g.describe() + " under " + std::to_string(min_trips) +
                     (g.equal_runs ? " iterations a run" : " iterations in the longest run");
    else
      marked += (marked.empty() ? "" : ", ") + g.describe();
  }
  v.reason += " than the source's";
  if (!accumulated.empty()) v.reason += ", but vector accumulators over short runs (" + accumulated + ")";
  if (!marked.empty())
    v.reason += std::string(accumulated.empty() ? ", but" : " and") + " omp simd marks on runs of " + max_simd_trips +
                " iterations or more (" + marked + ")";
  v.keep = true;
  return v;
}

}  // namespace

namespace {

// optimize_scop; with `may_keep_source` (a whole region of a C file, whose text the caller
// has), the cost model's version guard too: `report.source_guard` set, and the code returned
// is the one for sizes outside it ("" when the region runs as written at every size).
std::string optimize_region_scop(IslContext& ctx, Scop& scop, const PolycOptions& o, ScopReport& report,
                                 const std::string& indent, int source_line, bool may_keep_source) {
  StageBudget budget(ctx, o.budget);
  CodegenOptions co;
  co.indent = indent;
  std::vector<std::string> blocking_log;
  if (auto code = packed_contraction_code(ctx, budget, scop, o, indent, source_line, report, blocking_log))
    return *code + dead_iterator_uses(scop, indent);
  if (auto code = batched_contraction_code(ctx, budget, scop, o, indent, source_line, report, blocking_log))
    return *code + dead_iterator_uses(scop, indent);
  if (auto code = register_blocked_code(ctx, budget, scop, o, co, source_line, report, blocking_log))
    return *code + dead_iterator_uses(scop, indent);
  Dependences deps = budget.run("dependence analysis", [&] { return compute_dependences(scop); });
  const isl::union_map validity = budget.run("dependence analysis", [&] {
    report = describe_scop(scop, deps, source_line);
    return deps.validity();
  });
  auto& log = report.passes;
  log = blocking_log;
  // The cost model may take transformations back for these sizes (cost_model.h).
  PolycOptions effective = o;
  const CostEstimate estimate = o.cost_model ? estimate_cost(scop) : CostEstimate{};
  if (o.cost_model) {
    const CostDecision decision = decide_transformations(estimate, o.tile.cache, o.min_parallel_work);
    if (!decision.tile && o.tile.mode == TileOptions::Mode::kAuto) effective.tile.mode = TileOptions::Mode::kOff;
    if (!decision.time_tile && o.tile.mode == TileOptions::Mode::kAuto) effective.time_tile.enabled = false;
    if (!decision.parallel) effective.parallel = false;
    log.insert(log.end(), decision.log.begin(), decision.log.end());
  }
  ScheduleOptions so = o.schedule;
  if (so.stream_bytes > 0 && o.tile.cache.l2 > 0) so.stream_bytes = o.tile.cache.l2;
  if (so.column_sweep_bytes > 0 && o.tile.cache.l1 > 0) so.column_sweep_bytes = o.tile.cache.l1 / 2;
  ScheduleResult sr = budget.run("scheduling", [&] { return compute_schedule(ctx, scop, deps, so); });
  report.schedule_origin = sr.origin;
  PassState state;
  PassInput in{ctx, scop, deps, validity, effective, state, log};
  isl::schedule s = run_passes(schedule_passes(), sr.schedule, in, budget);
  may_keep_source = may_keep_source && o.cost_model && o.keep_source_without_gain && o.tile.mode == TileOptions::Mode::kAuto;
  // Concrete sizes within L2/2 and no fork: the region as written where nothing gains.
  if (may_keep_source && estimate.concrete && effective.tile.mode == TileOptions::Mode::kOff && !effective.parallel) {
    const SourceVerdict v = source_verdict(ctx, scop, deps, validity, sr.schedule, effective, budget);
    if (v.keep && v.condition.empty()) {
      report.source_guard = "1";
      report.source_reason = "cost model: " + v.reason;
      log.push_back("cost model: the region as written: " + v.reason);
      report.schedule = isl_str(scop.schedule);
      report.schedule_origin = "source order (kept as written: the cost model predicts no gain)";
      return "";
    }
  }
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
  // Symbolic sizes: the cost model's decision is the program's, at run time. Arrays within
  // L2/2 (within L2 for a time-tiled stencil) run the same schedule without tiles, time
  // tiles or forks (what the model decides for such concrete sizes); larger ones the code
  // above.
  if (o.cost_model && !estimate.concrete && o.tile.mode == TileOptions::Mode::kAuto &&
      (o.parallel || o.time_tile.enabled)) {
    const std::string footprint = budget.run("cost model", [&] { return footprint_expression(scop); });
    if (!footprint.empty()) {
      PolycOptions small = effective;
      small.tile.mode = TileOptions::Mode::kOff;
      small.time_tile.enabled = false;
      small.parallel = false;
      PassState small_state;
      std::vector<std::string> small_log;
      PassInput small_in{ctx, scop, deps, validity, small, small_state, small_log};
      const isl::schedule small_schedule = run_passes(schedule_passes(), sr.schedule, small_in, budget);
      CodegenOptions inner = co;
      inner.indent = indent + "  ";
      const long limit_bytes = state.time_tiled ? o.tile.cache.l2 : o.tile.cache.l2 / 2;
      const std::string limit = std::to_string(limit_bytes) + "LL";
      const std::string level = state.time_tiled ? "L2" : "L2/2";
      const SourceVerdict v = may_keep_source ? source_verdict(ctx, scop, deps, validity, sr.schedule, small, budget)
                                              : SourceVerdict{};
      if (v.keep) {
        report.source_guard = footprint + " <= " + limit + (v.condition.empty() ? "" : " && " + v.condition);
        report.source_reason = "cost model: within " + level + ", " + v.reason;
        log.push_back("cost model: symbolic sizes; at run time, arrays of at most " + limit + " bytes (" + level +
                      ")" + (v.condition.empty() ? "" : " with " + v.condition) + " take the region as written: " + v.reason);
        // Without an extra condition the guard takes every size the schedule without tiles
        // would have served; with one, that schedule still serves the sizes it leaves.
        if (v.condition.empty()) {
          code += budget.run("code generation", [&] { return generate_c(scop, s, co); });
          return code + dead_iterator_uses(scop, indent);
        }
      }
      const std::string small_code = budget.run("code generation", [&] { return generate_c(scop, small_schedule, inner); });
      const std::string large_code = budget.run("code generation", [&] { return generate_c(scop, s, inner); });
      if (small_code != large_code) {
        log.push_back("cost model: symbolic sizes; at run time, arrays of at most " + limit + " bytes (" + level +
                      ") take the schedule without tiles and forks");
        return code + indent + "if (" + footprint + " <= " + limit + ") {\n" + small_code + indent + "} else {\n" +
               large_code + indent + "}\n" + dead_iterator_uses(scop, indent);
      }
    }
  }
  code += budget.run("code generation", [&] { return generate_c(scop, s, co); });
  return code + dead_iterator_uses(scop, indent);
}

}  // namespace

std::string optimize_scop(IslContext& ctx, Scop& scop, const PolycOptions& o, ScopReport& report,
                          const std::string& indent, int source_line) {
  return optimize_region_scop(ctx, scop, o, report, indent, source_line, false);
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

// The lines between the region's pragma lines in `text`, the text it was found in.
std::string region_body(const std::string& text, const ScopRegion& region) {
  return text.substr(region.body_begin, region.body_end - region.body_begin);
}

// The region as the input has it, under a comment saying why.
std::string kept_as_written(const std::string& source, const ScopRegion& region, const std::string& why) {
  return region.indent + "/* polyc: scop of line " + std::to_string(region.line) + " kept as written: " + why + " */\n" +
         region_body(source, region);
}

// `code` in a block that declares the scop's local arrays (scalar_expansion.h), run under
// their guard, with the region as written where the guard fails.
// The region as written is taken from `parsed_text`, the text `region` was parsed from (the
// preprocessed one under --cpp), as the code generated from it is.
std::string with_local_arrays(const Scop& scop, const std::string& code, const std::string& parsed_text,
                              const ScopRegion& region) {
  std::string declarations;
  for (const Array& a : scop.arrays) {
    if (!a.local) continue;
    declarations += region.indent + "  " + a.element_type + " " + a.name;
    for (const std::string& extent : a.declared_extents) declarations += "[" + extent + "]";
    declarations += ";\n";
  }
  if (declarations.empty()) return code;
  if (scop.local_guard.empty()) return region.indent + "{\n" + declarations + code + region.indent + "}\n";
  return region.indent + "if (" + scop.local_guard + ") {\n" + declarations + code + region.indent + "} else {\n" +
         region_body(parsed_text, region) + region.indent + "}\n";
}

// The region's code for `scop`, lowered from `region`: the optimised code, with the scop's
// local arrays declared, or the region as written where the cost model predicts no gain.
std::string scop_code(IslContext& ctx, Scop& scop, const std::string& source, const std::string& parsed_text,
                      const ScopRegion& written, const ScopRegion& region, const PolycOptions& o, ScopReport& report) {
  std::string code = optimize_region_scop(ctx, scop, o, report, region.indent, region.line, true);
  report.passes.insert(report.passes.begin(), scop.notes.begin(), scop.notes.end());
  if (report.source_guard == "1") return kept_as_written(source, written, report.source_reason);
  code = with_local_arrays(scop, code, parsed_text, region);
  if (report.source_guard.empty()) return code;
  return written.indent + "/* polyc: scop of line " + std::to_string(region.line) + ": as written where " +
         report.source_guard + " (" + report.source_reason + ") */\n" + written.indent + "if (" + report.source_guard +
         ") {\n" + region_body(source, written) + written.indent + "} else {\n" + code + written.indent + "}\n";
}

struct LikelySize {
  long long value;
  std::string type;  // as the file declares the parameter, without `const`
};

// The sizes the region most likely runs at: for each parameter that is a variable the file
// declares (not a macro, whose name cannot be declared again) and has no concrete value,
// the largest its arrays' declared extents allow (in_bounds_sizes.h).
std::map<std::string, LikelySize> likely_sizes(const Scop& scop, const LowerOptions& region) {
  std::vector<std::string> unbounded;
  std::map<std::string, LikelySize> out;
  for (const auto& [name, value] : in_bounds_sizes(scop, {}, unbounded)) {
    const auto declared = region.element_types.find(name);
    if (scop.param_values.count(name) || value < 1 || value > INT_MAX || declared == region.element_types.end() ||
        declared->second.empty())
      continue;
    std::string type = declared->second;
    if (type.rfind("const ", 0) == 0) type.erase(0, 6);
    out[name] = {value, type};
  }
  return out;
}

// Elements of the first statement's array in one 256-bit vector, the width GCC vectorises
// with on x86 by default (-mprefer-vector-width=256): 8 for 4-byte types, else 4 (8-byte
// and unknown ones, the narrower block when in doubt).
int vector_lanes(const Scop& scop) {
  const Statement* first = scop.statements.empty() ? nullptr : &scop.statements.front();
  const Array* a = first && first->lhs ? scop.array(first->lhs->text) : nullptr;
  const std::string type = a ? a->element_type : "";
  return type == "float" || type == "int" || type == "unsigned" || type == "unsigned int" ? 8 : 4;
}

// The code of the region at `sizes` (the declared ones) as a register-blocked reduction
// chain (register_blocking.h), where the scop is one at those sizes and its arrays fit in
// L2/2, so that tiles cannot pay (cost_model.h) and what counts is keeping the sums in
// registers; nullopt elsewhere. With constant extents the block has its exact shape and
// the dependence check sees the sizes (a block of 64 columns is legal only where the
// columns number at most 64, for instance).
std::optional<std::string> blocked_at_sizes(IslContext& ctx, const std::map<std::string, LikelySize>& sizes,
                                            const std::string& source, const std::string& parsed_text,
                                            const ScopRegion& written, const ScopRegion& region, const PolycOptions& o,
                                            ScopReport& report) {
  if (o.register_block.enabled || !o.cost_model || o.tile.mode != TileOptions::Mode::kAuto) return std::nullopt;
  LowerOptions at_sizes = region.options;
  for (const auto& [name, size] : sizes) at_sizes.param_values[name] = size.value;
  Scop scop = StageBudget(ctx, o.budget).run("lowering", [&] { return lower(ctx.ctx(), *region.tree, at_sizes); });
  if (!is_reduction_chain(scop, o.register_block)) return std::nullopt;
  const CostEstimate estimate = estimate_cost(scop);
  if (!estimate.concrete || decide_transformations(estimate, o.tile.cache, o.min_parallel_work).tile) {
    report.passes.push_back("sizes: at the declared sizes, not register-blocked (tiles pay there)");
    return std::nullopt;
  }
  PolycOptions blocked = o;
  blocked.register_block.enabled = true;
  blocked.register_block.vector_lanes = vector_lanes(scop);
  blocked.register_block.constant_extents_only = true;
  ScopReport r;
  std::string code = scop_code(ctx, scop, source, parsed_text, written, region, blocked, r);
  for (const auto& line : r.passes)
    if (line.rfind("register blocking: ", 0) == 0) report.passes.push_back("sizes: at the declared sizes, " + line);
  if (r.schedule_origin != kRegisterBlockedOrigin) {
    report.passes.push_back("sizes: at the declared sizes, not register-blocked (schedule: " + r.schedule_origin + ")");
    return std::nullopt;
  }
  return code;
}

// `code` twice: under `if (n == 120 && ...)`, where a constant of each parameter's declared
// type shadows it, as `at_sizes`, and as `code` for every other size. The compiler then
// sees constant trip counts and folds the run-time guards of the first copy; both copies
// compute what `code` does at every size.
std::string with_size_version(const std::string& code, const std::string& at_sizes,
                              const std::map<std::string, LikelySize>& sizes, const ScopRegion& written,
                              ScopReport& report) {
  std::string condition, constants;
  for (const auto& [name, size] : sizes) {
    condition += (condition.empty() ? "" : " && ") + name + " == " + std::to_string(size.value);
    // Used or not by the copy (a register-blocked one has constant loops): no warning.
    constants += written.indent + "  const " + size.type + " " + name + " = " + std::to_string(size.value) + ";\n" +
                 written.indent + "  (void)" + name + ";\n";
  }
  report.passes.push_back("sizes: the code again for " + condition +
                          " (the largest sizes the arrays' declared extents allow), with constant sizes");
  return written.indent + "/* polyc: scop of line " + std::to_string(written.line) +
         ", once more at the sizes its arrays are declared with */\n" + written.indent + "if (" + condition + ") {\n" +
         constants + at_sizes + written.indent + "} else {\n" + code + written.indent + "}\n";
}

// The region's code; over a budget, the region as written, with `report.fallback` and a
// warning saying which stage ran out.
// `written` is where the region is in `source`, `region` where it is in `parsed_text` (the
// same unless the region was parsed from the preprocessed text).
std::string transform_region(const std::string& source, const std::string& parsed_text, const ScopRegion& written,
                             const ScopRegion& region, int index, const PolycOptions& o, ScopReport& report,
                             std::vector<std::string>& warnings) {
  IslContext ctx;
  try {
    check_size(*region.tree, o.budget);
    Scop scop = StageBudget(ctx, o.budget).run("lowering", [&] { return lower(ctx.ctx(), *region.tree, region.options); });
    const std::map<std::string, LikelySize> sizes =
        o.size_versions ? likely_sizes(scop, region.options) : std::map<std::string, LikelySize>{};
    const std::string code = scop_code(ctx, scop, source, parsed_text, written, region, o, report);
    if (sizes.empty()) return code;
    // A region kept as written (at some sizes) gets no copy: gcc's code for the source
    // with constant bounds can be the slower one (polyhedral/README.md).
    if (!report.source_guard.empty()) {
      report.passes.push_back("sizes: no copy at the declared sizes (the region runs as written where " +
                              (report.source_guard == "1" ? std::string("every size") : report.source_guard) + ")");
      return code;
    }
    const std::optional<std::string> blocked = blocked_at_sizes(ctx, sizes, source, parsed_text, written, region, o, report);
    return with_size_version(code, blocked ? *blocked : code, sizes, written, report);
  } catch (const BudgetExceeded& e) {
    report.line = region.line;
    report.fallback = e.what();
    report.schedule_origin = "source order (kept as written: " + report.fallback + ")";
    warnings.push_back("polyc: region " + std::to_string(index) + " (line " + std::to_string(region.line) + "): " +
                       report.fallback + "; kept the source order");
    return kept_as_written(source, written, report.fallback);
  }
}

// The option sets --tune times besides the model's choice and the source (tuner.h): each
// takes back one decision, or sizes tiles for caches twice or half as large.
std::vector<std::pair<std::string, PolycOptions>> tune_variants(const PolycOptions& o) {
  std::vector<std::pair<std::string, PolycOptions>> v;
  auto add = [&](const std::string& name, const std::function<void(PolycOptions&)>& change) {
    PolycOptions variant = o;
    change(variant);
    v.emplace_back(name, variant);
  };
  add("no-tiles", [](PolycOptions& x) {
    x.tile.mode = TileOptions::Mode::kOff;
    x.time_tile.enabled = false;
  });
  if (o.tile.mode == TileOptions::Mode::kAuto) {
    for (const double scale : {2.0, 0.5})
      add(scale > 1 ? "tiles-x2" : "tiles-half", [scale](PolycOptions& x) {
        for (CacheInfo* c : {&x.tile.cache, &x.time_tile.cache}) {
          c->l1 = static_cast<long>(c->l1 * scale);
          c->l2 = static_cast<long>(c->l2 * scale);
        }
      });
  }
  if (o.matmul.enabled) add("no-packing", [](PolycOptions& x) { x.matmul.enabled = false; });
  if (o.parallel) add("sequential", [](PolycOptions& x) { x.parallel = false; });
  if (o.cost_model) add("no-cost-model", [](PolycOptions& x) { x.cost_model = false; });
  if (o.unroll_jam >= 2) add("no-unroll-jam", [](PolycOptions& x) { x.unroll_jam = 0; });
  add("unroll-jam-8", [](PolycOptions& x) { x.unroll_jam = 8; });
  if (o.vectorize) add("no-simd-marks", [](PolycOptions& x) { x.vectorize = false; });
  add("fusion-max", [](PolycOptions& x) { x.schedule.fusion = ScheduleOptions::Fusion::kMax; });
  if (o.schedule.use_isl) add("source-order", [](PolycOptions& x) { x.schedule.use_isl = false; });
  return v;
}

// The first array or removed scalar of `scop` whose element type is spelled through
// __typeof__ (scop.h), "" when all are named: a harness of its own cannot declare those.
std::string first_unnamed_type(const Scop& scop) {
  for (const auto* arrays : {&scop.arrays, &scop.removed_scalars})
    for (const Array& a : *arrays)
      if (!is_named_type(a.element_type)) return a.name;
  return "";
}

// The region's code under --tune: every candidate's code, timed at concrete sizes, the
// fastest kept (tuner.h). Without sizes for every parameter, the model's choice with a
// warning. `expanded` is the text `region` was parsed from.
std::string tuned_region(const std::string& source, const std::string& expanded, const ScopRegion& written,
                         const ScopRegion& region, int index, const PolycOptions& o, ScopReport& report,
                         std::vector<std::string>& warnings) {
  PolycOptions model = o;
  model.tune.enabled = false;
  const std::string where = "polyc: region " + std::to_string(index) + " (line " + std::to_string(region.line) + "): ";
  std::map<std::string, long long> sizes;
  std::vector<std::string> unresolved;
  std::optional<Scop> scop;
  IslContext ctx;
  try {
    check_size(*region.tree, o.budget);
    scop = StageBudget(ctx, o.budget).run("lowering", [&] { return lower(ctx.ctx(), *region.tree, region.options); });
    sizes = in_bounds_sizes(*scop, o.tune.sizes, unresolved);
  } catch (const BudgetExceeded&) {
    return transform_region(source, expanded, written, region, index, model, report, warnings);
  }
  if (!unresolved.empty()) {
    std::string names;
    for (const auto& n : unresolved) names += (names.empty() ? "" : ", ") + n;
    warnings.push_back(where + "--tune needs a value for " + names +
                       " (no declared array extent bounds it): give --tune-sizes " + unresolved[0] +
                       "=N,...; kept the cost model's choice");
    return transform_region(source, expanded, written, region, index, model, report, warnings);
  }
  if (const std::string unnamed = first_unnamed_type(*scop); !unnamed.empty()) {
    warnings.push_back(where + "--tune declares the data itself, and the type of " + unnamed +
                       " has no name polyc knows (a typedef or macro; --cpp resolves macros); kept the cost model's choice");
    return transform_region(source, expanded, written, region, index, model, report, warnings);
  }
  std::vector<TuneCandidate> candidates;
  std::vector<ScopReport> reports;
  std::vector<std::string> ignored;
  auto add = [&](const std::string& name, const PolycOptions& options) {
    ScopReport r;
    std::string code = transform_region(source, expanded, written, region, index, options, r, ignored);
    if (!r.fallback.empty()) return;  // over a budget: the same text as the source
    for (const auto& c : candidates)
      if (c.code == code) return;
    candidates.push_back({name, std::move(code)});
    reports.push_back(std::move(r));
  };
  add("model", model);
  ScopReport written_report;
  written_report.line = region.line;
  written_report.schedule_origin = "source order (kept as written: --tune found it fastest)";
  candidates.push_back({"source", expanded.substr(region.body_begin, region.body_end - region.body_begin)});
  reports.push_back(written_report);
  for (const auto& [name, options] : tune_variants(model)) add(name, options);
  TuneOptions tune = o.tune;
  tune.exact_results = !o.reassociate;  // reordered sums may differ on ill-conditioned data
  const TuneResult tuned = tune_region(*scop, sizes, candidates, tune);
  const size_t chosen = static_cast<size_t>(tuned.chosen);
  report = reports[chosen];
  report.passes.insert(report.passes.end(), tuned.log.begin(), tuned.log.end());
  if (candidates[chosen].name == "source") return kept_as_written(source, written, "--tune found it fastest");
  return candidates[chosen].code;
}

// A frontend error in the preprocessed text, its line moved to the file as written when it
// lies in a region (the preprocessor keeps a region's lines and expands only its macros).
[[noreturn]] void rethrow_expanded(const FrontendError& e, const std::string& expanded_text,
                                   const std::vector<ScopRegion>& written, const std::vector<ScopRegion>& expanded) {
  SourceLoc loc = e.loc();
  for (size_t k = 0; k < expanded.size() && k < written.size(); ++k) {
    const auto lines = std::count(expanded_text.begin() + static_cast<long>(expanded[k].begin),
                                  expanded_text.begin() + static_cast<long>(expanded[k].end), '\n');
    if (loc.line >= expanded[k].line && loc.line - expanded[k].line <= lines) {
      loc.line = written[k].line + (loc.line - expanded[k].line);
      throw FrontendError(loc, e.message() + " (after the preprocessor)");
    }
  }
  throw FrontendError(loc, e.message() + " (line of the preprocessed text)");
}

// The code of every region, transformed as `options` says. `written` are the regions' places
// in `source`, `parsed` the regions themselves (the same objects for a file read as written).
std::vector<std::string> region_codes(const std::string& source, const std::string& expanded,
                                      const std::vector<ScopRegion>& written, std::vector<ScopRegion>& parsed,
                                      const PolycOptions& options, PolycResult& result) {
  PolycOptions o = options;
  if (o.parallel && o.adaptive_team) o.num_threads = team_size_clause(o.num_threads);
  std::vector<std::string> codes;
  for (size_t k = 0; k < parsed.size(); ++k) {
    parsed[k].line = written[k].line;
    parsed[k].indent = written[k].indent;
    ScopReport report;
    const int index = static_cast<int>(k) + 1;
    codes.push_back(o.tune.enabled ? tuned_region(source, expanded, written[k], parsed[k], index, o, report, result.warnings)
                                   : transform_region(source, expanded, written[k], parsed[k], index, o, report, result.warnings));
    result.scops.push_back(std::move(report));
  }
  return codes;
}

// `source` with each region replaced by its code. The team size helper goes before the
// declaration holding the first region of a function whose regions call it.
std::string assemble(const std::string& source, const std::vector<ScopRegion>& written, const std::vector<std::string>& codes) {
  std::string out;
  size_t copied = 0;
  for (size_t k = 0; k < written.size(); ++k) {
    const size_t declaration = written[k].declaration_begin;
    bool helper = false;
    for (size_t j = k; j < written.size() && written[j].declaration_begin == declaration; ++j) helper |= uses_team_size(codes[j]);
    if (helper && declaration >= copied) {
      out.append(source, copied, declaration - copied);
      out += std::string(kTeamSizeHelper).substr(1);
      copied = declaration;
    }
    out.append(source, copied, written[k].begin - copied);
    out += codes[k];
    copied = written[k].end;
  }
  out.append(source, copied);
  return out;
}

// The start-up hooks (busy_machine.h) of a program whose output has a parallel loop, sized
// for the function whose regions' local arrays take the most stack.
void add_start_up_hooks(const std::string& source, const std::vector<ScopRegion>& written, const std::vector<std::string>& codes,
                        const PolycOptions& options, PolycResult& result) {
  if (!options.parallel || !options.passive_wait || result.output.find("#pragma omp parallel") == std::string::npos) return;
  if (!defines_main(source)) return;
  std::map<size_t, long long> per_function;
  for (size_t k = 0; k < written.size() && k < codes.size(); ++k)
    per_function[written[k].declaration_begin] += local_array_bytes(codes[k]);
  long long stack_bytes = 0;
  for (const auto& [declaration, bytes] : per_function) stack_bytes = std::max(stack_bytes, bytes);
  if (!result.output.empty() && result.output.back() != '\n') result.output += '\n';
  result.output += start_up_hooks(stack_bytes);
}

}  // namespace

PolycResult polyc(const std::string& source, const PolycOptions& options) {
  std::vector<ScopRegion> regions = parse_c_regions(source);
  PolycResult result;
  const std::vector<ScopRegion>& written = regions;
  const std::vector<std::string> codes = region_codes(source, source, written, regions, options, result);
  result.output = assemble(source, regions, codes);
  add_start_up_hooks(source, regions, codes, options, result);
  return result;
}

PolycResult polyc(const std::string& source, const std::string& expanded, const PolycOptions& options) {
  const std::vector<ScopRegion> written = find_c_regions(source);
  std::vector<ScopRegion> regions;
  try {
    regions = parse_c_regions(expanded);
  } catch (const FrontendError& e) {
    std::vector<ScopRegion> places;
    try {
      places = find_c_regions(expanded);
    } catch (const FrontendError&) {
    }
    rethrow_expanded(e, expanded, written, places);
  }
  if (regions.size() != written.size())
    throw FrontendError({}, "the file has " + std::to_string(written.size()) + " '#pragma scop' regions but its preprocessed text " +
                                std::to_string(regions.size()) + " (a region inside #if, or made by a macro?)");
  PolycResult result;
  const std::vector<std::string> codes = region_codes(source, expanded, written, regions, options, result);
  result.output = assemble(source, written, codes);
  add_start_up_hooks(source, written, codes, options, result);
  return result;
}

}  // namespace pz::poly
