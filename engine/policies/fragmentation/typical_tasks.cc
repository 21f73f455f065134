#include "engine/policies/fragmentation/typical_tasks.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gangplank::engine::policies {

std::vector<TaskType> TypicalTasks(const std::vector<PodRequest>& pods, const TypicalTaskOptions& options) {
  using Key = std::tuple<std::int64_t, int, MilliGpu, std::vector<std::string>>;
  struct Tally {
    double weight = 0;
    double memory_sum = 0;
    int pods = 0;
  };
  std::map<Key, Tally> tallies;  // Ordered, so equal weights keep a deterministic order below.
  double total = 0;
  for (const PodRequest& p : pods) {
    const bool gpu = p.WantsGpu();
    if (!gpu && !options.include_cpu_only) continue;
    std::vector<std::string> models = gpu ? p.gpu_models : std::vector<std::string>{};
    std::sort(models.begin(), models.end());
    Key key{p.host.cpu_milli, gpu ? p.gpu_count : 0, gpu ? p.gpu_milli : 0, std::move(models)};
    double w = 1;
    if (gpu && !p.IsSharing()) w += p.gpu_count * options.whole_gpu_bonus;
    if (options.weighting == TaskWeighting::kGpuDemand) {
      w = gpu ? static_cast<double>(p.TotalGpuMilli()) / kMilliPerGpu : 0.1;
    }
    Tally& t = tallies[key];
    t.weight += w;
    t.memory_sum += static_cast<double>(p.host.memory_mib);
    ++t.pods;
    total += w;
  }
  std::vector<TaskType> types;
  for (auto& [key, t] : tallies) {
    TaskType type;
    std::tie(type.cpu_milli, type.gpu_count, type.gpu_milli, type.gpu_models) = key;
    type.memory_mib = static_cast<std::int64_t>(t.memory_sum / t.pods);
    type.weight = t.weight;
    types.push_back(std::move(type));
  }
  std::stable_sort(types.begin(), types.end(), [](const TaskType& a, const TaskType& b) { return a.weight > b.weight; });
  double covered = 0;
  size_t keep = 0;
  while (keep < types.size() && covered < options.coverage * total) covered += types[keep++].weight;
  types.resize(keep);
  for (TaskType& t : types) t.weight /= covered;
  return types;
}

}  // namespace gangplank::engine::policies
