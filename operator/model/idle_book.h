// What the operator keeps about one pool's idle gangs between rounds (utilization/idle_gangs.h): the
// utilization polls of each running gang, the gangs already said to be idle (one Event per episode), the
// gangs made preemptible, and the checkpoint deadlines of gangs being reclaimed. Kept in memory only: a
// new leader or a changed pool starts the idle clocks again, which errs on the side of running jobs.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "engine/idle/utilization_window.h"

namespace gangplank::op {

struct IdleBook {
  std::unique_ptr<engine::UtilizationWindow> samples;
  double samples_max_age = 0;   // What `samples` keeps (the longest idle span of the pool's policies).
  double last_read_at = 0;      // The snapshot last taken, so one read is one sample.
  std::map<std::string, double> reported;            // Gang -> when it was said to be idle.
  std::set<std::string> preemptible;                 // Gangs the round may take first.
  std::map<std::string, double> checkpoint_deadline; // Gangs asked to checkpoint before their reclaim.
  std::map<std::pair<std::string, std::string>, int> counted;  // (queue, policy) -> idle gangs, last said.

  void Forget(const std::string& gang) {
    reported.erase(gang);
    preemptible.erase(gang);
    checkpoint_deadline.erase(gang);
    if (samples) samples->Forget(gang);
  }
};

}  // namespace gangplank::op
