// kube-scheduler's in-tree filters that decide which nodes are sent to the extender: NodeUnschedulable,
// TaintToleration (NoSchedule/NoExecute), NodeAffinity (nodeSelector only) and NodeResourcesFit for
// cpu, memory, nvidia.com/gpu and the pod count. Reasons are kube-scheduler's own texts, so a pod's
// PodScheduled message reads as it would under kube-scheduler.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kube/objects.h"

namespace gangplank::scheduler_driver {

// The requests of the pods a node holds (bound ones and ones this driver assumed there).
struct NodeUsage {
  std::map<std::string, std::int64_t, std::less<>> milli;  // resource -> sum of requests
  int pods = 0;

  void Add(const kube::Pod& pod);
};

// Resources NodeResourcesFit checks here. Other extended resources (gangplank.io/gpu-milli) are left to
// the extender, as with `ignoredByScheduler: true`.
inline constexpr const char* kFitResources[] = {"cpu", "memory", "nvidia.com/gpu"};

// Why `pod` cannot go to `node` (the first failing filter's reasons, in the framework's order), or
// nothing when it fits.
std::vector<std::string> InTreeFilter(const kube::Pod& pod, const kube::Node& node, const NodeUsage& used);

// Taint/toleration matching as v1helper.TolerationsTolerateTaint.
bool Tolerates(const std::vector<kube::Toleration>& tolerations, const kube::Taint& taint);

}  // namespace gangplank::scheduler_driver
