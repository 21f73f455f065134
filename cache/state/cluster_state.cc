#include "cache/state/cluster_state.h"

#include <algorithm>
#include <mutex>

#include "cache/objects/conventions.h"
#include "cache/objects/gang_identity.h"
#include "cache/objects/convert.h"
#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

const std::vector<std::string> kNoUids;

std::string Annotation(const PodInfo& pod, std::string_view key) {
  auto it = pod.annotations.find(std::string(key));
  return it == pod.annotations.end() ? std::string() : it->second;
}

std::string Label(const PodInfo& pod, std::string_view key) {
  auto it = pod.labels.find(std::string(key));
  return it == pod.labels.end() ? std::string() : it->second;
}

PodRecord MakeRecord(const PodInfo& pod) {
  PodRecord r;
  r.uid = pod.uid;
  r.namespace_ = pod.namespace_;
  r.name = pod.name;
  r.node = pod.node_name;
  r.planned_node = Annotation(pod, kPlannedNodeAnnotation);
  r.queue_labelled = pod.labels.count(std::string(kQueueLabel)) > 0;
  r.queue = Label(pod, kQueueLabel);  // The namespace default is applied under the lock (UpsertPod).
  r.gang = GangIdentityOf(pod).key;
  r.priority = pod.priority;
  r.terminal = pod.phase == "Succeeded" || pod.phase == "Failed";
  try {
    r.request = ToPodRequest(pod);
  } catch (const DecodeError& e) {
    r.request = {};
    r.request_error = e.what();
  }
  return r;
}

bool SameTaints(const std::vector<engine::Taint>& a, const std::vector<engine::Taint>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const engine::Taint& x, const engine::Taint& y) {
    return x.key == y.key && x.value == y.value && x.effect == y.effect;
  });
}

// Equal in everything but the cordon flag, which the engine can change in place.
bool SameSpecButCordon(const engine::NodeSpec& a, const engine::NodeSpec& b) {
  return a.name == b.name && a.capacity == b.capacity && a.gpu_count == b.gpu_count && a.gpu_model == b.gpu_model &&
         a.labels == b.labels && SameTaints(a.taints, b.taints);
}

// Whether two versions of a pod hold the same capacity in the same place for the same queue and gang.
bool SameHolding(const PodRecord& a, const PodRecord& b) {
  return a.node == b.node && a.planned_node == b.planned_node && a.terminal == b.terminal && a.queue == b.queue &&
         a.gang == b.gang && a.request.host == b.request.host && a.request.gpu_count == b.request.gpu_count &&
         a.request.gpu_milli == b.request.gpu_milli && a.request_error == b.request_error;
}

void EraseValue(std::vector<std::string>& v, std::string_view value) {
  auto it = std::find(v.begin(), v.end(), value);
  if (it != v.end()) {
    *it = std::move(v.back());
    v.pop_back();
  }
}

}  // namespace

engine::NodeId StateView::FindNode(std::string_view name) const { return node_index_.Find(*cluster_, name); }

const PodRecord* StateView::FindPod(std::string_view uid) const {
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : &it->second;
}

const QueueConfig* StateView::FindQueue(std::string_view name) const {
  auto it = queues_.find(name);
  return it == queues_.end() ? nullptr : &it->second;
}

std::string_view StateView::NamespaceQueue(std::string_view namespace_) const {
  auto it = namespace_queues_.find(namespace_);
  return it == namespace_queues_.end() ? std::string_view() : std::string_view(it->second);
}

std::string StateView::QueueOf(const PodInfo& pod) const {
  if (auto it = pod.labels.find(std::string(kQueueLabel)); it != pod.labels.end()) return it->second;
  return std::string(NamespaceQueue(pod.namespace_));
}

std::int64_t StateView::QueueUsageMilli(std::string_view queue) const {
  auto it = queue_usage_milli_.find(queue);
  if (it == queue_usage_milli_.end()) return 0;
  std::int64_t sum = 0;
  for (std::int64_t milli : it->second) sum += milli;
  return sum;
}

std::int64_t StateView::QueueUsageMilli(std::string_view queue, int pool) const {
  auto it = queue_usage_milli_.find(queue);
  const size_t slot = static_cast<size_t>(pool + 1);
  return it == queue_usage_milli_.end() || slot >= it->second.size() ? 0 : it->second[slot];
}

int StateView::FindPool(std::string_view name) const {
  for (size_t i = 0; i < pools_.size(); ++i) {
    if (pools_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<engine::PodRequest> StateView::HeldRequests(size_t max) const {
  std::vector<engine::PodRequest> out;
  out.reserve(std::min(max, pods_.size()));
  for (const auto& [uid, pod] : pods_) {
    if (out.size() >= max) break;
    if (pod.allocation) out.push_back(pod.request);
  }
  return out;
}

const std::vector<std::string>& StateView::GangMembers(std::string_view gang) const {
  auto it = gangs_.find(gang);
  return it == gangs_.end() ? kNoUids : it->second;
}

ClusterState::ClusterState(std::vector<std::string> topology_keys, ClusterScope scope)
    : topology_keys_(std::move(topology_keys)), scope_(std::move(scope)) {
  view_.cluster_ = std::make_unique<engine::Cluster>(topology_keys_);
}

int ClusterState::PoolIndexOf(const engine::NodeSpec& spec) const {
  int found = -1;
  for (size_t i = 0; i < view_.pools_.size(); ++i) {
    if (!view_.pools_[i].Selects(spec)) continue;
    if (found >= 0) return -1;  // Selected by two pools: in neither.
    found = static_cast<int>(i);
  }
  return found;
}

bool ClusterState::Foreign(std::string_view node) const { return foreign_nodes_.count(node) > 0; }

void ClusterState::UpsertNode(const NodeInfo& node) {
  engine::NodeSpec spec = ToNodeSpec(node);  // May throw; nothing changed yet.
  WriteLock lock(*this);
  StateView& v = view_;
  const bool mine = !scope_.selects_node || scope_.selects_node(spec);
  if (!mine) {
    // Out of scope (or it left the scope): its pods are some other state's.
    foreign_nodes_.insert(spec.name);
    if (v.node_specs_.erase(spec.name) > 0) Rebuild();
    DropForeignHolders();
    return;
  }
  foreign_nodes_.erase(spec.name);
  if (auto it = v.node_specs_.find(spec.name); it != v.node_specs_.end()) {
    if (SameSpecButCordon(it->second, spec)) {
      if (it->second.unschedulable != spec.unschedulable) {
        it->second.unschedulable = spec.unschedulable;
        v.cluster_->SetUnschedulable(v.FindNode(spec.name), spec.unschedulable);
      }
      return;
    }
    it->second = std::move(spec);
    Rebuild();
    return;
  }
  AddNodeLocked(std::move(spec));
}

void ClusterState::AddNodeLocked(engine::NodeSpec spec) {
  StateView& v = view_;
  const std::string name = spec.name;
  const int pool = PoolIndexOf(spec);
  const engine::NodeId id = v.cluster_->AddNode(spec);
  v.node_specs_.emplace(name, std::move(spec));
  v.node_index_.Insert(*v.cluster_, id);
  v.pods_on_node_.emplace_back();
  v.reserved_gpu_milli_.push_back(0);
  v.reserved_whole_gpus_.push_back(0);
  v.node_pool_.push_back(pool);
  if (auto w = v.waiting_for_node_.find(name); w != v.waiting_for_node_.end()) {
    std::vector<std::string> uids = std::move(w->second);
    v.waiting_for_node_.erase(w);
    for (const auto& uid : uids) {
      auto p = v.pods_.find(uid);
      if (p == v.pods_.end()) continue;
      --v.unaccounted_;  // Account() counts it again if it still cannot hold its capacity.
      p->second.problem.clear();
      Account(p->second);
    }
  }
}

// With held_pods_only, pods held on nodes that turned out foreign are some other state's: forget them.
void ClusterState::DropForeignHolders() {
  StateView& v = view_;
  for (auto it = v.pods_.begin(); it != v.pods_.end();) {
    PodRecord& pod = it->second;
    const bool waiting = !pod.allocation && pod.ShouldHold() && !pod.foreign;
    if (waiting && Foreign(pod.HoldingNode())) {
      Unaccount(pod);  // Leaves waiting_for_node_ and the unaccounted count.
      pod.foreign = true;
    }
    if (scope_.held_pods_only && pod.foreign) {
      RemoveGangMember(pod);
      it = v.pods_.erase(it);
    } else {
      ++it;
    }
  }
}

void ClusterState::DeleteNode(std::string_view name) {
  WriteLock lock(*this);
  auto it = view_.node_specs_.find(std::string(name));
  if (it == view_.node_specs_.end()) return;
  view_.node_specs_.erase(it);
  Rebuild();
}

void ClusterState::UpsertPod(const PodInfo& pod) {
  if (pod.uid.empty()) return;  // Cannot be tracked; the API server always sets one.
  PodRecord record = MakeRecord(pod);
  WriteLock lock(*this);
  if (scope_.held_pods_only && (!record.ShouldHold() || Foreign(record.HoldingNode()))) {
    // Not (or no longer) holding capacity here: not this state's pod.
    if (auto it = view_.pods_.find(record.uid); it != view_.pods_.end()) {
      Unaccount(it->second);
      RemoveGangMember(it->second);
      view_.pods_.erase(it);
    }
    return;
  }
  if (!record.queue_labelled) record.queue = std::string(view_.NamespaceQueue(record.namespace_));
  auto it = view_.pods_.find(record.uid);
  if (it != view_.pods_.end()) {
    PodRecord& old = it->second;
    if (SameHolding(old, record)) {
      old.priority = record.priority;
      old.request = std::move(record.request);  // Selectors, tolerations and models may change freely.
      return;
    }
    Unaccount(old);
    RemoveGangMember(old);
    old = std::move(record);
    AddGangMember(old);
    Account(old);
    return;
  }
  PodRecord& added = view_.pods_.emplace(record.uid, std::move(record)).first->second;
  AddGangMember(added);
  Account(added);
}

void ClusterState::DeletePod(std::string_view uid) {
  WriteLock lock(*this);
  auto it = view_.pods_.find(uid);
  if (it == view_.pods_.end()) return;
  Unaccount(it->second);
  RemoveGangMember(it->second);
  view_.pods_.erase(it);
}

bool ClusterState::AssumeBound(std::string_view uid, std::string_view node) {
  WriteLock lock(*this);
  auto it = view_.pods_.find(uid);
  if (it == view_.pods_.end()) return false;
  PodRecord& pod = it->second;
  if (!pod.node.empty()) return pod.node == node;
  if (pod.terminal) return false;
  Unaccount(pod);
  pod.node = std::string(node);
  Account(pod);
  return true;
}

void ClusterState::SetPools(std::vector<PoolConfig> pools) {
  WriteLock lock(*this);
  view_.pools_ = std::move(pools);
  Rebuild();
}

void ClusterState::SetQueues(std::vector<QueueConfig> queues) {
  WriteLock lock(*this);
  view_.queues_.clear();
  for (auto& q : queues) {
    std::string name = q.name;
    view_.queues_.insert_or_assign(std::move(name), std::move(q));
  }
}

void ClusterState::SetNamespaceQueue(std::string_view namespace_, std::string_view queue) {
  WriteLock lock(*this);
  StateView& v = view_;
  if (v.NamespaceQueue(namespace_) == queue) return;
  if (queue.empty()) {
    v.namespace_queues_.erase(v.namespace_queues_.find(namespace_));
  } else {
    v.namespace_queues_.insert_or_assign(std::string(namespace_), std::string(queue));
  }
  // Rare (a namespace relabelled): a pass over all pods keeps the cache free of a per-namespace index.
  for (auto& [uid, pod] : v.pods_) {
    if (!pod.queue_labelled && pod.namespace_ == namespace_) ChargeQueue(pod, std::string(queue));
  }
}

// Moves a pod's GPU usage from its current queue to `queue`; its allocation stays where it is.
void ClusterState::ChargeQueue(PodRecord& pod, std::string queue) {
  AddUsage(pod, -1);
  pod.queue = std::move(queue);
  AddUsage(pod, +1);
}

// Adds (sign +1) or removes (-1) a held pod's GPUs to its queue's usage in its node's pool.
void ClusterState::AddUsage(const PodRecord& pod, std::int64_t sign) {
  if (!pod.allocation || pod.queue.empty() || pod.GpuMilli() == 0) return;
  StateView& v = view_;
  const size_t slot = static_cast<size_t>(v.node_pool_[pod.allocation->node] + 1);
  if (sign > 0) {
    std::vector<std::int64_t>& usage = v.queue_usage_milli_[pod.queue];
    if (usage.size() <= slot) usage.resize(slot + 1, 0);
    usage[slot] += pod.GpuMilli();
    return;
  }
  auto q = v.queue_usage_milli_.find(pod.queue);
  if (q == v.queue_usage_milli_.end() || q->second.size() <= slot) return;
  q->second[slot] -= pod.GpuMilli();
  if (std::all_of(q->second.begin(), q->second.end(), [](std::int64_t m) { return m == 0; })) {
    v.queue_usage_milli_.erase(q);
  }
}

void ClusterState::Rebuild() {
  StateView& v = view_;
  ++v.generation_;
  v.cluster_ = std::make_unique<engine::Cluster>(topology_keys_);
  v.node_index_.Clear();
  v.node_pool_.clear();
  for (const auto& [name, spec] : v.node_specs_) {
    v.node_index_.Insert(*v.cluster_, v.cluster_->AddNode(spec));
    v.node_pool_.push_back(PoolIndexOf(spec));
  }
  const size_t n = v.node_specs_.size();
  v.pods_on_node_.assign(n, {});
  v.reserved_gpu_milli_.assign(n, 0);
  v.reserved_whole_gpus_.assign(n, 0);
  v.waiting_for_node_.clear();
  v.queue_usage_milli_.clear();
  v.reservations_ = 0;
  v.unaccounted_ = 0;
  for (auto& [uid, pod] : v.pods_) pod.allocation.reset(), pod.problem.clear(), pod.foreign = false;
  // Bound pods first: they hold what they hold; reservations get what is left.
  for (auto& [uid, pod] : v.pods_) {
    if (!pod.node.empty()) Account(pod);
  }
  for (auto& [uid, pod] : v.pods_) {
    if (pod.node.empty()) Account(pod);
  }
}

void ClusterState::Account(PodRecord& pod) {
  StateView& v = view_;
  if (!pod.ShouldHold()) return;
  const std::string& node_name = pod.HoldingNode();
  const engine::NodeId id = v.FindNode(node_name);
  if (id == engine::kNoNode && Foreign(node_name)) {
    pod.foreign = true;  // Some other state's to account.
    return;
  }
  if (!pod.request_error.empty()) {
    pod.problem = pod.request_error;
    ++v.unaccounted_;
    return;
  }
  if (id == engine::kNoNode) {
    pod.problem = "node " + node_name + " is not in the cache yet";
    v.waiting_for_node_[node_name].push_back(pod.uid);
    ++v.unaccounted_;
    return;
  }
  std::vector<int> gpus = engine::DefaultGpuChoice(v.cluster_->state(id), pod.request);
  if (pod.request.WantsGpu() && static_cast<int>(gpus.size()) != pod.request.gpu_count) {
    pod.problem = "no GPU capacity left for it on " + node_name + " in gangplank's books";
    ++v.unaccounted_;
    return;
  }
  engine::Allocation allocation = engine::MakeAllocation(id, pod.request, std::move(gpus));
  if (std::string why = v.cluster_->CheckAssign(allocation); !why.empty()) {
    pod.problem = why;
    ++v.unaccounted_;
    return;
  }
  v.cluster_->Assign(allocation);
  pod.allocation = std::move(allocation);
  v.pods_on_node_[id].push_back(pod.uid);
  AddUsage(pod, +1);
  if (pod.IsReservation()) {
    ++v.reservations_;
    v.reserved_gpu_milli_[id] += pod.GpuMilli();
    if (pod.request.WantsGpu() && !pod.request.IsSharing()) v.reserved_whole_gpus_[id] += pod.request.gpu_count;
  }
}

void ClusterState::Unaccount(PodRecord& pod) {
  StateView& v = view_;
  if (!pod.allocation) {
    if (pod.ShouldHold() && !pod.foreign) {
      --v.unaccounted_;
      if (auto w = v.waiting_for_node_.find(pod.HoldingNode()); w != v.waiting_for_node_.end()) {
        EraseValue(w->second, pod.uid);
        if (w->second.empty()) v.waiting_for_node_.erase(w);
      }
    }
    pod.problem.clear();
    pod.foreign = false;
    return;
  }
  const engine::NodeId id = pod.allocation->node;
  v.cluster_->Release(*pod.allocation);
  EraseValue(v.pods_on_node_[id], pod.uid);
  AddUsage(pod, -1);
  if (pod.IsReservation()) {
    --v.reservations_;
    v.reserved_gpu_milli_[id] -= pod.GpuMilli();
    if (pod.request.WantsGpu() && !pod.request.IsSharing()) v.reserved_whole_gpus_[id] -= pod.request.gpu_count;
  }
  pod.allocation.reset();
}

void ClusterState::AddGangMember(const PodRecord& pod) {
  if (!pod.gang.empty()) view_.gangs_[pod.gang].push_back(pod.uid);
}

void ClusterState::RemoveGangMember(const PodRecord& pod) {
  if (pod.gang.empty()) return;
  auto it = view_.gangs_.find(pod.gang);
  if (it == view_.gangs_.end()) return;
  EraseValue(it->second, pod.uid);
  if (it->second.empty()) view_.gangs_.erase(it);
}

}  // namespace gangplank::cache
