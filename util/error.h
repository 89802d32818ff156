// Errors that reach the user.
//
// A UsageError is bad input from the user (an unknown game, a malformed option, an
// unreadable file): the CLI prints its message and exits with status 2, never a stack
// trace. Its message says what was wrong, where, and what would be accepted.
//
// A RunError is a run that had to stop for a reason the user must act on, though nothing
// they typed was wrong (a training run whose loss became NaN): the CLI prints its message
// and exits with status 1, without calling it an internal error.
#pragma once

#include <stdexcept>
#include <string>

namespace pz::util {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pz::util
