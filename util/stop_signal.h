// Ctrl-C as a request to stop cleanly: the first SIGINT or SIGTERM sets a flag that long
// commands (training, tournaments) poll; a second one restores the default action and
// re-raises it, so a user who means it is never stuck.
#pragma once

#include <atomic>

namespace pz::util {

// Installs the handlers (once per process) and returns the flag they set.
const std::atomic<bool>& install_stop_signal_handlers();

}  // namespace pz::util
