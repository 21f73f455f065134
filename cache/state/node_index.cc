#include "cache/state/node_index.h"

#include <algorithm>

namespace gangplank::cache {

void NodeIndex::Insert(const engine::Cluster& cluster, engine::NodeId id) {
  const std::string& name = cluster.spec(id).name;
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  const auto offset = static_cast<std::uint32_t>(names_.size());
  const auto size = static_cast<std::uint16_t>(std::min<size_t>(name.size(), 0xffff));  // Kubernetes: <= 253.
  names_.append(reinterpret_cast<const char*>(&size), sizeof size);
  names_.append(name, 0, size);
  Place({cluster.summary(id).name_hash, id, offset});  // name_hash is Hash() of the name.
  ++size_;
}

void NodeIndex::Place(const Slot& slot) {
  const size_t mask = slots_.size() - 1;
  size_t i = slot.hash & mask;
  while (slots_[i].id != engine::kNoNode) i = (i + 1) & mask;
  slots_[i] = slot;
}

engine::NodeId NodeIndex::Find(const engine::Cluster& /*cluster*/, std::string_view name) const {
  if (slots_.empty()) return engine::kNoNode;
  const std::uint64_t h = Hash(name);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask; slots_[i].id != engine::kNoNode; i = (i + 1) & mask) {
    if (Matches(slots_[i], h, name)) return slots_[i].id;
  }
  return engine::kNoNode;
}

std::vector<engine::NodeId> NodeIndex::FindMany(const engine::Cluster& cluster,
                                                const std::vector<std::string_view>& names) const {
  std::vector<engine::NodeId> ids(names.size(), engine::kNoNode);
  if (slots_.empty()) return ids;
  constexpr size_t kAhead = 8;
  const size_t mask = slots_.size() - 1;
  std::vector<std::uint64_t> hashes(names.size());
  for (size_t i = 0; i < names.size(); ++i) hashes[i] = Hash(names[i]);
  for (size_t i = 0; i < names.size(); ++i) {
    if (i + kAhead < names.size()) __builtin_prefetch(&slots_[hashes[i + kAhead] & mask]);
    if (i + kAhead / 2 < names.size()) {
      const Slot& next = slots_[hashes[i + kAhead / 2] & mask];
      if (next.id != engine::kNoNode) {
        __builtin_prefetch(names_.data() + next.name);
        __builtin_prefetch(&cluster.summary(next.id));  // What the caller reads next.
      }
    }
    const std::uint64_t h = hashes[i];
    for (size_t k = h & mask; slots_[k].id != engine::kNoNode; k = (k + 1) & mask) {
      if (Matches(slots_[k], h, names[i])) {
        ids[i] = slots_[k].id;
        break;
      }
    }
  }
  return ids;
}

void NodeIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  for (const Slot& s : old) {
    if (s.id != engine::kNoNode) Place(s);
  }
}

}  // namespace gangplank::cache
