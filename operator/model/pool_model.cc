#include "operator/model/pool_model.h"

#include <algorithm>

namespace gangplank::op {
namespace {

// Appends the ids of the nodes named that `view` still has (node ids change when the state is rebuilt).
void AppendNodeIds(const std::vector<std::string>& names, const cache::StateView& view, std::vector<engine::NodeId>& out) {
  for (const std::string& node : names) {
    if (const engine::NodeId id = view.FindNode(node); id != engine::kNoNode) out.push_back(id);
  }
}

}  // namespace

PoolModel::PoolModel(cache::PoolConfig config, std::function<bool(const engine::NodeSpec&)> owns_node)
    : config_(std::move(config)) {
  cache::ClusterScope scope;
  scope.selects_node = std::move(owns_node);
  scope.held_pods_only = true;
  state_ = std::make_unique<cache::ClusterState>(config_.topology_levels, std::move(scope));
  changes_.capacity_freed = true;  // The first round is a full one.
  changes_.queues_changed = true;
  changes_.nodes_changed = true;
  usage.ledger = engine::UsageLedger(UsageDecayFor(config_));
  runtimes.Configure(config_.admission.prediction);
}

void PoolModel::NoteGang(const std::string& key) {
  std::lock_guard lock(mu_);
  changes_.gangs.insert(key);
}

void PoolModel::NoteCapacityFreed() {
  std::lock_guard lock(mu_);
  changes_.capacity_freed = true;
}

void PoolModel::NoteQueuesChanged() {
  std::lock_guard lock(mu_);
  changes_.queues_changed = true;
}

void PoolModel::NoteRunningChanged() {
  std::lock_guard lock(mu_);
  changes_.running_changed = true;
}

void PoolModel::NoteNodesChanged() {
  std::lock_guard lock(mu_);
  changes_.nodes_changed = true;
  changes_.capacity_freed = true;  // What a node offers may have grown.
}

PoolChanges PoolModel::TakeChanges() {
  std::lock_guard lock(mu_);
  PoolChanges out = std::move(changes_);
  changes_ = PoolChanges{};
  return out;
}

bool PoolModel::HasChanges() const {
  std::lock_guard lock(mu_);
  return !changes_.gangs.empty() || changes_.capacity_freed || changes_.queues_changed || changes_.running_changed ||
         changes_.nodes_changed;
}

void PoolModel::ForgetStalePlaces(double now, const std::function<bool(const std::string&)>& gang_exists) {
  std::erase_if(requeued_arrivals, [&](const auto& entry) {
    return now - entry.second.evicted_at > kRequeuedPlaceSeconds && !gang_exists(entry.first);
  });
}

double PoolModel::SettleReturning(double now) {
  double earliest = 1e300;
  for (auto it = returning.begin(); it != returning.end();) {
    if (now >= it->second.until) {
      it = returning.erase(it);
    } else if (book.WaitingIndex(it->first) >= 0) {
      reservations[it->first] = Reservation{std::move(it->second.nodes), false};
      it = returning.erase(it);
    } else {
      earliest = std::min(earliest, it->second.until);
      ++it;
    }
  }
  return earliest;
}

std::vector<engine::NodeId> PoolModel::ReturningNodes(const cache::StateView& view) const {
  std::vector<engine::NodeId> out;
  for (const auto& [key, hold] : returning) AppendNodeIds(hold.nodes, view, out);
  return out;
}

std::vector<engine::HeldReservation> PoolModel::HeldReservations(const cache::StateView& view) const {
  std::vector<engine::HeldReservation> out;
  for (const auto& [key, r] : reservations) {
    engine::HeldReservation held{key, {}, r.for_reclaim};
    AppendNodeIds(r.nodes, view, held.nodes);
    if (!held.nodes.empty()) out.push_back(std::move(held));
  }
  return out;
}

}  // namespace gangplank::op
