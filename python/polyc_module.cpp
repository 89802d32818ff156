// polyzero.polyc(source, **options): the polyhedral source-to-source optimiser
// (polyhedral/polyc.h) on a C source text, with the options of `polyzero polyc` as keyword
// arguments; compiled with the GIL released. Regions kept as written come back as
// RuntimeWarnings. polyzero.polyc_report(...): the same, with the report as a dict.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/polyc.h"
#include "polyhedral/report.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "util/spec.h"

namespace py = pybind11;

namespace pz::python {

namespace {

using OptionSetter = std::function<void(poly::PolycOptions&, py::handle)>;

std::vector<long> tile_sizes(const std::string& text) {
  std::vector<long> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const auto size = util::parse_int(util::trim(text.substr(start, comma - start)));
    if (!size || *size < 1 || *size > 1'000'000) {
      throw_value_error("polyc: tile='" + text + "': expected \"auto\", \"auto1\", \"off\", sizes \"N,N,...\" "
                        "(or \"N,N,.../N,N,...\" for two levels) or a list of sizes");
    }
    sizes.push_back(static_cast<long>(*size));
    start = comma + 1;
  }
  return sizes;
}

poly::TileOptions tile_option(py::handle value) {
  poly::TileOptions tile;
  tile.cache = poly::CacheInfo::detect();
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    tile.mode = poly::TileOptions::Mode::kFixed;
    for (const auto& size : value) tile.sizes.push_back(size.cast<long>());
    if (tile.sizes.empty()) throw_value_error("polyc: tile=[]: give at least one size");
    return tile;
  }
  const auto text = value.cast<std::string>();
  if (text == "auto" || text == "auto1") {
    tile.l1_tiles = text == "auto";
  } else if (text == "off") {
    tile.mode = poly::TileOptions::Mode::kOff;
  } else {
    tile.mode = poly::TileOptions::Mode::kFixed;
    const std::size_t slash = text.find('/');
    tile.sizes = tile_sizes(text.substr(0, slash));
    if (slash != std::string::npos) tile.inner_sizes = tile_sizes(text.substr(slash + 1));
  }
  return tile;
}

// The keyword arguments, named as the command's options (--no-isl is isl=False, ...).
const std::map<std::string, OptionSetter>& option_setters() {
  static const std::map<std::string, OptionSetter> setters = {
      {"tile", [](poly::PolycOptions& o, py::handle v) { o.tile = tile_option(v); }},
      {"parallel", [](poly::PolycOptions& o, py::handle v) { o.parallel = v.cast<bool>(); }},
      {"vectorize", [](poly::PolycOptions& o, py::handle v) { o.vectorize = v.cast<bool>(); }},
      {"unroll_jam", [](poly::PolycOptions& o, py::handle v) { o.unroll_jam = v.cast<int>(); }},
      {"fusion",
       [](poly::PolycOptions& o, py::handle v) {
         const auto fusion = v.cast<std::string>();
         if (fusion != "min" && fusion != "max") throw_value_error("polyc: fusion='" + fusion + "': expected \"min\" or \"max\"");
         o.schedule.fusion = fusion == "max" ? poly::ScheduleOptions::Fusion::kMax : poly::ScheduleOptions::Fusion::kMin;
       }},
      {"register_block", [](poly::PolycOptions& o, py::handle v) { o.register_block.enabled = v.cast<bool>(); }},
      {"matmul_packing", [](poly::PolycOptions& o, py::handle v) { o.matmul.enabled = v.cast<bool>(); }},
      {"matmul_fusion", [](poly::PolycOptions& o, py::handle v) { o.matmul.fuse_neighbours = v.cast<bool>(); }},
      {"isl", [](poly::PolycOptions& o, py::handle v) { o.schedule.use_isl = v.cast<bool>(); }},
      {"reassociate", [](poly::PolycOptions& o, py::handle v) { o.reassociate = v.cast<bool>(); }},
      {"num_threads", [](poly::PolycOptions& o, py::handle v) { o.num_threads = v.cast<std::string>(); }},
      {"min_parallel_work", [](poly::PolycOptions& o, py::handle v) { o.min_parallel_work = v.cast<long long>(); }},
      {"budget_ops", [](poly::PolycOptions& o, py::handle v) { o.budget.operations = v.cast<unsigned long>(); }},
      {"budget_seconds", [](poly::PolycOptions& o, py::handle v) { o.budget.seconds = v.cast<double>(); }},
      {"budget_mib", [](poly::PolycOptions& o, py::handle v) { o.budget.memory_mib = v.cast<long>(); }},
      {"budget_statements", [](poly::PolycOptions& o, py::handle v) { o.budget.max_statements = v.cast<int>(); }},
      {"budget_depth", [](poly::PolycOptions& o, py::handle v) { o.budget.max_depth = v.cast<int>(); }},
      {"tune", [](poly::PolycOptions& o, py::handle v) { o.tune.enabled = v.cast<bool>(); }},
      {"tune_sizes",
       [](poly::PolycOptions& o, py::handle v) { o.tune.sizes = v.cast<std::map<std::string, long long>>(); }},
      {"tune_seconds", [](poly::PolycOptions& o, py::handle v) { o.tune.seconds = v.cast<double>(); }},
      {"tune_threads", [](poly::PolycOptions& o, py::handle v) { o.tune.threads = v.cast<int>(); }},
      {"tune_cold", [](poly::PolycOptions& o, py::handle v) { o.tune.cold = v.cast<bool>(); }},
      {"tune_constant_sizes", [](poly::PolycOptions& o, py::handle v) { o.tune.constant_sizes = v.cast<bool>(); }},
  };
  return setters;
}

// The command's defaults (matmul packing on, the cache's real sizes); no memory budget,
// since other threads of the Python process may allocate meanwhile.
poly::PolycOptions default_options() {
  poly::PolycOptions o;
  o.tile.cache = poly::CacheInfo::detect();
  o.matmul.enabled = true;
  o.data_movement = false;
  return o;
}

poly::PolycOptions options_from(const py::kwargs& kwargs) {
  poly::PolycOptions o = default_options();
  const auto& setters = option_setters();
  for (const auto& [key, value] : kwargs) {
    const auto name = key.cast<std::string>();
    const auto setter = setters.find(name);
    if (setter == setters.end()) {
      std::vector<std::string> names;
      for (const auto& [known, unused] : setters) names.push_back(known);
      throw_value_error("polyc: unknown option '" + name + "'; options: " + util::join(names, ", "));
    }
    try {
      setter->second(o, value);
    } catch (const py::cast_error&) {
      throw_value_error("polyc: option '" + name + "' cannot take " + std::string(py::repr(value)));
    }
  }
  if (o.unroll_jam < 0 || o.unroll_jam > 16) throw_value_error("polyc: unroll_jam must be 0..16");
  return o;
}

// polyc on `source` without the GIL; each region kept as written becomes a RuntimeWarning.
poly::PolycResult compile(const std::string& source, const py::kwargs& kwargs) {
  const poly::PolycOptions options = options_from(kwargs);
  poly::PolycResult result;
  {
    py::gil_scoped_release release;
    result = poly::polyc(source, options);
  }
  for (const auto& warning : result.warnings) {
    if (PyErr_WarnEx(PyExc_RuntimeWarning, warning.c_str(), 1) != 0) throw py::error_already_set();
  }
  return result;
}

std::string run_polyc(const std::string& source, const py::kwargs& kwargs) { return compile(source, kwargs).output; }

// The output and, per region, what `polyzero polyc --json` reports.
py::dict run_polyc_report(const std::string& source, const py::kwargs& kwargs) {
  const poly::PolycResult result = compile(source, kwargs);
  py::dict d;
  d["output"] = result.output;
  d["regions"] = py::module_::import("json").attr("loads")(poly::format_report_json(result.scops))["scops"];
  d["warnings"] = result.warnings;
  d["text"] = poly::format_report_text(result.scops);
  return d;
}

}  // namespace

void bind_polyc(py::module_& m) {
  m.def("polyc", &run_polyc, py::arg("source"),
        "Optimises the `#pragma scop` ... `#pragma endscop` regions of C source text and returns the new source "
        "(the rest byte for byte). Options as `polyzero polyc`'s: tile=\"auto\"|\"auto1\"|\"off\"|\"32,32\"|[32, 32], "
        "parallel, vectorize, unroll_jam, fusion=\"min\"|\"max\", register_block, matmul_packing, matmul_fusion, isl, "
        "reassociate, num_threads, min_parallel_work, budget_ops, budget_seconds, budget_mib, budget_statements, "
        "budget_depth, tune, tune_sizes={name: size}, tune_seconds, tune_threads, tune_cold, tune_constant_sizes. "
        "ValueError for C outside the supported subset (with line and column) or a bad option.");
  m.def("polyc_report", &run_polyc_report, py::arg("source"),
        "polyc with the same options, returning a dict: output (the new source), regions (per scop region, what "
        "`polyzero polyc --json` reports: statements, dependences, the schedule's origin and passes, a version "
        "guard, the final schedule), warnings, and text (the `--report` text).");
}

}  // namespace pz::python
