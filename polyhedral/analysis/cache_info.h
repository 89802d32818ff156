// Data-cache sizes of this machine, read from sysfs (Linux), for tile sizing.
#pragma once

#include <string>

namespace pz::poly {

struct CacheInfo {
  long l1 = 32 * 1024;   // bytes, per core (data)
  long l2 = 1024 * 1024;
  long l3 = 0;           // 0 = none reported
  std::string source = "defaults";  // "sysfs" when read from the machine

  // cpu0's data and unified caches; missing files leave the defaults.
  static CacheInfo detect(const std::string& sysfs_cache_dir = "/sys/devices/system/cpu/cpu0/cache");
};

}  // namespace pz::poly
