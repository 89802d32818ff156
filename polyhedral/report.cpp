#include "polyhedral/report.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace pz::poly {

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
    out << "schedule: " << r.schedule_origin << "\n";
    for (const auto& p : r.passes) out << "  " << p << "\n";
    out << "final schedule tree:\n" << r.schedule << "\n";
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
    j["passes"] = r.passes;
    j["schedule"] = r.schedule;
    all.push_back(j);
  }
  return nlohmann::json{{"scops", all}}.dump(2) + "\n";
}

}  // namespace pz::poly
