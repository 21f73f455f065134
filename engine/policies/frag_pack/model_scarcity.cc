#include "engine/policies/frag_pack/model_scarcity.h"

#include <algorithm>
#include <map>

namespace gangplank::engine::policies {

ModelScarcity::ModelScarcity(const std::vector<PodRequest>& workload) {
  std::map<std::vector<std::string>, double> by_models;
  for (const PodRequest& p : workload) {
    if (!p.WantsGpu()) continue;
    const auto milli = static_cast<double>(p.TotalGpuMilli());
    total_milli_ += milli;
    if (p.gpu_models.empty()) continue;
    std::vector<std::string> models = p.gpu_models;
    std::sort(models.begin(), models.end());
    by_models[models] += milli;
  }
  for (auto& [models, milli] : by_models) constrained_.push_back(Demand{models, milli});
}

int ModelScarcity::ModelOf(const Cluster& cluster, NodeId node) {
  const NodeSpec& spec = cluster.spec(node);
  if (spec.gpu_count == 0) return -1;
  const auto it = std::find(models_.begin(), models_.end(), spec.gpu_model);
  if (it != models_.end()) return static_cast<int>(it - models_.begin());
  models_.push_back(spec.gpu_model);
  return static_cast<int>(models_.size()) - 1;
}

void ModelScarcity::Measure(const Cluster& cluster) {
  if (node_model_.size() != static_cast<size_t>(cluster.size())) {
    node_model_.clear();
    for (NodeId n = 0; n < cluster.size(); ++n) node_model_.push_back(ModelOf(cluster, n));
    // Captive demand per model, shared out over the allowed models the cluster has.
    captive_share_.assign(models_.size(), 0.0);
    for (const Demand& d : constrained_) {
      std::vector<size_t> present;
      for (const std::string& m : d.models) {
        const auto it = std::find(models_.begin(), models_.end(), m);
        if (it != models_.end()) present.push_back(static_cast<size_t>(it - models_.begin()));
      }
      for (size_t m : present) captive_share_[m] += d.milli / static_cast<double>(present.size()) / total_milli_;
    }
  }
  std::vector<double> free(models_.size(), 0.0);
  double total_free = 0;
  for (NodeId n = 0; n < cluster.size(); ++n) {
    const int m = node_model_[static_cast<size_t>(n)];
    if (m < 0) continue;
    const auto f = static_cast<double>(cluster.state(n).TotalFreeGpuMilli());
    free[static_cast<size_t>(m)] += f;
    total_free += f;
  }
  pressure_.assign(models_.size(), 0.0);
  for (size_t m = 0; m < models_.size(); ++m) {
    if (captive_share_[m] <= 0) continue;
    pressure_[m] = free[m] <= 0 ? 1.0 : std::min(1.0, captive_share_[m] * total_free / free[m]);
  }
  measured_at_ = cluster.change_count() + 1;
}

double ModelScarcity::Pressure(const Cluster& cluster, NodeId node) {
  if (measured_at_ != cluster.change_count() + 1 || node_model_.size() != static_cast<size_t>(cluster.size())) {
    Measure(cluster);
  }
  const int m = node_model_[static_cast<size_t>(node)];
  return m < 0 ? 0.0 : pressure_[static_cast<size_t>(m)];
}

}  // namespace gangplank::engine::policies
