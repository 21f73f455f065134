#include "engine/policies/frag_pack/node_kind_scarcity.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gangplank::engine::policies {

NodeKindScarcity::NodeKindScarcity(const std::vector<PodRequest>& workload, bool by_node_shape)
    : by_node_shape_(by_node_shape) {
  // Pods of one shape (and, by model only, pods of one model list) share a demand entry.
  std::map<std::tuple<std::int64_t, std::int64_t, int, std::vector<std::string>>, double> by_shape;
  for (const PodRequest& p : workload) {
    if (!p.WantsGpu()) continue;
    const auto milli = static_cast<double>(p.TotalGpuMilli());
    total_milli_ += milli;
    std::vector<std::string> models = p.gpu_models;
    std::sort(models.begin(), models.end());
    if (by_node_shape_) {
      by_shape[{p.host.cpu_milli, p.host.memory_mib, p.gpu_count, models}] += milli;
    } else if (!models.empty()) {
      by_shape[{0, 0, 0, models}] += milli;
    }
  }
  for (auto& [key, milli] : by_shape) {
    Demand d;
    std::tie(d.cpu_milli, d.memory_mib, d.gpu_count, d.models) = key;
    d.milli = milli;
    demands_.push_back(std::move(d));
  }
}

int NodeKindScarcity::KindOf(const Cluster& cluster, NodeId node) {
  const NodeSpec& spec = cluster.spec(node);
  if (spec.gpu_count == 0) return -1;
  Kind k{spec.gpu_model, by_node_shape_ ? spec.gpu_count : 0, by_node_shape_ ? spec.capacity.cpu_milli : 0,
         by_node_shape_ ? spec.capacity.memory_mib : 0, 0};
  for (size_t i = 0; i < kinds_.size(); ++i) {
    const Kind& o = kinds_[i];
    if (o.model == k.model && o.gpus == k.gpus && o.cpu_milli == k.cpu_milli && o.memory_mib == k.memory_mib) {
      kinds_[i].capacity += spec.gpu_count;
      return static_cast<int>(i);
    }
  }
  k.capacity = spec.gpu_count;
  kinds_.push_back(k);
  return static_cast<int>(kinds_.size()) - 1;
}

bool NodeKindScarcity::Holds(const Kind& kind, const Demand& d) const {
  const bool model_ok = d.models.empty() || std::binary_search(d.models.begin(), d.models.end(), kind.model);
  return model_ok && kind.gpus >= d.gpu_count && kind.cpu_milli >= d.cpu_milli && kind.memory_mib >= d.memory_mib;
}

void NodeKindScarcity::Measure(const Cluster& cluster) {
  if (node_kind_.size() != static_cast<size_t>(cluster.size())) {
    kinds_.clear();
    node_kind_.clear();
    for (NodeId n = 0; n < cluster.size(); ++n) node_kind_.push_back(KindOf(cluster, n));
    // Demand that only some kinds can hold, shared out over them in proportion to their GPUs.
    captive_share_.assign(kinds_.size(), 0.0);
    for (const Demand& d : demands_) {
      double eligible = 0;
      size_t count = 0;
      for (const Kind& k : kinds_) {
        if (Holds(k, d)) {
          eligible += k.capacity;
          ++count;
        }
      }
      if (count == kinds_.size() || eligible <= 0) continue;  // Runs anywhere: captive nowhere.
      for (size_t i = 0; i < kinds_.size(); ++i) {
        if (Holds(kinds_[i], d)) captive_share_[i] += d.milli * kinds_[i].capacity / eligible / total_milli_;
      }
    }
  }
  std::vector<double> free(kinds_.size(), 0.0);
  double total_free = 0;
  for (NodeId n = 0; n < cluster.size(); ++n) {
    const int k = node_kind_[static_cast<size_t>(n)];
    if (k < 0) continue;
    const auto f = static_cast<double>(cluster.state(n).TotalFreeGpuMilli());
    free[static_cast<size_t>(k)] += f;
    total_free += f;
  }
  pressure_.assign(kinds_.size(), 0.0);
  for (size_t k = 0; k < kinds_.size(); ++k) {
    if (captive_share_[k] <= 0) continue;
    if (free[k] > 0) pressure_[k] = captive_share_[k] * total_free / free[k];  // Full kinds fit nothing.
  }
  measured_at_ = cluster.change_count() + 1;
}

double NodeKindScarcity::Pressure(const Cluster& cluster, NodeId node) {
  if (measured_at_ != cluster.change_count() + 1 || node_kind_.size() != static_cast<size_t>(cluster.size())) {
    Measure(cluster);
  }
  const int k = node_kind_[static_cast<size_t>(node)];
  return k < 0 ? 0.0 : pressure_[static_cast<size_t>(k)];
}

}  // namespace gangplank::engine::policies
