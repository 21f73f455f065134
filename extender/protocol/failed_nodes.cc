#include "extender/protocol/failed_nodes.h"

#include <algorithm>
#include <stdexcept>

namespace gangplank::extender {

std::vector<const FailedNodesMap::Entry*> FailedNodesMap::Sorted() const {
  std::vector<const Entry*> sorted;
  sorted.reserve(entries_.size());
  for (const Entry& entry : entries_) sorted.push_back(&entry);
  // Stable, so among repeats of a node the last given stays last and is the one kept below.
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) { return a->first < b->first; });
  size_t kept = 0;
  for (const Entry* entry : sorted) {
    if (kept > 0 && sorted[kept - 1]->first == entry->first) sorted[kept - 1] = entry;
    else sorted[kept++] = entry;
  }
  sorted.resize(kept);
  return sorted;
}

const std::string* FailedNodesMap::Find(std::string_view node) const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->first == node) return &it->second;
  }
  return nullptr;
}

const std::string& FailedNodesMap::at(std::string_view node) const {
  const std::string* reason = Find(node);
  if (reason == nullptr) throw std::out_of_range("FailedNodesMap: no entry for node " + std::string(node));
  return *reason;
}

}  // namespace gangplank::extender
