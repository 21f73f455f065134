// One scheduling attempt for one pod, as kube-scheduler's scheduleOne with one extender:
//   in-tree filters on every node -> extender filter on the survivors (nodeCacheCapable: names only)
//   -> extender prioritize when more than one node passed -> highest score × weight × 10 (ties: lowest
//   name) -> assume the pod there -> bind (API server, or the extender's bind verb).
// No node passes: PodScheduled=False/Unschedulable with the per-node reasons, and a FailedScheduling
// event. The extender fails (and is not ignorable) or the binding fails: PodScheduled=False/SchedulerError;
// the pod is never bound without the extender's filter.
#pragma once

#include <memory>
#include <string>

#include "kube/event_recorder.h"
#include "kube/informer.h"
#include "kube/objects.h"
#include "tools/scheduler-driver/cluster_view.h"
#include "tools/scheduler-driver/driver_metrics.h"
#include "tools/scheduler-driver/driver_options.h"
#include "tools/scheduler-driver/extender_client.h"
#include "tools/scheduler-driver/pod_binder.h"
#include "tools/scheduler-driver/pod_condition_writer.h"

namespace gangplank::scheduler_driver {

enum class AttemptResult {
  kScheduled,      // bound by this attempt
  kUnschedulable,  // no node passed the filters: back off
  kError,          // the extender or the binding failed: back off
  kDone,           // nothing more to do (bound by someone else, 409, pod gone)
};

struct AttemptOutcome {
  AttemptResult result = AttemptResult::kDone;
  std::string node;
  std::string message;
};

class SchedulingCycle {
 public:
  struct Parts {
    ClusterView& view;
    kube::Informer<kube::Node>& nodes;
    ExtenderClient& extender;
    PodBinder& binder;
    PodConditionWriter& conditions;
    kube::EventRecorder& events;
    DriverMetrics& metrics;
  };
  SchedulingCycle(const DriverOptions& options, Parts parts) : options_(options), parts_(parts) {}

  AttemptOutcome Run(const PodEntry& pod);

 private:
  AttemptOutcome Fail(const PodEntry& pod, const char* reason, const std::string& message);
  AttemptOutcome Bind(const PodEntry& pod, const std::string& node, const std::string& how);

  const DriverOptions& options_;
  Parts parts_;
};

}  // namespace gangplank::scheduler_driver
