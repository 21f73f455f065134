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

void NodeKindScarcity::ClassifyNodes(const Cluster& cluster) {
  kinds_.clear();
  node_kind_.clear();
  shape_kind_.assign(static_cast<size_t>(cluster.shape_count()), -1);
  for (NodeId n = 0; n < cluster.size(); ++n) {
    node_kind_.push_back(KindOf(cluster, n));
    // A shape is one GPU model, GPU count, CPU and memory, so all its nodes are of one kind.
    shape_kind_[static_cast<size_t>(cluster.summary(n).shape_id)] = node_kind_.back();
  }
  // Demand that only some kinds can hold, shared out over them in proportion to their GPUs.
  small_share_.assign(kinds_.size(), 0.0);
  big_.assign(kinds_.size(), {});
  for (const Demand& d : demands_) {
    double eligible = 0;
    size_t count = 0;
    for (const Kind& k : kinds_) {
      if (!Holds(k, d)) continue;
      eligible += k.capacity;
      ++count;
    }
    if (count == kinds_.size() || eligible <= 0) continue;  // Runs anywhere: depends on no kind.
    for (size_t i = 0; i < kinds_.size(); ++i) {
      if (Holds(kinds_[i], d)) AddShare(i, d, d.milli * kinds_[i].capacity / eligible / total_milli_);
    }
  }
}

void NodeKindScarcity::Measure(const Cluster& cluster) {
  if (node_kind_.size() != static_cast<size_t>(cluster.size())) ClassifyNodes(cluster);
  // Per node shape, not per node: the cluster keeps each shape's free GPU milli. The sums are of whole
  // milli far below 2^53, so they are exact in any order and equal the per-node sums.
  std::vector<double> free(kinds_.size(), 0.0);
  double total_free = 0;
  for (int shape = 0; shape < cluster.shape_count(); ++shape) {
    const int k = shape_kind_[static_cast<size_t>(shape)];
    if (k < 0) continue;
    const auto f = static_cast<double>(cluster.shape_free_gpu_milli(shape));
    free[static_cast<size_t>(k)] += f;
    total_free += f;
  }
  scale_.assign(kinds_.size(), 0.0);
  for (size_t k = 0; k < kinds_.size(); ++k) {
    if (free[k] > 0) scale_[k] = total_free / free[k];  // Full kinds fit nothing.
  }
  measured_at_ = cluster.change_count() + 1;
}

void NodeKindScarcity::AddShare(size_t kind, const Demand& d, double share) {
  if (d.gpu_count <= 1) {
    small_share_[kind] += share;
    return;
  }
  for (BigDemand& b : big_[kind]) {
    if (b.gpu_count == d.gpu_count && b.cpu_milli == d.cpu_milli && b.memory_mib == d.memory_mib) {
      b.share += share;
      return;
    }
  }
  big_[kind].push_back(BigDemand{d.gpu_count, d.cpu_milli, d.memory_mib, share});
}

double NodeKindScarcity::Charge(const Cluster& cluster, NodeId node, const PodRequest& request) {
  if (measured_at_ != cluster.change_count() + 1 || node_kind_.size() != static_cast<size_t>(cluster.size())) {
    Measure(cluster);
  }
  const int k = node_kind_[static_cast<size_t>(node)];
  if (k < 0) return 0.0;
  const auto kind = static_cast<size_t>(k);
  const auto taken = static_cast<double>(request.TotalGpuMilli());
  double charge = small_share_[kind] * scale_[kind] * taken;
  if (big_[kind].empty()) return charge;  // Saves reading the node's GPUs on every call.
  // Multi-GPU pods depend on the nodes that can still hold them: a node they no longer fit is not theirs,
  // and a placement that makes them no longer fit takes every whole GPU the node had from them.
  const NodeState& state = cluster.state(node);
  const int whole = cluster.summary(node).fully_free_gpus;
  const int whole_after = whole - WholeGpusTaken(state, request);
  for (const BigDemand& b : big_[kind]) {
    if (!b.Fits(whole, state.free.cpu_milli, state.free.memory_mib)) continue;
    const bool still_fits = b.Fits(whole_after, state.free.cpu_milli - request.host.cpu_milli,
                                   state.free.memory_mib - request.host.memory_mib);
    const double lost = still_fits ? taken : static_cast<double>(whole) * kMilliPerGpu;
    charge += b.share * scale_[kind] * lost;
  }
  return charge;
}

int NodeKindScarcity::WholeGpusTaken(const NodeState& state, const PodRequest& request) {
  if (!request.WantsGpu()) return 0;
  if (!request.IsSharing()) return request.gpu_count;
  // A sharing pod goes into a partly used GPU with room when there is one (DefaultGpuChoice's best fit).
  for (MilliGpu f : state.gpu_free) {
    if (f < kMilliPerGpu && f >= request.gpu_milli) return 0;
  }
  return 1;
}

}  // namespace gangplank::engine::policies
