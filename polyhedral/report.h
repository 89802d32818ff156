// What polyc did to one scop, for `--report` (text) and `--json`.
#pragma once

#include <string>
#include <vector>

#include "polyhedral/analysis/footprint.h"

namespace pz::poly {

struct StatementReport {
  std::string name, text, domain;
  int line = 0;
  std::vector<std::string> reads, writes;  // access relations
};

// Footprints and data movement (the model: footprint.h and README.md).
struct DataMovementReport {
  bool computed = false;
  std::string note;  // why a part is absent (symbolic sizes, no rectangular tiling, budget)
  CacheInfo cache;
  std::vector<ArrayMovement> kernel;
  std::vector<TilingMovement> tilings;  // one per rectangularly tiled band
};

struct ScopReport {
  int line = 0;  // of `#pragma scop`
  std::vector<std::string> params;
  std::vector<StatementReport> statements;
  std::string raw, war, waw, live_in, live_out;  // isl text
  std::string schedule_origin;
  std::string fallback;             // why the region was kept as written (empty: it was not)
  // A C condition under which the region runs as written because the cost model predicts
  // no gain there ("1": at every size; empty: never), with the reason.
  std::string source_guard, source_reason;
  std::vector<std::string> passes;  // one line per transformation and per legality check
  std::string schedule;             // final schedule tree (isl's YAML form)
  DataMovementReport data_movement;
};

std::string format_data_movement_text(const DataMovementReport& d);

std::string format_report_text(const std::vector<ScopReport>& scops);
std::string format_report_json(const std::vector<ScopReport>& scops);

}  // namespace pz::poly
