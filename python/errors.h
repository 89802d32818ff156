// How polyzero's errors reach Python: a util::UsageError (bad input: an unknown game or
// player, a malformed option, an illegal move, a C construct polyc does not take) becomes a
// ValueError with the same message; other C++ exceptions become RuntimeError (pybind11's
// defaults), and an exception raised by a Python callback comes back as itself.
#pragma once

#include <string>

namespace pz::python {

// Thrown as a util::UsageError, so Python sees a ValueError with `message`.
[[noreturn]] void throw_value_error(const std::string& message);

}  // namespace pz::python
