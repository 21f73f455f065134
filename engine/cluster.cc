#include "engine/cluster.h"

#include <algorithm>
#include <stdexcept>

#include "engine/node_release.h"
#include "engine/short_string_equal.h"
#include "engine/short_string_hash.h"

namespace gangplank::engine {

Cluster::Cluster(std::vector<std::string> topology_keys) : topology_(std::move(topology_keys)) {}

NodeId Cluster::AddNode(NodeSpec spec) {
  const auto id = static_cast<NodeId>(specs_.size());
  NodeState state;
  state.free = spec.capacity;
  state.gpu_free.assign(static_cast<size_t>(std::max(spec.gpu_count, 0)), kMilliPerGpu);
  total_gpu_milli_ += static_cast<std::int64_t>(state.gpu_free.size()) * kMilliPerGpu;
  topology_.AddNode(id, spec.labels);
  std::int32_t model = ModelId(spec.gpu_model);
  if (model < 0) {
    model = static_cast<std::int32_t>(models_.size());
    models_.push_back(spec.gpu_model);
  }
  NodeSummary ids;
  ids.name_hash = ShortStringHash(spec.name);
  ids.model_id = model;
  ids.shape_id = ShapeOf(spec, model);
  summaries_.push_back(Summarize(spec, state, ids));
  shape_free_gpu_milli_[static_cast<size_t>(ids.shape_id)] += summaries_.back().free_gpu_milli;
  specs_.push_back(std::move(spec));
  states_.push_back(std::move(state));
  ++change_count_;
  return id;
}

std::int32_t Cluster::ModelId(std::string_view model) const {
  for (size_t i = 0; i < models_.size(); ++i) {
    if (ShortStringEqual(models_[i], model)) return static_cast<std::int32_t>(i);
  }
  return -1;
}

std::int32_t Cluster::ShapeOf(const NodeSpec& spec, std::int32_t model_id) {
  const auto key = std::make_tuple(model_id, spec.gpu_count, spec.capacity.cpu_milli, spec.capacity.memory_mib);
  const auto [it, added] = shape_ids_.try_emplace(key, static_cast<std::int32_t>(shape_free_gpu_milli_.size()));
  if (added) shape_free_gpu_milli_.push_back(0);
  return it->second;
}

void Cluster::Changed(NodeId node) {
  NodeSummary& s = summaries_[static_cast<size_t>(node)];
  const std::int32_t free_before = s.free_gpu_milli;
  ++s.version;
  s = Summarize(specs_[node], states_[node], s);
  shape_free_gpu_milli_[static_cast<size_t>(s.shape_id)] += s.free_gpu_milli - free_before;
  ++change_count_;
}

NodeId Cluster::Find(const std::string& name) const {
  for (NodeId id = 0; id < size(); ++id) {
    if (specs_[id].name == name) return id;
  }
  return kNoNode;
}

void Cluster::SetUnschedulable(NodeId node, bool unschedulable) {
  specs_.at(node).unschedulable = unschedulable;
  Changed(node);
}

void Cluster::SetTaints(NodeId node, std::vector<Taint> taints) {
  specs_.at(node).taints = std::move(taints);
  Changed(node);
}

void Cluster::SetLabels(NodeId node, std::map<std::string, std::string> labels) {
  if (!topology_.SamePath(node, labels)) {
    throw std::logic_error("Cluster::SetLabels: the labels move node " + specs_.at(node).name + " to other topology domains");
  }
  specs_.at(node).labels = std::move(labels);
  Changed(node);
}

bool Cluster::Eligible(NodeId node, const PodRequest& request) const {
  const NodeSpec& s = specs_.at(node);
  if (s.unschedulable) return false;
  if (request.WantsGpu() && !request.gpu_models.empty() &&
      std::none_of(request.gpu_models.begin(), request.gpu_models.end(),
                   [&](const std::string& model) { return ShortStringEqual(model, s.gpu_model); })) {
    return false;
  }
  for (const auto& [key, value] : request.node_selector) {
    auto it = s.labels.find(key);
    if (it == s.labels.end() || it->second != value) return false;
  }
  for (const auto& [key, values] : request.node_label_not_in) {
    auto it = s.labels.find(key);
    if (it != s.labels.end() && std::find(values.begin(), values.end(), it->second) != values.end()) return false;
  }
  for (const Taint& taint : s.taints) {
    if (taint.effect == "PreferNoSchedule") continue;
    const bool tolerated = std::any_of(request.tolerations.begin(), request.tolerations.end(),
                                       [&](const Toleration& t) { return t.Tolerates(taint); });
    if (!tolerated) return false;
  }
  return true;
}

bool Cluster::HasCapacity(NodeId node, const PodRequest& request) const {
  return CapacityFits(states_.at(node), request);
}

bool CapacityFits(const NodeState& st, const PodRequest& request) {
  if (st.free.cpu_milli < request.host.cpu_milli || st.free.memory_mib < request.host.memory_mib) return false;
  if (!request.WantsGpu()) return true;
  if (request.IsSharing()) {
    return std::any_of(st.gpu_free.begin(), st.gpu_free.end(),
                       [&](MilliGpu free) { return free >= request.gpu_milli; });
  }
  return st.FullyFreeGpus() >= request.gpu_count;
}

std::string Cluster::CheckAssign(const Allocation& a) const {
  if (a.node < 0 || a.node >= size()) return "unknown node";
  const NodeState& st = states_[a.node];
  if (a.host.cpu_milli < 0 || a.host.memory_mib < 0 || a.milli_per_gpu < 0) return "negative quantity";
  if (st.free.cpu_milli < a.host.cpu_milli) return "CPU overcommit on " + specs_[a.node].name;
  if (st.free.memory_mib < a.host.memory_mib) return "memory overcommit on " + specs_[a.node].name;
  std::vector<int> sorted = a.gpus;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return "GPU listed twice";
  for (int g : sorted) {
    if (g < 0 || g >= static_cast<int>(st.gpu_free.size())) return "GPU index out of range";
    if (st.gpu_free[g] < a.milli_per_gpu) return "GPU overcommit on " + specs_[a.node].name;
  }
  return {};
}

void Cluster::Assign(const Allocation& a) {
  if (std::string why = CheckAssign(a); !why.empty()) throw std::logic_error("Cluster::Assign: " + why);
  NodeState& st = states_[a.node];
  st.free.cpu_milli -= a.host.cpu_milli;
  st.free.memory_mib -= a.host.memory_mib;
  for (int g : a.gpus) st.gpu_free[g] -= a.milli_per_gpu;
  allocated_gpu_milli_ += static_cast<std::int64_t>(a.gpus.size()) * a.milli_per_gpu;
  Changed(a.node);
}

void Cluster::Release(const Allocation& a) {
  if (a.node < 0 || a.node >= size()) throw std::logic_error("Cluster::Release: unknown node");
  const NodeSpec& s = specs_[a.node];
  NodeState& st = states_[a.node];
  if (st.free.cpu_milli + a.host.cpu_milli > s.capacity.cpu_milli ||
      st.free.memory_mib + a.host.memory_mib > s.capacity.memory_mib) {
    throw std::logic_error("Cluster::Release: releasing more CPU or memory than held on " + s.name);
  }
  for (int g : a.gpus) {
    if (g < 0 || g >= static_cast<int>(st.gpu_free.size()) || st.gpu_free[g] + a.milli_per_gpu > kMilliPerGpu) {
      throw std::logic_error("Cluster::Release: releasing GPU capacity not held on " + s.name);
    }
  }
  ReleaseOnNode(st, a);
  allocated_gpu_milli_ -= static_cast<std::int64_t>(a.gpus.size()) * a.milli_per_gpu;
  Changed(a.node);
}

std::vector<int> DefaultGpuChoice(const NodeState& state, const PodRequest& request) {
  std::vector<int> gpus;
  if (!request.WantsGpu()) return gpus;
  const int n = static_cast<int>(state.gpu_free.size());
  if (request.IsSharing()) {
    int best = -1;
    for (int g = 0; g < n; ++g) {
      if (state.gpu_free[g] >= request.gpu_milli && (best < 0 || state.gpu_free[g] < state.gpu_free[best])) best = g;
    }
    if (best >= 0) gpus.push_back(best);
    return gpus;
  }
  for (int g = 0; g < n && static_cast<int>(gpus.size()) < request.gpu_count; ++g) {
    if (state.gpu_free[g] == kMilliPerGpu) gpus.push_back(g);
  }
  if (static_cast<int>(gpus.size()) < request.gpu_count) gpus.clear();
  return gpus;
}

Allocation MakeAllocation(NodeId node, const PodRequest& request, std::vector<int> gpus) {
  Allocation a;
  a.node = node;
  a.host = request.host;
  a.gpus = std::move(gpus);
  a.milli_per_gpu = request.WantsGpu() ? request.gpu_milli : 0;
  return a;
}

}  // namespace gangplank::engine
