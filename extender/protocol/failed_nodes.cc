#include "extender/protocol/failed_nodes.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace gangplank::extender {

namespace {

// The first eight bytes of a name as a big-endian number, zero-padded: comparing two keys orders the
// names as comparing the names would, except that equal keys need the full comparison. Sorting a
// thousand rejected names mostly by one integer compare beats a memcmp call per comparison.
std::uint64_t PrefixKey(std::string_view name) {
  std::uint64_t key = 0;
  const size_t n = std::min<size_t>(name.size(), 8);
  for (size_t i = 0; i < n; ++i) key |= static_cast<std::uint64_t>(static_cast<unsigned char>(name[i])) << (56 - 8 * i);
  return key;
}

}  // namespace

std::vector<const FailedNodesMap::Entry*> FailedNodesMap::Sorted() const {
  std::vector<std::pair<std::uint64_t, const Entry*>> keyed;
  keyed.reserve(entries_.size());
  for (const Entry& entry : entries_) keyed.emplace_back(PrefixKey(entry.first), &entry);
  // Stable, so among repeats of a node the last given stays last and is the one kept below.
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second->first < b.second->first;
  });
  std::vector<const Entry*> sorted;
  sorted.reserve(keyed.size());
  for (const auto& [key, entry] : keyed) {
    if (!sorted.empty() && sorted.back()->first == entry->first) sorted.back() = entry;
    else sorted.push_back(entry);
  }
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
