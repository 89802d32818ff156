// Long C++ work that Ctrl-C stops: the work runs on a thread of its own while the Python
// thread waits with the GIL released, waking every 100 ms to run Python's signal handlers
// and a poll of its own with the GIL held. A KeyboardInterrupt (or any exception of the
// poll) raises the work's stop flag; the work ends the way it ends on the program's Ctrl-C
// (a training run finishes its step and writes a checkpoint), and then the exception is
// raised in Python. An exception of the work itself is rethrown as it is.
#pragma once

#include <atomic>
#include <functional>

namespace pz::python {

void run_interruptibly(const std::function<void(const std::atomic<bool>& stop)>& work, const std::function<void()>& poll);

}  // namespace pz::python
