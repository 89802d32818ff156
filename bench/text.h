// printf-style formatting into a string, for the benchmarks' text tables.
#pragma once

#include <string>

namespace pz::bench {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace pz::bench
