// polyzero polyc IN.c -o OUT.c [--tile auto|auto1|off|N,N,...[/N,N,...]] [--parallel] [--vectorize] [--unroll-jam N]
//                              [--fusion min|max] [--register-block] [--no-matmul-packing] [--no-isl] [--report] [--json]
//                              [--budget-ops N] [--budget-seconds S] [--budget-mib N] [--budget-statements N]
//                              [--budget-depth N] [--tune [--tune-sizes N=V,...] [--tune-seconds S] [--tune-threads T] [--tune-cold]
//                              [--tune-constant-sizes]]
// polyzero polyc --report-net NET [--train-batch B] [--json]
//                                              the poly backend's plan for a network, and
//                                              the poly learner's training step
// polyzero polyc --warm NET                    compile a network's forward pass into the kernel cache
// Source-to-source polyhedral optimisation of the `#pragma scop` regions of a C file
// (polyhedral/polyc.h). The report goes to stdout (or OUT.c does when -o is '-'); a region
// kept as written because a stage ran over its budget is named on stderr.
// NET is a checkpoint (.pt), a run directory (its models/latest.pt) or a training config
// (JSON; its "game", else the game its file is named after, as configs/connect4.json).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <chrono>
#include <map>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "apps/commands.h"
#include "apps/train_config_args.h"
#include "games/registry.h"
#include "nn/model_info.h"
#include "nn/poly/backend.h"
#include "nn/poly/network.h"
#include "nn/poly/training_report.h"
#include "nn/run_dir.h"
#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/frontend/preprocess.h"
#include "polyhedral/polyc.h"
#include "polyhedral/runtime/jit.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_text.h"
#include "util/spec.h"

namespace pz::apps {

namespace {

std::vector<long> parse_tile_sizes(const std::string& text) {
  std::vector<long> sizes;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, ',')) {
    auto v = util::parse_int(util::trim(part));
    if (!v || *v < 1 || *v > 1'000'000)
      throw util::UsageError("--tile: '" + part +
                             "' is not a tile size (expected auto, auto1, off, N,N,... or N,N,.../N,N,...)");
    sizes.push_back(static_cast<long>(*v));
  }
  if (sizes.empty()) throw util::UsageError("--tile: expected auto, auto1, off, N,N,... or N,N,.../N,N,...");
  return sizes;
}

std::map<std::string, long long> parse_tune_sizes(const std::vector<std::string>& items) {
  std::map<std::string, long long> sizes;
  for (const auto& item : items) {
    const size_t eq = item.find('=');
    const std::string name = util::trim(item.substr(0, eq));
    auto value = eq == std::string::npos ? std::nullopt : util::parse_int(util::trim(item.substr(eq + 1)));
    const bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                            std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!identifier || !value || *value < 0 || *value > INT32_MAX)
      throw util::UsageError("--tune-sizes: '" + item + "' is not NAME=VALUE with a size from 0 to 2147483647 (e.g. n=2000,tsteps=500)");
    sizes[name] = *value;
  }
  return sizes;
}

poly::TileOptions parse_tile(const std::string& text) {
  poly::TileOptions t;
  if (text == "auto" || text == "auto1") {
    t.mode = poly::TileOptions::Mode::kAuto;
    t.l1_tiles = text == "auto";
  } else if (text == "off") {
    t.mode = poly::TileOptions::Mode::kOff;
  } else {
    t.mode = poly::TileOptions::Mode::kFixed;
    const size_t slash = text.find('/');
    t.sizes = parse_tile_sizes(text.substr(0, slash));
    if (slash != std::string::npos) t.inner_sizes = parse_tile_sizes(text.substr(slash + 1));
  }
  t.cache = poly::CacheInfo::detect();
  return t;
}

struct NetSource {
  std::shared_ptr<const games::Game> game;
  nn::NetConfig network;
};

NetSource read_net_source(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string file = path;
  if (fs::is_directory(path, ec)) file = nn::RunDir(path).latest_model_path();
  if (file.ends_with(".pt") || file.ends_with(".safetensors")) {
    const nn::ModelInfo info = nn::read_model_info(file);
    return {games::make_game(info.game), info.network};
  }
  const nlohmann::json config = util::parse_json(
      util::read_text_file(file), "'" + file + "' (neither a checkpoint (.pt, .safetensors), a run directory nor a JSON training config)");
  std::string game = config.is_object() && config.contains("game") && config["game"].is_string()
                         ? config["game"].get<std::string>()
                         : fs::path(file).stem().string();
  NetSource out;
  out.game = games::make_game(game);
  out.network = nn::parse_train_config(assemble_train_config(*out.game, file, {})).network;
  return out;
}

// The data one position moves through the whole network under polyc's model: the sum over
// layers of each layer's micro-batch figures, divided by the micro-batch. A figure some
// layer lacks (a level not modelled there) is summed over the layers that have it, and
// `missing` counts the others.
struct NetworkTraffic {
  struct Figure {
    double bytes = 0;
    int missing = 0;
  };
  std::map<std::string, Figure> figures;  // "memory in", "memory out", "L2 loads", "L1 loads"
};

NetworkTraffic network_traffic(const nn::PolyNetwork& plan) {
  NetworkTraffic t;
  const double per_position = 1.0 / plan.micro_batch();
  auto add = [&](const std::string& name, std::optional<long long> bytes) {
    auto& f = t.figures[name];
    if (bytes) f.bytes += static_cast<double>(*bytes) * per_position;
    else ++f.missing;
  };
  for (const auto& l : plan.layers()) {
    const poly::DataMovementReport& d = l.scop.data_movement;
    if (!d.computed) continue;
    add("memory in", poly::sum_arrays(d.kernel, &poly::ArrayMovement::moved_in).bytes);
    add("memory out", poly::sum_arrays(d.kernel, &poly::ArrayMovement::moved_out).bytes);
    for (const auto& tiling : d.tilings)
      for (const auto& level : tiling.levels)
        if (level.level != "L3") add(level.level + " loads", level.loaded_bytes);
  }
  return t;
}

void report_network(const NetSource& net, bool json, int train_batch) {
  const std::optional<nn::TrainingStepReport> step =
      train_batch > 0 ? std::optional(nn::report_training_step(net.network, nn::net_shape(net.game->info()), train_batch))
                      : std::nullopt;
  nn::PolyNetwork plan(net.network, nn::net_shape(net.game->info()));
  plan.source(/*analyse=*/true);
  const double kib = 4.0 / 1024;
  const NetworkTraffic totals = network_traffic(plan);
  if (json) {
    nlohmann::json traffic = nlohmann::json::object();
    for (const auto& [name, f] : totals.figures) traffic[name] = {{"bytes", f.bytes}, {"layers_not_modelled", f.missing}};
    nlohmann::json arrays = nlohmann::json::array();
    for (const auto& a : plan.arrays())
      arrays.push_back({{"array", a.array}, {"role", a.role}, {"layout", a.layout}, {"reason", a.reason}});
    nlohmann::json layers = nlohmann::json::array();
    for (const auto& l : plan.layers())
      layers.push_back({{"name", l.name}, {"kind", l.kind}, {"flops", l.flops}, {"schedule", l.schedule}, {"passes", l.passes},
                        {"polyc", nlohmann::json::parse(poly::format_report_json({l.scop}))["scops"][0]}});
    std::cout << nlohmann::json{{"game", net.game->spec().to_string()},
                                {"network", net.network.to_json()},
                                {"flops_per_position", plan.flops_per_position()},
                                {"micro_batch", plan.micro_batch()},
                                {"arena_bytes", plan.arena_floats() * 4},
                                {"arena_bytes_one_region_per_tensor", plan.unplanned_arena_floats() * 4},
                                {"weight_bytes", plan.weight_floats() * 4},
                                {"arrays", arrays},
                                {"bytes_per_position", traffic},
                                {"layers", layers},
                                {"training_step", step ? nn::training_step_json(*step) : nlohmann::json()}}
                     .dump(2)
              << std::endl;
    return;
  }
  std::printf("%s, %s network: %.3f MFLOP per position, micro-batches of %d\n", net.game->spec().to_string().c_str(),
              net.network.type.c_str(), plan.flops_per_position() / 1e6, plan.micro_batch());
  std::printf("data moved per micro-batch (polyhedral/README.md's model: distinct elements; a block's loads from each cache level):\n");
  std::printf("arena %.1f KiB per micro-batch (one region per tensor: %.1f KiB); weights %.1f KiB (batch-norm folded)\n",
              plan.arena_floats() * kib, plan.unplanned_arena_floats() * kib, plan.weight_floats() * kib);
  std::string previous_winograd;
  for (const auto& l : plan.layers()) {
    std::string choice = l.schedule;
    std::vector<std::string> decisions;  // the passes' choices; legality checks that passed are left out
    for (const auto& pass : l.passes) {
      if (pass.rfind("register blocking: ", 0) == 0 && pass.find(" register block (") != std::string::npos) {
        choice = pass.substr(std::strlen("register blocking: "));
      } else if (pass.rfind("winograd: ", 0) == 0) {
        if (pass != previous_winograd) decisions.push_back(pass);  // once for a convolution's five stages
        previous_winograd = pass;
      } else if (pass.find(": legal (") == std::string::npos) {
        decisions.push_back(pass);
      }
    }
    std::printf("  %-22s %-8s %9.4f MFLOP  %s\n", l.name.c_str(), l.kind.c_str(), l.flops / 1e6, choice.c_str());
    for (const auto& decision : decisions) std::printf("  %-22s %s\n", "", decision.c_str());
    const poly::DataMovementReport& d = l.scop.data_movement;
    auto kib = [](std::optional<long long> bytes) {
      return bytes ? std::to_string(*bytes / 1024) + "." + std::to_string(*bytes % 1024 * 10 / 1024) + " KiB" : std::string("n/a");
    };
    if (!d.computed) continue;
    std::string line = "moved in " + kib(poly::sum_arrays(d.kernel, &poly::ArrayMovement::moved_in).bytes) + ", out " +
                       kib(poly::sum_arrays(d.kernel, &poly::ArrayMovement::moved_out).bytes);
    for (const auto& t : d.tilings) {
      line += "; one block " + kib(poly::sum_arrays(t.arrays, &poly::TileArrayFootprint::box).bytes);
      for (const auto& level : t.levels)
        if (level.level != "L3") line += "; " + level.level + " " + level.model + " loads " + kib(level.loaded_bytes);
    }
    std::printf("  %-22s per micro-batch: %s\n", "", line.c_str());
  }
  std::printf("per position, all layers:");
  for (const auto& [name, f] : totals.figures)
    std::printf(" %s %.1f KiB%s;", name.c_str(), f.bytes / 1024,
                f.missing ? (" (" + std::to_string(f.missing) + " layer(s) not modelled)").c_str() : "");
  std::printf("\n");
  std::printf("data layouts (polyc's layout pass, polyhedral/transform/layout.h):\n");
  for (const auto& a : plan.arrays())
    std::printf("  %-4s %-40s %s\n  %-4s %-40s   %s\n", a.array.c_str(), a.role.c_str(), a.layout.c_str(), "", "", a.reason.c_str());
  if (step) std::printf("%s", nn::format_training_step_text(*step).c_str());
}

void warm_network(const NetSource& net) {
  const auto start = std::chrono::steady_clock::now();
  nn::make_poly_backend(net.network, nn::net_shape(net.game->info()), nn::BackendOptions{});
  std::printf("the forward pass of %s's %s network is in %s (%.1f s)\n", net.game->spec().to_string().c_str(),
              net.network.type.c_str(), poly::default_cache_dir().c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// --num-threads is pasted into each num_threads() clause: it must be one C expression of
// names, numbers and operators, with balanced parentheses (no statement, string or directive).
std::string checked_num_threads(const std::string& expression) {
  int depth = 0;
  for (const char c : expression) {
    const bool allowed = std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_ +-*/%()<>=!&|?:.").find(c) != std::string_view::npos;
    if (!allowed) {
      throw util::UsageError("--num-threads '" + expression.substr(0, 40) + "': the character '" + std::string(1, c) +
                             "' cannot be part of a num_threads() expression; give a number or an expression such as "
                             "omp_get_num_procs() / 2");
    }
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0) break;
  }
  if (depth != 0) throw util::UsageError("--num-threads '" + expression.substr(0, 40) + "': unbalanced parentheses");
  return expression;
}

}  // namespace

void add_polyc_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("polyc", "polyhedral source-to-source optimiser for the #pragma scop regions of a C file");
  struct Args {
    std::string input, output, tile = "auto", fusion = "min", report_net, warm;
    bool parallel = false, vectorize = false, report = false, json = false, no_isl = false, register_block = false;
    bool no_matmul_packing = false;
    bool no_matmul_fusion = false;
    int unroll_jam = 4;
    int train_batch = 128;
    long long min_parallel_work = poly::PolycOptions{}.min_parallel_work;
    // The command owns its process, so it also bounds each region's memory growth.
    poly::BudgetOptions budget{.memory_mib = 1024};
    bool no_reassociate = false;
    bool no_size_versions = false;
    std::string num_threads;
    bool tune = false, tune_cold = false, tune_constant_sizes = false;
    std::vector<std::string> tune_sizes;
    double tune_seconds = poly::TuneOptions{}.seconds;
    int tune_threads = 0;
    bool cpp = false;  // regions parsed after the C preprocessor (polyhedral/frontend/preprocess.h)
    std::vector<std::string> defines, includes;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("input", args->input, "C file with #pragma scop ... #pragma endscop regions");
  cmd->add_option("-o,--output", args->output, "output C file ('-' for stdout)");
  cmd->add_option("--report-net", args->report_net,
                  "the poly backend's plan for a network (checkpoint, run directory or training config): per layer the FLOPs and the schedule polyc chose, the arena");
  cmd->add_option("--train-batch", args->train_batch,
                  "with --report-net: the poly learner's training step at this batch (its kernels' data movement and "
                  "the step's tensors; 0: leave it out)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--warm", args->warm, "compile a network's forward pass (checkpoint, run directory or training config) into the kernel cache");
  cmd->add_option("--tile", args->tile, "tile sizes: auto (L2 tiles with L1 tiles inside, from the cache sizes), auto1 (L2 tiles only), off, N,N,... (one level) or N,N,.../N,N,... (outer/inner)")->capture_default_str();
  cmd->add_option("--fusion", args->fusion, "isl fusion: min (separate SCCs, deeper bands) or max")
      ->check(CLI::IsMember({"min", "max"}))
      ->capture_default_str();
  cmd->add_flag("--parallel", args->parallel, "mark outer parallel loops '#pragma omp parallel for'");
  cmd->add_flag("--vectorize", args->vectorize, "mark innermost parallel loops '#pragma omp simd'");
  cmd->add_option("--unroll-jam", args->unroll_jam, "register tiling: unroll factor of the innermost band (0: off)")
      ->check(CLI::Range(0, 16))
      ->capture_default_str();
  cmd->add_option("--min-parallel-work", args->min_parallel_work,
                  "statement instances per fork/join below which a loop stays sequential (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--register-block", args->register_block,
                "reduction chains (init, += over extra loops, final) get a register-blocked micro-kernel: the output block kept in vector registers");
  cmd->add_flag("--no-matmul-packing", args->no_matmul_packing,
                "keep contractions (gemm-like statements) in the tiled pipeline instead of packed BLIS loops around a "
                "register-blocked micro-kernel");
  cmd->add_flag("--no-matmul-fusion", args->no_matmul_fusion,
                "run a packed contraction's initialisation and consumer statements as sweeps of their own instead of "
                "on each micro-tile next to its first and last k block");
  cmd->add_flag("--no-isl", args->no_isl, "keep the source order instead of isl's scheduler");
  cmd->add_option("--num-threads", args->num_threads,
                  "a C expression for the num_threads() clause of each parallel loop (default: none, OMP_NUM_THREADS)");
  cmd->add_flag("--no-reassociate", args->no_reassociate,
                "keep every sum in the source's order: no reduction clauses, no vector accumulators (results bit for bit "
                "those of the source, compiled with -ffp-contract=off)");
  cmd->add_flag("--no-size-versions", args->no_size_versions,
                "no version of a region at the sizes its arrays are declared with: the generic code only");
  cmd->add_flag("--cpp", args->cpp,
                "parse the regions after the C preprocessor ($CC or cc -E), for regions written with macros; the rest of "
                "the file is kept as written (implied by -D and -I)");
  cmd->add_option("-D", args->defines, "with --cpp: a macro for the preprocessor (NAME or NAME=VALUE; repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("-I", args->includes, "with --cpp: an include directory for the preprocessor (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--budget-ops", args->budget.operations,
                  "isl operations per stage of a region's pipeline (0: unlimited); a region over it is kept as written")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--budget-seconds", args->budget.seconds,
                  "seconds per region's pipeline (0: unlimited); a region over it is kept as written")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--budget-mib", args->budget.memory_mib,
                  "growth of memory per region's pipeline in MiB (0: unlimited); a region over it is kept as written")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--budget-statements", args->budget.max_statements,
                  "statements per region (0: unlimited); a larger region is kept as written")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--budget-depth", args->budget.max_depth,
                  "loops nested per region (0: unlimited); a deeper region is kept as written")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--tune", args->tune,
                "time each region's candidates (the model's choice, the source, without tiles, without packing, ...) at "
                "concrete sizes through the JIT and keep the fastest; choices are cached in the kernel cache");
  cmd->add_option("--tune-sizes", args->tune_sizes,
                  "with --tune: NAME=VALUE sizes for the timing runs (default: the largest sizes the declared array "
                  "extents allow; needed for sizes no array bounds, e.g. time steps)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--tune-seconds", args->tune_seconds, "with --tune: seconds of timing runs per region")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--tune-cold", args->tune_cold,
                "with --tune: time each run on cold caches (32 MiB streamed through them first, as PolyBench does)");
  cmd->add_flag("--tune-constant-sizes", args->tune_constant_sizes,
                "with --tune: the sizes are constants the compiler sees in the timing runs, as when the caller passes "
                "constants to a kernel it inlines (default: values known only at run time)");
  cmd->add_option("--tune-threads", args->tune_threads,
                  "with --tune: OMP_NUM_THREADS of the timing runs (0: this process's environment)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_flag("--report", args->report, "print statements, dependences, the schedule, footprints and data movement");
  cmd->add_flag("--json", args->json, "print the report as JSON");
  cmd->callback([args] {
    if (!args->report_net.empty() || !args->warm.empty()) {
      if (!args->input.empty()) throw util::UsageError("polyc: give either IN.c -o OUT.c, or --report-net / --warm");
      if (!args->warm.empty()) warm_network(read_net_source(args->warm));
      if (!args->report_net.empty()) report_network(read_net_source(args->report_net), args->json, args->train_batch);
      return;
    }
    if (args->input.empty() || args->output.empty())
      throw util::UsageError("polyc: expected IN.c -o OUT.c (or --report-net / --warm NET); see polyzero polyc --help");
    if (args->output != "-") {
      std::error_code ec;
      if (std::filesystem::equivalent(args->input, args->output, ec)) {
        throw util::UsageError("polyc: -o " + args->output + " is the input file; write the optimised code elsewhere");
      }
    }
    if (args->output == "-" && (args->json || args->report)) {
      throw util::UsageError("polyc: -o - and --json/--report would both print on stdout; write the code to a file "
                             "with -o OUT.c");
    }
    poly::PolycOptions o;
    o.tile = parse_tile(args->tile);
    o.parallel = args->parallel;
    o.vectorize = args->vectorize;
    o.unroll_jam = args->unroll_jam;
    o.register_block.enabled = args->register_block;
    o.matmul.enabled = !args->no_matmul_packing;
    o.matmul.fuse_neighbours = !args->no_matmul_fusion;
    o.min_parallel_work = args->min_parallel_work;
    o.reassociate = !args->no_reassociate;
    o.size_versions = !args->no_size_versions;
    o.num_threads = checked_num_threads(args->num_threads);
    o.budget = args->budget;
    o.data_movement = args->report || args->json;  // exact counts cost isl time; only reports show them
    o.schedule.use_isl = !args->no_isl;
    if (!args->tune && (!args->tune_sizes.empty() || args->tune_threads || args->tune_cold || args->tune_constant_sizes))
      throw util::UsageError("polyc: --tune-sizes, --tune-threads, --tune-cold and --tune-constant-sizes go with --tune");
    o.tune.cold = args->tune_cold;
    o.tune.constant_sizes = args->tune_constant_sizes;
    o.tune.enabled = args->tune;
    o.tune.seconds = args->tune_seconds;
    o.tune.threads = args->tune_threads;
    o.tune.sizes = parse_tune_sizes(args->tune_sizes);
    o.schedule.fusion = args->fusion == "max" ? poly::ScheduleOptions::Fusion::kMax : poly::ScheduleOptions::Fusion::kMin;
    std::string source = util::read_text_file(args->input, poly::kMaxSourceBytes);
    poly::PolycResult r;
    try {
      if (args->cpp || !args->defines.empty() || !args->includes.empty()) {
        poly::PreprocessOptions cpp;
        for (const auto& d : args->defines) cpp.flags.push_back("-D" + d);
        for (const auto& i : args->includes) cpp.flags.push_back("-I" + i);
        r = poly::polyc(source, poly::preprocess_c_file(args->input, cpp), o);
      } else {
        r = poly::polyc(source, o);
      }
    } catch (const util::UsageError& e) {
      throw util::UsageError(args->input + ":" + e.what());
    }
    for (const auto& warning : r.warnings) std::cerr << args->input << ": " << warning << "\n";
    if (args->output == "-") {
      std::cout << r.output;
    } else {
      try {
        util::write_text_atomically(args->output, r.output);  // only a new or regular file is replaced
      } catch (const util::UsageError&) {
        throw;
      } catch (const std::exception& e) {
        throw util::UsageError("cannot write '" + args->output + "': " + e.what());
      }
    }
    if (args->json) std::cout << poly::format_report_json(r.scops);
    else if (args->report) std::cout << poly::format_report_text(r.scops);
  });
}

}  // namespace pz::apps
