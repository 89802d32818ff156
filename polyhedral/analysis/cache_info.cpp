#include "polyhedral/analysis/cache_info.h"

#include <fstream>

namespace pz::poly {

namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// "48K", "2048K", "32M" → bytes; 0 when unreadable.
long parse_size(const std::string& s) {
  if (s.empty()) return 0;
  size_t used = 0;
  long v = 0;
  try {
    v = std::stol(s, &used);
  } catch (...) {
    return 0;
  }
  char unit = used < s.size() ? s[used] : ' ';
  if (unit == 'K') v *= 1024;
  if (unit == 'M') v *= 1024 * 1024;
  if (unit == 'G') v *= 1024L * 1024 * 1024;
  return v;
}

}  // namespace

CacheInfo CacheInfo::detect(const std::string& dir) {
  CacheInfo info;
  for (int i = 0; i < 8; ++i) {
    std::string base = dir + "/index" + std::to_string(i) + "/";
    std::string level = read_line(base + "level"), type = read_line(base + "type");
    long size = parse_size(read_line(base + "size"));
    if (level.empty() || size == 0 || type == "Instruction") continue;
    if (level == "1") info.l1 = size;
    if (level == "2") info.l2 = size;
    if (level == "3") info.l3 = size;
    info.source = "sysfs";
  }
  return info;
}

}  // namespace pz::poly
