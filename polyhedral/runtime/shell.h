// Quoting for the compiler command lines that the JIT and `bench polyc` build.
#pragma once

#include <string>

namespace pz::poly {

// `s` as one single-quoted POSIX shell word.
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace pz::poly
