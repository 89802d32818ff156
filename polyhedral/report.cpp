#include "polyhedral/report.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace pz::poly {

namespace {

std::string count(const std::optional<long long>& n) { return n ? std::to_string(*n) : "n/a"; }

// "96 elements (384 B)"
std::string amount(const std::optional<long long>& elements, const std::optional<long long>& bytes) {
  return count(elements) + " elements (" + count(bytes) + " B)";
}

std::string amount(const Totals& t) { return amount(t.elements, t.bytes); }

std::string amount(const std::optional<long long>& elements, int element_bytes) {
  return amount(elements, elements ? std::optional<long long>(*elements * element_bytes) : std::nullopt);
}

std::string sizes_text(const std::vector<long>& sizes) {
  std::string s;
  for (long v : sizes) {
    if (!s.empty()) s += 'x';
    s += std::to_string(v);
  }
  return s;
}

const char* level_model_text(const std::string& model) {
  if (model == "compulsory") return "compulsory, every accessed element fits: each loaded once";
  if (model == "per-tile") return "per-tile, one tile's box fits: each tile loads its footprint, no reuse between tiles";
  return "not modelled, one tile's box exceeds the cache";
}

nlohmann::json opt(const std::optional<long long>& n) { return n ? nlohmann::json(*n) : nlohmann::json(nullptr); }

nlohmann::json totals_json(const Totals& t) { return {{"elements", opt(t.elements)}, {"bytes", opt(t.bytes)}}; }

nlohmann::json data_movement_json(const DataMovementReport& d) {
  nlohmann::json j;
  j["computed"] = d.computed;
  j["note"] = d.note;
  j["kernel"] = nlohmann::json::array();
  for (const auto& a : d.kernel)
    j["kernel"].push_back({{"array", a.array}, {"type", a.type}, {"element_bytes", a.element_bytes},
                           {"accessed", opt(a.accessed)}, {"written", opt(a.written)},
                           {"moved_in", opt(a.moved_in)}, {"moved_out", opt(a.moved_out)}});
  j["moved_in"] = totals_json(sum_arrays(d.kernel, &ArrayMovement::moved_in));
  j["moved_out"] = totals_json(sum_arrays(d.kernel, &ArrayMovement::moved_out));
  j["accessed"] = totals_json(sum_arrays(d.kernel, &ArrayMovement::accessed));
  j["tilings"] = nlohmann::json::array();
  for (const auto& t : d.tilings) {
    nlohmann::json tj{{"band", t.band}, {"sizes", t.sizes}, {"tiles", opt(t.tiles)}};
    tj["arrays"] = nlohmann::json::array();
    for (const auto& a : t.arrays)
      tj["arrays"].push_back({{"array", a.array}, {"element_bytes", a.element_bytes}, {"box", opt(a.box)},
                              {"first_tile", opt(a.first_tile)}, {"loaded", opt(a.loaded)},
                              {"written_back", opt(a.written_back)}});
    tj["tile_box"] = totals_json(sum_arrays(t.arrays, &TileArrayFootprint::box));
    tj["first_tile"] = totals_json(sum_arrays(t.arrays, &TileArrayFootprint::first_tile));
    tj["loaded"] = totals_json(sum_arrays(t.arrays, &TileArrayFootprint::loaded));
    tj["written_back"] = totals_json(sum_arrays(t.arrays, &TileArrayFootprint::written_back));
    tj["cache_levels"] = nlohmann::json::array();
    for (const auto& l : t.levels)
      tj["cache_levels"].push_back({{"level", l.level}, {"capacity_bytes", l.capacity_bytes}, {"model", l.model},
                                    {"loaded", {{"elements", opt(l.loaded)}, {"bytes", opt(l.loaded_bytes)}}},
                                    {"written_back", {{"elements", opt(l.written_back)}, {"bytes", opt(l.written_back_bytes)}}}});
    j["tilings"].push_back(tj);
  }
  return j;
}

}  // namespace

std::string format_data_movement_text(const DataMovementReport& d) {
  std::ostringstream out;
  out << "data movement (counts in distinct array elements; bytes = elements x element size):\n";
  if (!d.note.empty()) out << "  note: " << d.note << "\n";
  if (!d.computed) return out.str();
  out << "  kernel <-> memory (moved in = live-in elements, read before any write; moved out = live-out "
         "elements, final values):\n";
  for (const auto& a : d.kernel)
    out << "    " << a.array << " (" << a.type << ", " << a.element_bytes << " B): accessed " << count(a.accessed)
        << ", written " << count(a.written) << ", moved in " << amount(a.moved_in, a.element_bytes)
        << ", moved out " << amount(a.moved_out, a.element_bytes) << "\n";
  out << "    total: moved in " << amount(sum_arrays(d.kernel, &ArrayMovement::moved_in)) << ", moved out "
      << amount(sum_arrays(d.kernel, &ArrayMovement::moved_out)) << ", accessed "
      << amount(sum_arrays(d.kernel, &ArrayMovement::accessed)) << "\n";
  for (const auto& t : d.tilings) {
    out << "  tiling: " << t.band << ", tiles " << sizes_text(t.sizes) << ", " << count(t.tiles)
        << " tiles (a tile: the loops above the band and the tile loops fixed)\n";
    for (const auto& a : t.arrays)
      out << "    " << a.array << ": box " << count(a.box) << " (after stride removal), first tile "
          << count(a.first_tile) << " exact, loaded over all tiles " << amount(a.loaded, a.element_bytes)
          << ", written back " << amount(a.written_back, a.element_bytes) << "\n";
    out << "    one tile: box " << amount(sum_arrays(t.arrays, &TileArrayFootprint::box)) << ", first tile "
        << amount(sum_arrays(t.arrays, &TileArrayFootprint::first_tile)) << "\n";
    out << "    over all tiles (each tile loads the elements it touches, writes back those it writes): loaded " << amount(sum_arrays(t.arrays, &TileArrayFootprint::loaded))
        << ", written back " << amount(sum_arrays(t.arrays, &TileArrayFootprint::written_back)) << "\n";
    for (const auto& l : t.levels) {
      out << "    " << l.level << " (" << l.capacity_bytes << " B, " << d.cache.source << "): " << level_model_text(l.model);
      if (l.model != "not modelled")
        out << ": loaded " << amount(l.loaded, l.loaded_bytes) << ", written back "
            << amount(l.written_back, l.written_back_bytes);
      out << "\n";
    }
  }
  return out.str();
}

std::string format_report_text(const std::vector<ScopReport>& scops) {
  std::ostringstream out;
  for (const auto& r : scops) {
    out << "scop at line " << r.line << ": " << r.statements.size() << " statement(s), parameters:";
    for (const auto& p : r.params) out << " " << p;
    out << "\nstatements:\n";
    for (const auto& s : r.statements) {
      out << "  " << s.name << " (line " << s.line << "): " << s.text << "\n    domain: " << s.domain << "\n";
      for (const auto& w : s.writes) out << "    write:  " << w << "\n";
      for (const auto& x : s.reads) out << "    read:   " << x << "\n";
    }
    out << "dependences (value-based):\n"
        << "  RAW: " << r.raw << "\n  WAR: " << r.war << "\n  WAW: " << r.waw << "\n"
        << "  live-in:  " << r.live_in << "\n  live-out: " << r.live_out << "\n";
    if (!r.fallback.empty()) out << "kept as written: " << r.fallback << "\n";
    if (!r.source_guard.empty())
      out << "version guard: as written " << (r.source_guard == "1" ? std::string("at every size") : "where " + r.source_guard)
          << " (" << r.source_reason << ")\n";
    out << "schedule: " << r.schedule_origin << "\n";
    for (const auto& p : r.passes) out << "  " << p << "\n";
    out << "final schedule tree:\n" << r.schedule << "\n";
    out << format_data_movement_text(r.data_movement);
  }
  return out.str();
}

std::string format_report_json(const std::vector<ScopReport>& scops) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : scops) {
    nlohmann::json j;
    j["line"] = r.line;
    j["parameters"] = r.params;
    j["statements"] = nlohmann::json::array();
    for (const auto& s : r.statements)
      j["statements"].push_back({{"name", s.name}, {"line", s.line}, {"text", s.text}, {"domain", s.domain},
                                 {"reads", s.reads}, {"writes", s.writes}});
    j["dependences"] = {{"raw", r.raw}, {"war", r.war}, {"waw", r.waw}, {"live_in", r.live_in}, {"live_out", r.live_out}};
    j["schedule_origin"] = r.schedule_origin;
    if (!r.fallback.empty()) j["fallback"] = r.fallback;
    if (!r.source_guard.empty()) j["version_guard"] = {{"as_written_where", r.source_guard}, {"reason", r.source_reason}};
    j["passes"] = r.passes;
    j["schedule"] = r.schedule;
    j["data_movement"] = data_movement_json(r.data_movement);
    all.push_back(j);
  }
  return nlohmann::json{{"scops", all}}.dump(2) + "\n";
}

}  // namespace pz::poly
