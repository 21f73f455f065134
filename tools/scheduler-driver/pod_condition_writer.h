// Writes an unschedulable pod's PodScheduled condition as kube-scheduler's handleSchedulingFailure does:
// status False, reason Unschedulable (no node fits) or SchedulerError (the attempt itself failed), the
// diagnosis as message; a strategic merge patch on pods/status (conditions merge by type), sent only
// when the condition would change, with lastTransitionTime kept while the status stays False.
#pragma once

#include <memory>
#include <string>

#include "kube/client.h"
#include "kube/objects.h"

namespace gangplank::scheduler_driver {

inline constexpr const char* kReasonUnschedulable = "Unschedulable";
inline constexpr const char* kReasonSchedulerError = "SchedulerError";

class PodConditionWriter {
 public:
  explicit PodConditionWriter(std::shared_ptr<kube::Client> client) : client_(std::move(client)) {}

  // Returns false when nothing had to be written or the write failed (logged; the next attempt tries
  // again).
  bool SetNotScheduled(const kube::GenericObject& pod, const std::string& reason, const std::string& message);

 private:
  std::shared_ptr<kube::Client> client_;
};

}  // namespace gangplank::scheduler_driver
