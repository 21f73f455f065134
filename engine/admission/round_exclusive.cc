// Exclusive classes (GangRequest::exclusive_class): gangs of one class never share a domain of their
// required level. Kubernetes says the same with a required pod anti-affinity against the class's other
// pods over the level's label (a LeaderWorkerSet's exclusive topology), so the domains are told apart by
// their label value, as kube-scheduler tells them: a gang of a class plans with its request narrowed to
// nodes whose value at its level no other gang of the class holds, running or admitted this round.
#include <algorithm>

#include "engine/admission/round.h"

namespace gangplank::engine {
namespace {

void AddValueOf(const Cluster& cluster, const std::string& level, NodeId node, std::vector<std::string>& values) {
  const auto& labels = cluster.spec(node).labels;
  if (auto it = labels.find(level); it != labels.end()) values.push_back(it->second);
}

}  // namespace

const GangRequest& Round::Request(int w) const {
  const size_t i = static_cast<size_t>(w);
  return i < narrowed_.size() && narrowed_[i] ? *narrowed_[i] : in_.waiting[w].request;
}

void Round::NarrowToFreeDomains(int w) {
  const GangRequest& own = in_.waiting[w].request;
  if (own.exclusive_class.empty() || own.required_level.empty()) return;
  std::vector<std::string> taken;
  for (const RunningGang& r : in_.running) {
    // Its own running members (a group whose lost members come back) are not another gang's.
    if (r.exclusive_class == own.exclusive_class && r.name != own.name) {
      for (const Allocation& a : r.allocations) AddValueOf(model_.cluster(), own.required_level, a.node, taken);
    }
  }
  for (const Admitted& a : out_.admitted) {
    const GangRequest& other = in_.waiting[a.waiting].request;
    if (other.exclusive_class != own.exclusive_class || a.waiting == w) continue;
    for (const MemberAllocation& m : a.plan.allocations) AddValueOf(model_.cluster(), own.required_level, m.allocation.node, taken);
  }
  if (taken.empty()) return;
  std::sort(taken.begin(), taken.end());
  taken.erase(std::unique(taken.begin(), taken.end()), taken.end());
  // Assigned in place, never reset: a caller may hold a reference to the request while others are narrowed.
  if (!narrowed_[w]) narrowed_[w] = own;
  for (PodRequest& m : narrowed_[w]->members) m.node_label_not_in[own.required_level] = taken;
  gangs_[w].shape_known = false;
}

void Round::NarrowClassAfter(int admitted) {
  const std::string& cls = in_.waiting[admitted].request.exclusive_class;
  if (cls.empty()) return;
  for (size_t w = 0; w < gangs_.size(); ++w) {
    const int v = static_cast<int>(w);
    if (v != admitted && !gangs_[w].admitted && in_.waiting[w].request.exclusive_class == cls) NarrowToFreeDomains(v);
  }
}

void Round::NarrowExclusiveGangs() {
  narrowed_.resize(in_.waiting.size());
  for (size_t w = 0; w < in_.waiting.size(); ++w) NarrowToFreeDomains(static_cast<int>(w));
}

}  // namespace gangplank::engine
