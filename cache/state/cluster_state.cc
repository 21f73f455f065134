#include "cache/state/cluster_state.h"

#include <algorithm>
#include <mutex>

#include "cache/objects/gang_identity.h"
#include "cache/objects/convert.h"
#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

const std::vector<PodId> kNoMembers;

PodRecord MakeRecord(const PodInfo& pod) {
  PodRecord r;
  r.uid = pod.uid;
  r.namespace_ = pod.namespace_;
  r.name = pod.name;
  r.node = pod.node_name;
  r.planned_node = pod.PlannedNode();
  r.queue_label = pod.QueueLabel();  // Resolved into `queue` under the lock (UpsertPod): it reads the namespace's.
  r.scheduler_name = pod.scheduler_name;
  r.admission_gated = pod.HasAdmissionGate();
  r.gang = GangIdentityOf(pod).key;
  r.priority = pod.priority;
  r.terminal = pod.Finished();
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

// Same size: what else changed (labels that move the node nowhere, taints, cordon) is set in place.
// Node conditions come and go as taints (not-ready, unreachable, pressure), and under load they flap on
// many nodes; labellers add and refresh labels (kube-controller-manager on every new node, GPU Feature
// Discovery's timestamp every minute): rebuilding the whole state for each would cost every node and pod.
bool SameSize(const engine::NodeSpec& a, const engine::NodeSpec& b) {
  return a.name == b.name && a.capacity == b.capacity && a.gpu_count == b.gpu_count && a.gpu_model == b.gpu_model;
}

// Whether two versions of a pod hold the same capacity in the same place for the same queue and gang.
bool SameHolding(const PodRecord& a, const PodRecord& b) {
  return a.node == b.node && a.planned_node == b.planned_node && a.terminal == b.terminal && a.queue == b.queue &&
         a.gang == b.gang && a.request.host == b.request.host && a.request.gpu_count == b.request.gpu_count &&
         a.request.gpu_milli == b.request.gpu_milli && a.request_error == b.request_error;
}

template <typename T, typename V>
void EraseValue(std::vector<T>& v, const V& value) {
  auto it = std::find(v.begin(), v.end(), value);
  if (it != v.end()) {
    *it = std::move(v.back());
    v.pop_back();
  }
}

}  // namespace

engine::NodeId StateView::FindNode(std::string_view name) const { return node_index_.Find(*cluster_, name); }

const PodRecord* StateView::FindPod(std::string_view uid) const {
  const PodId id = pod_index_.Find(uid);
  return id == kNoPod ? nullptr : pod_by_id_[id];
}

std::vector<const PodRecord*> StateView::FindPods(const std::vector<std::string_view>& uids) const {
  const std::vector<PodId> ids = pod_index_.FindMany(uids);
  std::vector<const PodRecord*> out(ids.size(), nullptr);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] != kNoPod) out[i] = pod_by_id_[ids[i]];
  }
  return out;
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
  return queue_resolver_.QueueOf(pod, NamespaceQueue(pod.namespace_));
}

std::string StateView::QueueOf(const PodRecord& pod) const {
  const bool governed = queue_resolver_.Governs(pod.scheduler_name, pod.admission_gated);
  return queue_resolver_.Charged(pod.queue_label, NamespaceQueue(pod.namespace_), governed);
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

const std::vector<PodId>& StateView::GangMembers(std::string_view gang) const {
  auto it = gangs_.find(gang);
  return it == gangs_.end() ? kNoMembers : it->second;
}

ClusterState::ClusterState(std::vector<std::string> topology_keys, ClusterScope scope)
    : topology_keys_(std::move(topology_keys)), scope_(std::move(scope)) {
  view_.cluster_ = std::make_unique<engine::Cluster>(topology_keys_);
}

int ClusterState::PoolIndexOf(const engine::NodeSpec& spec) const { return OwningPool(view_.pools_, spec); }

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
    const engine::NodeId id = v.FindNode(spec.name);
    if (SameSize(it->second, spec) && StaysInPlace(id, it->second, spec)) {
      UpdateInPlace(id, it->second, std::move(spec));
      return;
    }
    it->second = std::move(spec);
    Rebuild();
    return;
  }
  AddNodeLocked(std::move(spec));
}

// Labels, taints and cordon, each only when it changed (each bumps the node's version).
void ClusterState::UpdateInPlace(engine::NodeId id, engine::NodeSpec& known, engine::NodeSpec spec) {
  engine::Cluster& cluster = *view_.cluster_;
  if (known.labels != spec.labels) {
    known.labels = spec.labels;
    cluster.SetLabels(id, std::move(spec.labels));
  }
  if (!SameTaints(known.taints, spec.taints)) {
    known.taints = spec.taints;
    cluster.SetTaints(id, std::move(spec.taints));
  }
  if (known.unschedulable != spec.unschedulable) {
    known.unschedulable = spec.unschedulable;
    cluster.SetUnschedulable(id, spec.unschedulable);
  }
}

// The same owning pool and topology domains with the node's new labels: nothing is re-accounted. Most
// updates (heartbeats, taints) keep the labels, and then no pool selector need be asked.
bool ClusterState::StaysInPlace(engine::NodeId id, const engine::NodeSpec& known, const engine::NodeSpec& spec) const {
  const StateView& v = view_;
  if (id == engine::kNoNode) return false;
  if (known.labels == spec.labels) return true;
  return v.cluster_->topology().SamePath(id, spec.labels) && v.node_pool_[id] == PoolIndexOf(spec);
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
      it = ErasePod(it);
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
  UpsertPodLocked(std::move(record));
  RetryShortOfRoom();
}

void ClusterState::UpsertPodLocked(PodRecord record) {
  auto it = view_.pods_.find(record.uid);
  if (it != view_.pods_.end()) CarryAssumption(it->second, record);
  if (scope_.held_pods_only && (!record.ShouldHold() || Foreign(record.HoldingNode()))) {
    // Not (or no longer) holding capacity here: not this state's pod.
    if (it != view_.pods_.end()) {
      Unaccount(it->second);
      RemoveGangMember(it->second);
      ErasePod(it);
    }
    return;
  }
  record.queue = view_.QueueOf(record);
  if (it != view_.pods_.end()) {
    PodRecord& old = it->second;
    if (SameHolding(old, record)) {
      old.priority = record.priority;
      old.queue_label = std::move(record.queue_label);  // Same queue now; the namespace's may apply later.
      old.scheduler_name = std::move(record.scheduler_name);
      old.admission_gated = record.admission_gated;
      old.request = std::move(record.request);  // Selectors, tolerations and models may change freely.
      old.assumed = record.assumed;
      return;
    }
    Unaccount(old);
    RemoveGangMember(old);
    record.id = old.id;
    old = std::move(record);
    AddGangMember(old);
    Account(old);
    return;
  }
  PodRecord& added = AddPod(std::move(record));
  AddGangMember(added);
  Account(added);
}

// An informer update of a pod the cache assumed bound: while it still shows the pod unbound, the
// assumption stands (the informer has not caught up); once it shows a binding or the pod's end, the
// informer's word replaces it.
void ClusterState::CarryAssumption(const PodRecord& cached, PodRecord& incoming) {
  if (!cached.assumed) return;
  if (incoming.node.empty() && !incoming.terminal) {
    incoming.node = cached.node;
    incoming.assumed = cached.assumed;
    incoming.assumed->informer_saw_pod = true;
    return;
  }
  view_.assumed_.erase(cached.uid);
  assumed_count_.store(view_.assumed_.size(), std::memory_order_relaxed);
}

PodRecord& ClusterState::AddPod(PodRecord record) {
  StateView& v = view_;
  if (v.free_pod_ids_.empty()) {
    record.id = static_cast<PodId>(v.pod_by_id_.size());
    v.pod_by_id_.push_back(nullptr);
    v.placement_by_id_.emplace_back();
  } else {
    record.id = v.free_pod_ids_.back();
    v.free_pod_ids_.pop_back();
  }
  const std::uint64_t hash = PodIndex::Hash(record.uid);
  PodRecord& added = v.pods_.emplace(record.uid, std::move(record)).first->second;
  v.pod_by_id_[added.id] = &added;
  SyncPlacement(added);
  v.pod_index_.Insert(hash, added.id);
  return added;
}

StringMap<PodRecord>::iterator ClusterState::ErasePod(StringMap<PodRecord>::iterator it) {
  StateView& v = view_;
  const PodRecord& pod = it->second;
  v.pod_index_.Erase(PodIndex::Hash(pod.uid), pod.id);
  v.pod_by_id_[pod.id] = nullptr;
  v.placement_by_id_[pod.id] = {};
  v.free_pod_ids_.push_back(pod.id);
  if (pod.assumed && v.assumed_.erase(pod.uid) > 0) {
    assumed_count_.store(v.assumed_.size(), std::memory_order_relaxed);
  }
  return v.pods_.erase(it);
}

void ClusterState::DeletePod(std::string_view uid) {
  WriteLock lock(*this);
  auto it = view_.pods_.find(uid);
  if (it == view_.pods_.end()) return;
  Unaccount(it->second);
  RemoveGangMember(it->second);
  ErasePod(it);
  RetryShortOfRoom();
}

bool ClusterState::AssumeBound(std::string_view uid, std::string_view node) {
  WriteLock lock(*this);
  auto it = view_.pods_.find(uid);
  const bool assumed = it != view_.pods_.end() && AssumeLocked(it->second, node, true);
  RetryShortOfRoom();
  return assumed;
}

bool ClusterState::AssumeBound(const PodInfo& pod, std::string_view node) {
  if (pod.uid.empty()) return false;
  PodRecord record = MakeRecord(pod);
  WriteLock lock(*this);
  if (auto it = view_.pods_.find(record.uid); it != view_.pods_.end()) {
    const bool assumed = AssumeLocked(it->second, node, true);
    RetryShortOfRoom();
    return assumed;
  }
  // Created and bound within the informer's lag: cached from the binder's copy until the informer
  // reports it (or the assumption expires).
  if (!record.node.empty() || record.terminal) return false;
  if (scope_.held_pods_only && Foreign(node)) return false;
  record.queue = view_.QueueOf(record);
  PodRecord& added = AddPod(std::move(record));
  AddGangMember(added);
  return AssumeLocked(added, node, false);  // A new pod released nothing: no room to retry.
}

bool ClusterState::AssumeLocked(PodRecord& pod, std::string_view node, bool informer_saw_pod) {
  if (!pod.node.empty()) return pod.node == node;
  if (pod.terminal) return false;
  Unaccount(pod);
  pod.node = std::string(node);
  Account(pod);
  const auto now = std::chrono::steady_clock::now();
  const auto expires = assume_ttl_ <= std::chrono::steady_clock::duration::zero() ? std::chrono::steady_clock::time_point::max()
                                                                                  : now + assume_ttl_;
  pod.assumed = Assumption{expires, informer_saw_pod};
  view_.assumed_.insert(pod.uid);
  assumed_count_.store(view_.assumed_.size(), std::memory_order_relaxed);
  return true;
}

void ClusterState::SetAssumedPodTtl(std::chrono::steady_clock::duration ttl) {
  WriteLock lock(*this);
  assume_ttl_ = ttl;
}

std::vector<ExpiredAssumption> ClusterState::ExpireAssumed(std::chrono::steady_clock::time_point now) {
  std::vector<ExpiredAssumption> expired;
  if (assumed_count_.load(std::memory_order_relaxed) == 0) return expired;  // No lock when none.
  WriteLock lock(*this);
  StateView& v = view_;
  for (auto uid = v.assumed_.begin(); uid != v.assumed_.end();) {
    auto it = v.pods_.find(*uid);
    if (it == v.pods_.end() || !it->second.assumed) {  // Not expected: the set follows the records.
      uid = v.assumed_.erase(uid);
      continue;
    }
    PodRecord& pod = it->second;
    if (pod.assumed->expires > now) {
      ++uid;
      continue;
    }
    expired.push_back({pod.uid, pod.namespace_ + "/" + pod.name, pod.node, pod.assumed->informer_saw_pod});
    uid = v.assumed_.erase(uid);
    Unaccount(pod);
    if (pod.assumed->informer_saw_pod) {
      pod.node.clear();  // Back to what the informer reported: not bound (a reservation may hold again).
      pod.assumed.reset();
      Account(pod);
    } else {
      pod.assumed.reset();
      RemoveGangMember(pod);
      ErasePod(it);
    }
  }
  assumed_count_.store(v.assumed_.size(), std::memory_order_relaxed);
  RetryShortOfRoom();
  return expired;
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
    if (pod.namespace_ == namespace_) ChargeQueue(pod, v.QueueOf(pod));
  }
}

void ClusterState::SetQueueRules(QueueResolver rules) {
  WriteLock lock(*this);
  StateView& v = view_;
  v.queue_resolver_ = std::move(rules);
  for (auto& [uid, pod] : v.pods_) ChargeQueue(pod, v.QueueOf(pod));  // Once, at start-up: no index needed.
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
  v.short_of_room_.clear();
  freed_nodes_.clear();
  v.queue_usage_milli_.clear();
  v.reservations_ = 0;
  v.unaccounted_ = 0;
  for (auto& [uid, pod] : v.pods_) {
    pod.allocation.reset();
    pod.problem.clear();
    pod.foreign = false;
  }
  // Bound pods first: they hold what they hold; reservations get what is left.
  for (auto& [uid, pod] : v.pods_) {
    if (!pod.node.empty()) Account(pod);
  }
  for (auto& [uid, pod] : v.pods_) {
    if (pod.node.empty()) Account(pod);
  }
}

void ClusterState::Account(PodRecord& pod) {
  Hold(pod);
  SyncPlacement(pod);
}

void ClusterState::Unaccount(PodRecord& pod) {
  Release(pod);
  SyncPlacement(pod);
}

void ClusterState::Hold(PodRecord& pod) {
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
    v.short_of_room_[node_name].push_back(pod.uid);
    ++v.unaccounted_;
    return;
  }
  engine::Allocation allocation = engine::MakeAllocation(id, pod.request, std::move(gpus));
  if (std::string why = v.cluster_->CheckAssign(allocation); !why.empty()) {
    pod.problem = why;
    v.short_of_room_[node_name].push_back(pod.uid);
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

void ClusterState::Release(PodRecord& pod) {
  StateView& v = view_;
  if (!pod.allocation) {
    if (pod.ShouldHold() && !pod.foreign) {
      --v.unaccounted_;
      for (auto* waiting : {&v.waiting_for_node_, &v.short_of_room_}) {
        if (auto w = waiting->find(pod.HoldingNode()); w != waiting->end()) {
          EraseValue(w->second, pod.uid);
          if (w->second.empty()) waiting->erase(w);
        }
      }
    }
    pod.problem.clear();
    pod.foreign = false;
    return;
  }
  const engine::NodeId id = pod.allocation->node;
  v.cluster_->Release(*pod.allocation);
  if (v.short_of_room_.count(pod.HoldingNode()) > 0) freed_nodes_.push_back(pod.HoldingNode());
  EraseValue(v.pods_on_node_[id], pod.uid);
  AddUsage(pod, -1);
  if (pod.IsReservation()) {
    --v.reservations_;
    v.reserved_gpu_milli_[id] -= pod.GpuMilli();
    if (pod.request.WantsGpu() && !pod.request.IsSharing()) v.reserved_whole_gpus_[id] -= pod.request.gpu_count;
  }
  pod.allocation.reset();
}

void ClusterState::RetryShortOfRoom() {
  StateView& v = view_;
  while (!freed_nodes_.empty()) {
    const std::string node = std::move(freed_nodes_.back());
    freed_nodes_.pop_back();
    auto w = v.short_of_room_.find(node);
    if (w == v.short_of_room_.end()) continue;
    std::vector<std::string> uids = std::move(w->second);
    v.short_of_room_.erase(w);
    // As in Rebuild: bound pods hold what they hold; reservations get what is left, and nothing while
    // a bound pod there still lacks room (a plan never takes room a running pod is owed).
    std::stable_partition(uids.begin(), uids.end(), [&](const std::string& uid) {
      auto p = v.pods_.find(uid);
      return p != v.pods_.end() && !p->second.node.empty();
    });
    bool bound_pod_waits = false;
    for (const std::string& uid : uids) {
      auto p = v.pods_.find(uid);
      if (p == v.pods_.end() || p->second.allocation) continue;
      PodRecord& pod = p->second;
      if (pod.node.empty() && bound_pod_waits) {
        v.short_of_room_[node].push_back(uid);
        continue;
      }
      --v.unaccounted_;  // Account() counts it again if there is still no room.
      pod.problem.clear();
      Account(pod);
      bound_pod_waits = bound_pod_waits || (!pod.node.empty() && !pod.allocation);
    }
  }
}

void ClusterState::AddGangMember(PodRecord& pod) {
  if (pod.gang.empty()) return;
  std::vector<PodId>& members = view_.gangs_[pod.gang];
  members.push_back(pod.id);
  pod.gang_members = &members;  // Map values stay where they are until erased.
  SyncPlacement(pod);
}

void ClusterState::RemoveGangMember(PodRecord& pod) {
  pod.gang_members = nullptr;
  SyncPlacement(pod);
  if (pod.gang.empty()) return;
  auto it = view_.gangs_.find(pod.gang);
  if (it == view_.gangs_.end()) return;
  EraseValue(it->second, pod.id);
  if (it->second.empty()) view_.gangs_.erase(it);
}

}  // namespace gangplank::cache
