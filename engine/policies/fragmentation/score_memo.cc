#include "engine/policies/fragmentation/score_memo.h"

#include <algorithm>

#include "engine/short_string_equal.h"

namespace gangplank::engine::policies {

int ScoreMemo::ShapeId(const PodRequest& r) {
  // PlacePod asks about one request for every node in a row: compare against the last shape first.
  const auto& [cpu, mem, count, milli, models] = last_shape_;
  if (last_id_ >= 0 && cpu == r.host.cpu_milli && mem == r.host.memory_mib && count == r.gpu_count &&
      milli == r.gpu_milli &&
      std::equal(models.begin(), models.end(), r.gpu_models.begin(), r.gpu_models.end(),
                 [](const std::string& a, const std::string& b) { return ShortStringEqual(a, b); })) {
    return last_id_;
  }
  last_shape_ = Shape{r.host.cpu_milli, r.host.memory_mib, r.gpu_count, r.gpu_milli, r.gpu_models};
  auto [it, inserted] = shapes_.try_emplace(last_shape_, static_cast<int>(shapes_.size()));
  if (inserted) entries_.emplace_back();
  last_id_ = it->second;
  return last_id_;
}

std::vector<ScoreMemo::Entry>& ScoreMemo::Row(const Cluster& cluster, const PodRequest& request) {
  std::vector<Entry>& row = entries_[static_cast<size_t>(ShapeId(request))];
  if (row.size() < static_cast<size_t>(cluster.size())) row.resize(static_cast<size_t>(cluster.size()));
  return row;
}

ScoreMemo::Entry& ScoreMemo::Slot(const Cluster& cluster, NodeId node, const PodRequest& request) {
  return Row(cluster, request)[static_cast<size_t>(node)];
}

}  // namespace gangplank::engine::policies
