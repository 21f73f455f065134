#include "operator/status/queue_status.h"

#include <cmath>

#include "operator/reasons.h"

namespace gangplank::op {
namespace {

double Milli(double v) { return std::round(v * 1000) / 1000; }

nlohmann::json PoolEntry(const std::string& pool, const QueueFigures& f, const cache::PoolQuota* quota) {
  nlohmann::json entry{{"name", pool},
                       {"usedGPUs", Milli(f.used)},
                       {"fairShareGPUs", Milli(f.fair_share)},
                       {"pendingGangs", f.pending},
                       {"oldestPendingSeconds", std::round(f.oldest_pending_seconds)},
                       {"usedGPUHours", Milli(f.used_gpu_hours)}};
  if (f.decayed_usage >= 0) entry["decayedUsageGPUs"] = Milli(f.decayed_usage);
  if (quota != nullptr) {
    entry["guaranteedGPUs"] = quota->guaranteed_gpus;
    if (quota->limit_gpus) entry["limitGPUs"] = *quota->limit_gpus;
  }
  return entry;
}

nlohmann::json Totals(const nlohmann::json& pools_of_queue) {
  double used = 0;
  double fair = 0;
  int pending = 0;
  double hours = 0;
  for (const auto& p : pools_of_queue) {
    hours += p.value("usedGPUHours", 0.0);
    used += p["usedGPUs"].get<double>();
    fair += p["fairShareGPUs"].get<double>();
    pending += p["pendingGangs"].get<int>();
  }
  return {{"usedGPUs", Milli(used)},       {"fairShareGPUs", Milli(fair)}, {"usedGPUHours", Milli(hours)},
          {"pendingGangs", pending},       {"pools", pools_of_queue}};
}

}  // namespace

std::map<std::string, QueueStatus> QueueStatuses(const QueueTree& tree,
                                                 const std::map<std::string, std::shared_ptr<PoolModel>>& pools) {
  std::map<std::string, nlohmann::json> per_queue;
  for (const auto& [name, q] : tree.queues) per_queue[name] = nlohmann::json::array();
  for (const auto& [pool, model] : pools) {
    std::lock_guard round(model->round_mutex);
    for (const auto& [queue, f] : model->queue_figures) {
      auto it = tree.queues.find(queue);
      per_queue[queue].push_back(PoolEntry(pool, f, it == tree.queues.end() ? nullptr : it->second.QuotaIn(pool)));
    }
  }
  std::map<std::string, QueueStatus> out;
  for (const auto& [name, pools_of_queue] : per_queue) {
    const bool inner = tree.inner.count(name) > 0;
    out[name] = {Totals(pools_of_queue),
                 inner ? ConditionWrite{"Ready", "True", reasons::kInnerQueue, "divides its share among its child queues"}
                       : ConditionWrite{"Ready", "True", reasons::kReady, "admitting gangs"}};
  }
  for (const auto& [name, problem] : tree.problems) {
    out[name] = {nlohmann::json{{"pools", nlohmann::json::array()}},
                 ConditionWrite{"Ready", "False", problem.reason, problem.message}};
  }
  return out;
}

void QueueStatusWriter::Write(const QueueTree& tree, const std::map<std::string, std::shared_ptr<PoolModel>>& pools) {
  for (auto& [name, status] : QueueStatuses(tree, pools)) {
    const std::string text = status.fields.dump() + status.ready.status + status.ready.reason + status.ready.message;
    {
      std::lock_guard lock(mu_);
      if (written_[name] == text) continue;
    }
    if (writer_.WriteStatus("queues", name, status.fields, {status.ready})) {
      std::lock_guard lock(mu_);
      written_[name] = text;
    }
  }
}

}  // namespace gangplank::op
