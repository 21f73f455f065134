#include "operator/model/ungoverned_entry.h"

namespace gangplank::op {

std::optional<engine::RunningGang> BuildUngovernedEntry(const std::string& key, const std::string& queue,
                                                        const std::vector<std::string>& uids,
                                                        const cache::StateView& view, double start) {
  engine::RunningGang entry;
  entry.name = key;
  entry.queue = queue;
  entry.start = start;
  entry.admitted_at = start;
  entry.ungoverned = true;
  for (const std::string& uid : uids) {
    const cache::PodRecord* pod = view.FindPod(uid);
    // Held here: bound on one of this pool's nodes (pods on other pools' nodes are not this state's).
    if (pod == nullptr || !pod->allocation || pod->foreign || pod->GpuMilli() == 0) continue;
    entry.allocations.push_back(*pod->allocation);
  }
  if (entry.allocations.empty()) return std::nullopt;
  return entry;
}

}  // namespace gangplank::op
