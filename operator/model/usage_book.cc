#include "operator/model/usage_book.h"

#include <cmath>
#include <map>
#include <vector>

namespace gangplank::op {

nlohmann::json UsageStatus(const engine::UsageLedger& ledger) {
  std::map<std::string, nlohmann::json> queues;
  for (const engine::UsageBucket& b : ledger.Buckets()) {
    nlohmann::json& q = queues[b.queue];
    if (q.is_null()) q = {{"name", b.queue}, {"starts", nlohmann::json::array()}, {"gpuSeconds", nlohmann::json::array()}};
    q["starts"].push_back(static_cast<std::int64_t>(std::llround(b.start)));
    q["gpuSeconds"].push_back(std::round(b.gpu_seconds * 1000) / 1000);
  }
  nlohmann::json list = nlohmann::json::array();
  for (auto& [name, q] : queues) list.push_back(std::move(q));
  return {{"bucketSeconds", ledger.config().bucket_seconds()}, {"queues", std::move(list)}};
}

void RestoreUsage(engine::UsageLedger& ledger, const nlohmann::json& status) {
  if (!status.is_object() || !status.contains("bucketSeconds") || !status["bucketSeconds"].is_number()) return;
  if (std::abs(status["bucketSeconds"].get<double>() - ledger.config().bucket_seconds()) > 1e-6) return;
  const nlohmann::json queues = status.value("queues", nlohmann::json::array());
  if (!queues.is_array()) return;
  std::vector<engine::UsageBucket> buckets;
  for (const nlohmann::json& q : queues) {
    if (!q.is_object() || !q.value("name", nlohmann::json()).is_string()) continue;
    const nlohmann::json starts = q.value("starts", nlohmann::json::array());
    const nlohmann::json seconds = q.value("gpuSeconds", nlohmann::json::array());
    if (!starts.is_array() || !seconds.is_array() || starts.size() != seconds.size()) continue;
    for (size_t i = 0; i < starts.size(); ++i) {
      if (!starts[i].is_number() || !seconds[i].is_number() || seconds[i].get<double>() < 0) continue;
      buckets.push_back({q["name"].get<std::string>(), starts[i].get<double>(), seconds[i].get<double>()});
    }
  }
  try {
    ledger.Restore(buckets);
  } catch (const std::exception&) {
    // A bucket the ledger refuses (a start off its grid): the pool starts its history afresh.
  }
}

}  // namespace gangplank::op
