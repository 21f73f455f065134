#include "engine/policies/fragmentation/node_fragmentation.h"

#include <algorithm>
#include <array>

namespace gangplank::engine::policies {

FragmentationModel::FragmentationModel(std::vector<TaskType> tasks, const MeasureOptions& options)
    : tasks_(std::move(tasks)), options_(options) {
  double cpu = 0, gpu = 0;
  for (const TaskType& t : tasks_) {
    if (t.gpu_milli == 0) continue;
    cpu += t.weight * static_cast<double>(t.cpu_milli);
    gpu += t.weight * t.gpu_count * t.gpu_milli;
  }
  if (cpu > 0) gpu_milli_per_cpu_milli_ = gpu / cpu;
}

int FragmentationModel::ModelIndex(const std::string& gpu_model) {
  for (size_t i = 0; i < model_names_.size(); ++i) {
    if (model_names_[i] == gpu_model) return static_cast<int>(i);
  }
  model_names_.push_back(gpu_model);
  std::vector<char> ok(tasks_.size());
  for (size_t t = 0; t < tasks_.size(); ++t) {
    const auto& models = tasks_[t].gpu_models;
    ok[t] = models.empty() || std::binary_search(models.begin(), models.end(), gpu_model);
  }
  accessible_.push_back(std::move(ok));
  return static_cast<int>(model_names_.size()) - 1;
}

double FragmentationModel::Compute(const NodeView& node) const {
  MilliGpu total_free = 0;
  for (MilliGpu f : node.gpu_free) total_free += f;
  if (total_free == 0) return 0;
  const std::vector<char>& ok = accessible_.at(static_cast<size_t>(node.model));
  double frag = 0;
  for (size_t t = 0; t < tasks_.size(); ++t) {
    const TaskType& task = tasks_[t];
    if (!ok[t] && options_.usable_share_only) continue;
    const bool host_fits =
        node.cpu_free >= task.cpu_milli && (!options_.count_memory || node.memory_free >= task.memory_mib);
    if (task.gpu_milli == 0 || !ok[t] || !host_fits) {
      frag += task.weight * total_free;
      continue;
    }
    int fitting = 0;
    MilliGpu stranded = 0;
    for (MilliGpu f : node.gpu_free) {
      if (f >= task.gpu_milli) {
        ++fitting;
      } else {
        stranded += f;
      }
    }
    frag += task.weight * (fitting >= task.gpu_count ? stranded : total_free);
  }
  if (options_.cpu_stranding_weight > 0 && gpu_milli_per_cpu_milli_ > 0) {
    const double feedable = static_cast<double>(node.cpu_free) * gpu_milli_per_cpu_milli_;
    frag += options_.cpu_stranding_weight * std::max(0.0, total_free - feedable);
  }
  return frag;
}

bool FragmentationModel::Pack(const NodeView& node, bool with_memory, Key& key) {
  if (node.gpu_free.size() > 10) return false;
  std::array<MilliGpu, 10> sorted{};
  std::copy(node.gpu_free.begin(), node.gpu_free.end(), sorted.begin());
  std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(node.gpu_free.size()));
  key.cpu = node.cpu_free;
  key.memory = with_memory ? node.memory_free : 0;
  key.model = node.model;
  key.gpus = key.gpus_hi = 0;
  // 11 bits per GPU (0..1000 plus one more bit so an absent GPU differs from a full one).
  for (size_t i = 0; i < node.gpu_free.size(); ++i) {
    const std::uint64_t v = static_cast<std::uint64_t>(sorted[i]) + 1;
    if (i < 5) {
      key.gpus |= v << (11 * i);
    } else {
      key.gpus_hi |= v << (11 * (i - 5));
    }
  }
  return true;
}

size_t FragmentationModel::KeyHash::operator()(const Key& k) const {
  std::uint64_t h = k.gpus * 0x9e3779b97f4a7c15ULL;
  h ^= (k.gpus_hi + 0x7f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
  h ^= static_cast<std::uint64_t>(k.cpu) * 0x94d049bb133111ebULL;
  h ^= static_cast<std::uint64_t>(k.memory) * 0x2545f4914f6cdd1dULL + static_cast<std::uint64_t>(k.model);
  return static_cast<size_t>(h ^ (h >> 31));
}

double FragmentationModel::Cached(const NodeView& node) {
  Key key;
  if (!Pack(node, options_.count_memory, key)) return Compute(node);
  auto [it, inserted] = cache_.try_emplace(key, 0.0);
  if (inserted) it->second = Compute(node);
  return it->second;
}

}  // namespace gangplank::engine::policies
