#include "operator/model/pool_routing.h"
#include "operator/reasons.h"

namespace gangplank::op {
namespace {

// A pod selector agrees with a pool when no label both name takes different values.
bool Agrees(const cache::PoolConfig& pool, const std::map<std::string, std::string>& node_selector) {
  for (const auto& [key, value] : pool.node_selector) {
    auto it = node_selector.find(key);
    if (it != node_selector.end() && it->second != value) return false;
  }
  return true;
}

bool QueueMayUse(const QueueTree& tree, const std::string& queue, const std::string& pool) {
  const auto path = tree.PathOf(queue);
  if (path.empty()) return true;  // Unknown queue: CheckQueue reports it once the pool is known.
  for (const cache::QueueConfig* q : path) {
    if (q->QuotaIn(pool) == nullptr) return false;
  }
  return true;
}

}  // namespace

PoolChoice ChoosePool(const std::vector<cache::PoolConfig>& pools, const QueueTree& tree, const std::string& queue,
                      const std::string& pool_label, const std::map<std::string, std::string>& node_selector) {
  if (!pool_label.empty()) {
    for (const cache::PoolConfig& p : pools) {
      if (p.name == pool_label) return {p.name, "", ""};
    }
    return {"", reasons::kPoolNotFound, "GPU pool " + pool_label + " (label gangplank.io/pool) does not exist"};
  }
  std::vector<std::string> fits;
  for (const cache::PoolConfig& p : pools) {
    if (QueueMayUse(tree, queue, p.name) && Agrees(p, node_selector)) fits.push_back(p.name);
  }
  if (fits.size() == 1) return {fits.front(), "", ""};
  if (fits.empty()) {
    if (pools.empty()) return {"", reasons::kNoPool, "no GPUPool exists"};
    return {"", reasons::kNoPool, "no GPU pool takes it: " + (queue.empty() ? std::string("no queue") : "queue " + queue) +
                              " may use none whose node selector agrees with the pods'"};
  }
  std::string names;
  for (const std::string& n : fits) names += (names.empty() ? "" : ", ") + n;
  return {"", "AmbiguousPool", "GPU pools " + names + " could all take it; choose one with the label gangplank.io/pool"};
}

}  // namespace gangplank::op
