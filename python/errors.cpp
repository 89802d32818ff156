#include "python/errors.h"

#include <exception>

#include "python/bindings.h"
#include "util/error.h"

namespace py = pybind11;

namespace pz::python {

void throw_value_error(const std::string& message) { throw util::UsageError(message); }

void bind_errors(py::module_& m) {
  (void)m;
  // Only UsageError is translated here; everything else falls through to pybind11's own
  // translators (runtime_error → RuntimeError, invalid_argument → ValueError, and
  // error_already_set → the Python exception it carries).
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const util::UsageError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace pz::python
