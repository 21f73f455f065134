#include "operator/status/pool_status.h"

#include <cmath>
#include <cstdio>

#include "engine/gang/largest_gang.h"
#include "engine/resources.h"
#include "operator/reasons.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

double Round3(double v) { return std::round(v * 1000) / 1000; }

std::string Percent(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f%%", share * 100);
  return buffer;
}

std::string SelectorText(const cache::PoolConfig& pool) {
  std::string text;
  for (const auto& [k, v] : pool.node_selector) text += (text.empty() ? "" : ",") + k + "=" + v;
  if (text.empty()) text = "every node with GPUs";
  if (!pool.gpu_model.empty()) text += ", GPU model " + pool.gpu_model;
  return text;
}

}  // namespace

Json PoolStatusFields(const cache::StateView& view, const std::map<std::string, QueueFigures>& queues,
                      const PoolCounts& counts) {
  const engine::Cluster& cluster = view.cluster();
  const double capacity = static_cast<double>(cluster.total_gpu_milli()) / engine::kMilliPerGpu;
  const double allocated = static_cast<double>(cluster.allocated_gpu_milli()) / engine::kMilliPerGpu;
  Json largest = Json::array();
  int pool_largest = 0;
  for (const engine::LargestGang& g : engine::LargestPlaceableGangs(cluster)) {
    Json entry{{"level", g.level_key}, {"gpus", g.free_gpus}, {"nodes", g.free_nodes}};
    if (g.domain != engine::kNoDomain) entry["domain"] = cluster.topology().ValueOf(g.domain);
    if (g.level < 0) pool_largest = g.free_gpus;
    largest.push_back(std::move(entry));
  }
  Json queue_list = Json::array();
  for (const auto& [name, f] : queues) {
    queue_list.push_back({{"name", name}, {"usedGPUs", Round3(f.used)}, {"fairShareGPUs", Round3(f.fair_share)},
                          {"pendingGangs", f.pending}});
  }
  return Json{{"nodes", static_cast<int>(view.node_count())},
              {"capacityGPUs", cluster.total_gpus()},
              {"allocatedGPUs", Round3(allocated)},
              {"freeGPUs", Round3(capacity - allocated)},
              {"largestGangGPUs", pool_largest},
              {"largestGang", std::move(largest)},
              {"fragmentation", Percent(counts.fragmentation)},
              {"pendingGangs", counts.pending_gangs},
              {"runningGangs", counts.running_gangs},
              {"nodesUnderNotice", counts.nodes_under_notice},
              {"queues", std::move(queue_list)}};
}

ConditionWrite PoolReadyCondition(const cache::PoolConfig& pool, const PoolHealth& health) {
  if (health.nodes == 0) {
    return {"Ready", "False", reasons::kNoNodes, "the pool selects no nodes (" + SelectorText(pool) + ")"};
  }
  if (!health.shared_with.empty()) {
    std::string others;
    int shared = 0;
    for (const auto& [name, count] : health.shared_with) {
      others += (others.empty() ? "" : ", ") + name + " (" + std::to_string(count) + ")";
      shared += count;
    }
    return {"Ready", "False", reasons::kOverlappingPools,
            std::to_string(shared) + " of its " + std::to_string(health.nodes) + " nodes are also selected by " + others +
                "; shared nodes belong to no pool until the selectors are made disjoint"};
  }
  return {"Ready", "True", reasons::kReady, std::to_string(health.nodes) + " nodes (" + SelectorText(pool) + ")"};
}

}  // namespace gangplank::op
