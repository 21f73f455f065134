#include "cache/state/node_index.h"

#include <algorithm>

namespace gangplank::cache {

void NodeIndex::Insert(const engine::Cluster& cluster, engine::NodeId id) {
  const std::string& name = cluster.spec(id).name;
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  if (name_at_.size() <= static_cast<size_t>(id)) name_at_.resize(static_cast<size_t>(id) + 1, 0);
  name_at_[static_cast<size_t>(id)] = static_cast<std::uint32_t>(names_.size());
  const auto size = static_cast<std::uint16_t>(std::min<size_t>(name.size(), 0xffff));  // Kubernetes: <= 253.
  names_.append(reinterpret_cast<const char*>(&size), sizeof size);
  names_.append(name, 0, size);
  Place(cluster.summary(id).name_hash, id);  // name_hash is Hash() of the name.
  ++size_;
}

void NodeIndex::Place(std::uint64_t hash, engine::NodeId id) {
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].id != engine::kNoNode) i = (i + 1) & mask;
  slots_[i] = {Tag(hash), id};
}

engine::NodeId NodeIndex::Probe(std::uint64_t hash, std::string_view name) const {
  const size_t mask = slots_.size() - 1;
  const std::uint32_t tag = Tag(hash);
  for (size_t i = hash & mask; slots_[i].id != engine::kNoNode; i = (i + 1) & mask) {
    if (Matches(slots_[i], tag, name)) return slots_[i].id;
  }
  return engine::kNoNode;
}

engine::NodeId NodeIndex::Find(const engine::Cluster& /*cluster*/, std::string_view name) const {
  return slots_.empty() ? engine::kNoNode : Probe(Hash(name), name);
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
        __builtin_prefetch(names_.data() + name_at_[static_cast<size_t>(next.id)]);
        __builtin_prefetch(&cluster.summary(next.id));  // What the caller reads next.
      }
    }
    ids[i] = Probe(hashes[i], names[i]);
  }
  return ids;
}

void NodeIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  for (const Slot& s : old) {
    if (s.id == engine::kNoNode) continue;
    Place(Hash(NameOf(s.id)), s.id);  // Slots keep half the hash: the rest is worked out again.
  }
}

}  // namespace gangplank::cache
