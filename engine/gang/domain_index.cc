#include "engine/gang/domain_index.h"

#include <algorithm>

namespace gangplank::engine {

DomainIndex::DomainIndex(const Cluster& cluster, const std::vector<char>& counted)
    : topology_(cluster.topology()), counted_(counted) {
  counted_.resize(static_cast<size_t>(cluster.size()), 0);
  int max_gpus = 0;
  for (NodeId n = 0; n < cluster.size(); ++n) max_gpus = std::max(max_gpus, cluster.spec(n).gpu_count);
  width_ = max_gpus + 1;
  const size_t slots = static_cast<size_t>(topology_.domain_count()) + 1;
  free_.assign(slots, 0);
  total_.assign(slots, 0);
  nodes_.assign(slots, 0);
  hist_.assign(slots * static_cast<size_t>(width_), 0);
  for (NodeId n = 0; n < cluster.size(); ++n) {
    if (!counted_[n]) continue;
    const int gpus = std::max(cluster.spec(n).gpu_count, 0);
    auto add_static = [&](DomainId d) {
      total_[Slot(d)] += gpus;
      ++nodes_[Slot(d)];
    };
    add_static(kNoDomain);
    for (DomainId d : topology_.path(n)) {
      if (d != kNoDomain) add_static(d);
    }
    Add(n, cluster.state(n).FullyFreeGpus(), +1);
  }
}

void DomainIndex::Add(NodeId node, int free, int delta) {
  free_[0] += delta * free;
  hist_[static_cast<size_t>(free)] += delta;
  for (DomainId d : topology_.path(node)) {
    if (d == kNoDomain) continue;
    free_[Slot(d)] += delta * free;
    hist_[Slot(d) * width_ + free] += delta;
  }
}

void DomainIndex::Update(NodeId node, int before, int after) {
  if (!counted_[node] || before == after) return;
  Add(node, before, -1);
  Add(node, after, +1);
}

int DomainIndex::SlotsFor(DomainId d, int size) const {
  if (size <= 0) return nodes(d);
  int slots = 0;
  const int* h = &hist_[Slot(d) * width_];
  for (int f = size; f < width_; ++f) slots += h[f] * (f / size);
  return slots;
}

bool DomainIndex::Holds(DomainId d, const std::vector<int>& sizes_desc) const {
  return HoldsPrefix(d, sizes_desc) == static_cast<int>(sizes_desc.size());
}

int DomainIndex::HoldsPrefix(DomainId d, const std::vector<int>& sizes_desc) const {
  // Walk the sizes in descending order; pod i (0-based) needs i+1 slots of at least its size (every
  // earlier pod is at least as large) and the running GPU sum must not exceed the free GPUs.
  const int n = static_cast<int>(sizes_desc.size());
  if (nodes(d) == 0) return 0;
  int sum = 0;
  int last_size = -1;
  int slots = 0;
  for (int i = 0; i < n; ++i) {
    const int size = sizes_desc[i];
    if (size >= width_) return i;
    sum += size;
    if (sum > free_gpus(d)) return i;
    if (size != last_size) {
      slots = SlotsFor(d, size);
      last_size = size;
    }
    if (size > 0 && i + 1 > slots) return i;
  }
  return n;
}

}  // namespace gangplank::engine
