#include "process/signals.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <ctime>

#include "logging/json_log.h"

namespace gangplank::process {
namespace {

int Stopping(int signal) {
  spdlog::info(logging::JsonFields("shutting down", "signal", signal == SIGTERM ? "SIGTERM" : "SIGINT"));
  return signal;
}

}  // namespace

StopSignals::StopSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

int StopSignals::Wait() const {
  int signal = 0;
  sigwait(&signals_, &signal);
  return Stopping(signal);
}

int StopSignals::Wait(std::chrono::seconds period, const std::function<void()>& every_period) const {
  const timespec wake{std::max<std::time_t>(1, period.count()), 0};
  while (true) {
    const int signal = sigtimedwait(&signals_, nullptr, &wake);
    if (signal == SIGTERM || signal == SIGINT) return Stopping(signal);
    every_period();  // The period passed, or the wait was interrupted: either way a good moment.
  }
}

}  // namespace gangplank::process
