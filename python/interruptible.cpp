#include "python/interruptible.h"

#include <pybind11/pybind11.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace py = pybind11;

namespace pz::python {

void run_interruptibly(const std::function<void(const std::atomic<bool>& stop)>& work, const std::function<void()>& poll) {
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr work_error;
  std::thread worker([&] {
    try {
      work(stop);
    } catch (...) {
      work_error = std::current_exception();
    }
    std::lock_guard lock(mutex);
    done = true;
    finished.notify_all();
  });
  std::exception_ptr raised;  // Ctrl-C or the poll's exception, raised at the end
  for (;;) {
    bool over;
    {
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return done; });
      over = done;
    }
    if (!raised) {
      try {
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        poll();
      } catch (...) {
        raised = std::current_exception();
        stop = true;
      }
    }
    if (over) break;
  }
  worker.join();
  if (raised) std::rethrow_exception(raised);
  if (work_error) std::rethrow_exception(work_error);
}

}  // namespace pz::python
