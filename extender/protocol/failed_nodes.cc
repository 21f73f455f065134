#include "extender/protocol/failed_nodes.h"

#include <algorithm>
#include <stdexcept>

#include "engine/short_string_hash.h"

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

// How many of the latest distinct reasons a new one is compared with before it is stored: the reasons
// of one call repeat in runs of a few kinds, and a miss only costs a copy.
constexpr size_t kRecentReasons = 8;

}  // namespace

FailedNodesMap::FailedNodesMap(std::initializer_list<std::pair<std::string_view, std::string_view>> entries) {
  for (const auto& [node, reason] : entries) insert_or_assign(node, reason);
}

FailedNodesMap::FailedNodesMap(const FailedNodesMap& other)
    : entries_(other.entries_), reasons_(other.reasons_), reason_hash_(other.reason_hash_) {
  for (Entry& e : entries_) e.second = reasons_[e.reason];  // View this map's copies.
}

FailedNodesMap& FailedNodesMap::operator=(const FailedNodesMap& other) {
  if (this != &other) *this = FailedNodesMap(other);
  return *this;
}

std::uint32_t FailedNodesMap::ReasonId(std::string_view reason) {
  const size_t n = reasons_.size();
  const std::uint64_t hash = engine::ShortStringHash(reason);
  for (size_t i = n; i > 0 && i + kRecentReasons > n; --i) {
    if (reason_hash_[i - 1] == hash && reasons_[i - 1] == reason) return static_cast<std::uint32_t>(i - 1);
  }
  reasons_.emplace_back(reason);
  reason_hash_.push_back(hash);
  return static_cast<std::uint32_t>(n);
}

void FailedNodesMap::insert_or_assign(std::string_view node, std::string_view reason) {
  const std::uint32_t id = ReasonId(reason);
  entries_.push_back(Entry{node, reasons_[id], id});
}

std::vector<const FailedNodesMap::Entry*> FailedNodesMap::Sorted() const {
  struct Keyed {
    std::uint64_t key;
    std::uint32_t index;  // Into entries_: ties keep insertion order, so the last given stays last.
  };
  std::vector<Keyed> keyed(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) keyed[i] = {PrefixKey(entries_[i].first), static_cast<std::uint32_t>(i)};
  std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
    if (a.key != b.key) return a.key < b.key;
    const std::string_view x = entries_[a.index].first, y = entries_[b.index].first;
    return x != y ? x < y : a.index < b.index;
  });
  std::vector<const Entry*> sorted;
  sorted.reserve(keyed.size());
  for (const Keyed& k : keyed) {
    const Entry* entry = &entries_[k.index];
    if (!sorted.empty() && sorted.back()->first == entry->first) sorted.back() = entry;
    else sorted.push_back(entry);
  }
  return sorted;
}

const std::string* FailedNodesMap::Find(std::string_view node) const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->first == node) return &reasons_[it->reason];
  }
  return nullptr;
}

const std::string& FailedNodesMap::at(std::string_view node) const {
  const std::string* reason = Find(node);
  if (reason == nullptr) throw std::out_of_range("FailedNodesMap: no entry for node " + std::string(node));
  return *reason;
}

std::size_t FailedNodesMap::encoded_size_hint() const {
  std::size_t n = 0;
  for (const Entry& e : entries_) n += e.first.size() + e.second.size() + 6;  // Quotes, colon, comma.
  return n;
}

}  // namespace gangplank::extender
