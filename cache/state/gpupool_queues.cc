#include "cache/state/gpupool_queues.h"

#include <nlohmann/json.hpp>

#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

int NonNegativeInt(const nlohmann::json& j, const std::string& path) {
  if (!j.is_number_integer() || j.get<long long>() < 0 || j.get<long long>() > 1'000'000'000) {
    throw DecodeError(path, "expected a whole number of GPUs >= 0");
  }
  return static_cast<int>(j.get<long long>());
}

}  // namespace

// GPUPool objects are few and small and change rarely: nlohmann is plenty here.
std::vector<QueueConfig> QueuesOfGpuPool(std::string json) {
  const nlohmann::json pool = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (pool.is_discarded() || !pool.is_object()) throw DecodeError("", "GPUPool is not a JSON object");
  std::vector<QueueConfig> out;
  const auto spec = pool.find("spec");
  if (spec == pool.end() || !spec->is_object()) return out;
  const auto queues = spec->find("queues");
  if (queues == spec->end() || queues->is_null()) return out;
  if (!queues->is_array()) throw DecodeError("spec.queues", "expected an array");
  for (size_t i = 0; i < queues->size(); ++i) {
    const auto& q = (*queues)[i];
    const std::string at = "spec.queues[" + std::to_string(i) + "]";
    if (!q.is_object()) throw DecodeError(at, "expected an object");
    QueueConfig c;
    if (!q.contains("name") || !q["name"].is_string() || q["name"].get<std::string>().empty()) {
      throw DecodeError(at + ".name", "missing");
    }
    c.name = q["name"].get<std::string>();
    if (q.contains("guaranteedGPUs")) c.guaranteed_gpus = NonNegativeInt(q["guaranteedGPUs"], at + ".guaranteedGPUs");
    if (q.contains("limitGPUs") && !q["limitGPUs"].is_null()) c.limit_gpus = NonNegativeInt(q["limitGPUs"], at + ".limitGPUs");
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gangplank::cache
