// polyzero polyc IN.c -o OUT.c [--tile auto|auto1|off|N,N,...[/N,N,...]] [--parallel] [--vectorize] [--unroll-jam N]
//                              [--fusion min|max] [--no-isl] [--report] [--json]
// Source-to-source polyhedral optimisation of the `#pragma scop` regions of a C file
// (polyhedral/polyc.h). The report goes to stdout (or OUT.c does when -o is '-').
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "apps/commands.h"
#include "polyhedral/polyc.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::apps {

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw util::UsageError("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

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

}  // namespace

void add_polyc_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("polyc", "polyhedral source-to-source optimiser for the #pragma scop regions of a C file");
  struct Args {
    std::string input, output, tile = "auto", fusion = "min";
    bool parallel = false, vectorize = false, report = false, json = false, no_isl = false, register_block = false;
    int unroll_jam = 4;
    long long min_parallel_work = poly::PolycOptions{}.min_parallel_work;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("input", args->input, "C file with #pragma scop ... #pragma endscop regions")->required();
  cmd->add_option("-o,--output", args->output, "output C file ('-' for stdout)")->required();
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
  cmd->add_flag("--no-isl", args->no_isl, "keep the source order instead of isl's scheduler");
  cmd->add_flag("--report", args->report, "print statements, dependences, the schedule, footprints and data movement");
  cmd->add_flag("--json", args->json, "print the report as JSON");
  cmd->callback([args] {
    poly::PolycOptions o;
    o.tile = parse_tile(args->tile);
    o.parallel = args->parallel;
    o.vectorize = args->vectorize;
    o.unroll_jam = args->unroll_jam;
    o.register_block.enabled = args->register_block;
    o.min_parallel_work = args->min_parallel_work;
    o.data_movement = args->report || args->json;  // exact counts cost isl time; only reports show them
    o.schedule.use_isl = !args->no_isl;
    o.schedule.fusion = args->fusion == "max" ? poly::ScheduleOptions::Fusion::kMax : poly::ScheduleOptions::Fusion::kMin;
    std::string source = read_all(args->input);
    poly::PolycResult r;
    try {
      r = poly::polyc(source, o);
    } catch (const util::UsageError& e) {
      throw util::UsageError(args->input + ":" + e.what());
    }
    if (args->output == "-") {
      std::cout << r.output;
    } else {
      std::string tmp = args->output + ".tmp";
      {
        std::ofstream out(tmp, std::ios::binary);
        out << r.output;
        if (!out) throw util::UsageError("cannot write '" + args->output + "': " + std::strerror(errno));
      }
      if (std::rename(tmp.c_str(), args->output.c_str()) != 0)
        throw util::UsageError("cannot write '" + args->output + "': " + std::strerror(errno));
    }
    if (args->json) std::cout << poly::format_report_json(r.scops);
    else if (args->report) std::cout << poly::format_report_text(r.scops);
  });
}

}  // namespace pz::apps
