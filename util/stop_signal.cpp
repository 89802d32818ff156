#include "util/stop_signal.h"

#include <csignal>

namespace pz::util {
namespace {

std::atomic<bool> g_stop{false};

void on_signal(int sig) {
  if (g_stop.exchange(true)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

const std::atomic<bool>& install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return g_stop;
}

}  // namespace pz::util
