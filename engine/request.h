// What one pod asks for. A gang is a list of these (see engine/gang/).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/node.h"
#include "engine/resources.h"

namespace gangplank::engine {

struct Toleration {
  std::string key;              // Empty with operator Exists tolerates every taint.
  std::string op = "Equal";     // Equal or Exists.
  std::string value;
  std::string effect;           // Empty matches every effect.

  bool Tolerates(const Taint& taint) const;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

struct PodRequest {
  HostResources host;
  int gpu_count = 0;             // Distinct GPUs on one node; 1 for a sharing pod.
  MilliGpu gpu_milli = 0;        // Share of each GPU: kMilliPerGpu for whole GPUs, less for sharing.
  std::vector<std::string> gpu_models;  // Allowed GPU models; empty means any.
  std::map<std::string, std::string> node_selector;
  // Label values that rule a node out (a node affinity's NotIn): for a gang of an exclusive class, the
  // domains other gangs of its class hold (GangRequest::exclusive_class).
  std::map<std::string, std::vector<std::string>> node_label_not_in;
  std::vector<Toleration> tolerations;

  bool WantsGpu() const { return gpu_count > 0 && gpu_milli > 0; }
  bool IsSharing() const { return gpu_count == 1 && gpu_milli < kMilliPerGpu; }
  MilliGpu TotalGpuMilli() const { return gpu_count * gpu_milli; }
};

// Whether the request itself is well formed (positive sizes, sharing only on one GPU); empty when valid.
std::string ValidateRequest(const PodRequest& request);

}  // namespace gangplank::engine
