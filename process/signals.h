// SIGTERM and SIGINT as the request to stop a service process, taken by one thread that waits for them.
// Construct StopSignals in main's thread before any other thread starts: threads inherit the blocked mask,
// so no worker is interrupted by these signals and no handler ever runs.
#pragma once

#include <signal.h>

#include <chrono>
#include <functional>

namespace gangplank::process {

class StopSignals {
 public:
  // Blocks SIGTERM and SIGINT in the calling thread. They stay blocked for the life of the process (no
  // destructor undoes it): a second signal during shutdown must not cut the orderly stop short.
  StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Waits for SIGTERM or SIGINT, logs "shutting down" with the signal's name and returns it.
  int Wait() const;
  // As Wait(), calling `every_period` each time `period` (at least a second) passes without either signal.
  int Wait(std::chrono::seconds period, const std::function<void()>& every_period) const;

 private:
  sigset_t signals_;
};

}  // namespace gangplank::process
