#include "operator/model/queue_tree.h"
#include "operator/reasons.h"

#include <limits>

namespace gangplank::op {
namespace {

// Walks up from `name`; the problem with its ancestry, if any.
std::optional<QueueProblem> AncestryProblem(const std::map<std::string, cache::QueueConfig>& all, const std::string& name) {
  std::set<std::string> seen{name};
  std::string at = name;
  while (true) {
    const cache::QueueConfig& q = all.at(at);
    if (q.parent.empty()) return std::nullopt;
    if (!all.count(q.parent)) {
      if (at == name) return QueueProblem{"ParentNotFound", "parent queue " + q.parent + " does not exist"};
      return QueueProblem{"ParentInvalid", "ancestor queue " + at + " has parent " + q.parent + ", which does not exist"};
    }
    if (!seen.insert(q.parent).second) {
      return QueueProblem{"ParentCycle", "queue tree has a cycle through " + q.parent + " (parents: " + name + " -> ... -> " +
                                             at + " -> " + q.parent + ")"};
    }
    at = q.parent;
  }
}

}  // namespace

std::vector<const cache::QueueConfig*> QueueTree::PathOf(const std::string& queue) const {
  std::vector<const cache::QueueConfig*> path;
  for (auto it = queues.find(queue); it != queues.end(); it = queues.find(it->second.parent)) {
    path.push_back(&it->second);
    if (it->second.parent.empty()) break;
  }
  return path;
}

QueueTree BuildQueueTree(const std::vector<cache::QueueConfig>& queues) {
  std::map<std::string, cache::QueueConfig> all;
  for (const cache::QueueConfig& q : queues) all[q.name] = q;
  QueueTree tree;
  for (const auto& [name, q] : all) {
    if (auto problem = AncestryProblem(all, name)) {
      tree.problems[name] = *problem;
    } else {
      tree.queues[name] = q;
    }
  }
  for (const auto& [name, q] : tree.queues) {
    if (!q.parent.empty()) tree.inner.insert(q.parent);
  }
  return tree;
}

std::vector<engine::AdmissionQueue> QueuesForPool(const QueueTree& tree, const std::string& pool) {
  std::vector<engine::AdmissionQueue> out;
  for (const auto& [name, q] : tree.queues) {
    bool allowed = true;
    for (const cache::QueueConfig* at : tree.PathOf(name)) allowed = allowed && at->QuotaIn(pool) != nullptr;
    if (!allowed) continue;
    const cache::PoolQuota* quota = q.QuotaIn(pool);
    engine::AdmissionQueue a;
    a.name = name;
    a.parent = q.parent;
    a.weight = q.weight;
    a.guaranteed = quota->guaranteed_gpus;
    a.limit = quota->limit_gpus ? static_cast<double>(*quota->limit_gpus) : std::numeric_limits<double>::infinity();
    a.preempt_lower_priority = q.preempt_lower_priority;
    if (q.min_runtime_seconds) a.min_runtime_seconds = *q.min_runtime_seconds;
    out.push_back(std::move(a));
  }
  return out;
}

QueueVerdict CheckQueue(const QueueTree& tree, const std::string& queue, const std::string& pool) {
  if (queue.empty()) {
    return {reasons::kNoQueue, "names no queue: label the pod, or its namespace, with gangplank.io/queue"};
  }
  if (auto problem = tree.problems.find(queue); problem != tree.problems.end()) {
    return {reasons::kQueueInvalid, "queue " + queue + " is not usable: " + problem->second.message};
  }
  if (!tree.queues.count(queue)) return {reasons::kQueueNotFound, "queue " + queue + " does not exist"};
  if (tree.inner.count(queue)) {
    return {reasons::kQueueNotLeaf, "queue " + queue + " has child queues; pods must name a leaf queue"};
  }
  for (const cache::QueueConfig* at : tree.PathOf(queue)) {
    if (at->QuotaIn(pool) == nullptr) {
      return {reasons::kPoolNotAllowed, at->name == queue ? "queue " + queue + " may not use GPU pool " + pool
                                                   : "queue " + queue + " may not use GPU pool " + pool + " (its ancestor " +
                                                         at->name + " does not list it)"};
    }
  }
  return {};
}

}  // namespace gangplank::op
