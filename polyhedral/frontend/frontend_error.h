// A program outside the supported subset, or malformed: the message names the line, the
// column and the construct ("12:9: unsupported construct: while loop"). It is bad user input,
// so the CLI reports it like every other UsageError (exit status 2).
#pragma once

#include <string>

#include "polyhedral/ir/expr.h"
#include "util/error.h"

namespace pz::poly {

class FrontendError : public util::UsageError {
 public:
  FrontendError(SourceLoc loc, const std::string& message)
      : util::UsageError(format(loc, message)), loc_(loc), message_(message) {}
  SourceLoc loc() const { return loc_; }
  const std::string& message() const { return message_; }

 private:
  static std::string format(SourceLoc loc, const std::string& message) {
    if (loc.line == 0) return message;
    return std::to_string(loc.line) + ":" + std::to_string(loc.column) + ": " + message;
  }
  SourceLoc loc_;
  std::string message_;
};

}  // namespace pz::poly
