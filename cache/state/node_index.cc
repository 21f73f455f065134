#include "cache/state/node_index.h"

#include "engine/short_string_equal.h"

namespace gangplank::cache {

void NodeIndex::Insert(const engine::Cluster& cluster, engine::NodeId id) {
  if ((size_ + 1) * 2 > slots_.size()) Grow(cluster);
  const std::uint64_t h = cluster.summary(id).name_hash;  // Hash() of the name, made when the node was added.
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  while (slots_[i].id != engine::kNoNode) i = (i + 1) & mask;
  slots_[i] = {h, id};
  ++size_;
}

engine::NodeId NodeIndex::Find(const engine::Cluster& cluster, std::string_view name) const {
  if (slots_.empty()) return engine::kNoNode;
  const std::uint64_t h = Hash(name);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask; slots_[i].id != engine::kNoNode; i = (i + 1) & mask) {
    if (slots_[i].hash == h && engine::ShortStringEqual(cluster.spec(slots_[i].id).name, name)) return slots_[i].id;
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
        const engine::NodeSpec& spec = cluster.spec(next.id);
        __builtin_prefetch(&spec);
        __builtin_prefetch(spec.name.data());
        __builtin_prefetch(&cluster.summary(next.id));  // What the caller reads next.
      }
    }
    const std::uint64_t h = hashes[i];
    for (size_t k = h & mask; slots_[k].id != engine::kNoNode; k = (k + 1) & mask) {
      if (slots_[k].hash == h && engine::ShortStringEqual(cluster.spec(slots_[k].id).name, names[i])) {
        ids[i] = slots_[k].id;
        break;
      }
    }
  }
  return ids;
}

void NodeIndex::Grow(const engine::Cluster& cluster) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  size_ = 0;
  for (const Slot& s : old) {
    if (s.id != engine::kNoNode) Insert(cluster, s.id);
  }
}

}  // namespace gangplank::cache
