#include "engine/fit_check.h"

namespace gangplank::engine {

FitCheck::FitCheck(const Cluster& cluster, const PodRequest& request)
    : cluster_(cluster),
      request_(request),
      check_models_(request.WantsGpu() && !request.gpu_models.empty()),
      allowed_models_(static_cast<size_t>(cluster.model_count()), 0),
      has_selector_(!request.node_selector.empty() || !request.node_label_not_in.empty()) {
  if (!check_models_) return;
  for (const std::string& model : request.gpu_models) {
    const std::int32_t id = cluster.ModelId(model);
    if (id >= 0) allowed_models_[static_cast<size_t>(id)] = 1;  // A model no node has allows nothing.
  }
}

bool FitCheck::Eligible(NodeId node) const {
  const NodeSummary& s = cluster_.summary(node);
  if (s.unschedulable) return false;
  if (check_models_ && !allowed_models_[static_cast<size_t>(s.model_id)]) return false;
  // Labels and taints live in the spec: the Cluster's own rule decides those nodes.
  if (has_selector_ || s.blocking_taints) return cluster_.Eligible(node, request_);
  return true;
}

bool FitCheck::HasCapacity(NodeId node) const {
  const NodeSummary& s = cluster_.summary(node);
  if (s.free_cpu_milli < request_.host.cpu_milli || s.free_memory_mib < request_.host.memory_mib) return false;
  if (!request_.WantsGpu()) return true;
  if (request_.IsSharing()) return s.largest_free_share >= request_.gpu_milli;
  return s.fully_free_gpus >= request_.gpu_count;
}

}  // namespace gangplank::engine
