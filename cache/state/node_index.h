// Node name -> engine node id, as a flat open-addressing table: the filter verb looks up every
// candidate name (up to 5,000 per call), and a node-based hash map costs a cache miss per bucket and
// per node on top of the one for the node itself. Entries hold the full 64-bit hash; the name is
// confirmed against the index's own copy of the names, packed one after another (about 50 KB for 5,000
// nodes, against 320 KB of node specs, so the copies mostly stay in cache between calls).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster.h"
#include "engine/short_string_equal.h"
#include "engine/short_string_hash.h"

namespace gangplank::cache {

class NodeIndex {
 public:
  void Clear() { slots_.clear(), names_.clear(), size_ = 0; }
  // Adds a node already in `cluster` (names are unique there).
  void Insert(const engine::Cluster& cluster, engine::NodeId id);
  engine::NodeId Find(const engine::Cluster& cluster, std::string_view name) const;
  // Find for many names at once, prefetching ahead so the cache misses of consecutive lookups overlap
  // instead of queueing one after another.
  std::vector<engine::NodeId> FindMany(const engine::Cluster& cluster, const std::vector<std::string_view>& names) const;
  size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    engine::NodeId id = engine::kNoNode;
    std::uint32_t name = 0;  // Offset of the name's length in names_.
  };
  static std::uint64_t Hash(std::string_view s) { return engine::ShortStringHash(s); }
  std::string_view NameAt(std::uint32_t offset) const {
    std::uint16_t size;
    std::memcpy(&size, names_.data() + offset, sizeof size);
    return {names_.data() + offset + sizeof size, size};
  }
  bool Matches(const Slot& slot, std::uint64_t hash, std::string_view name) const {
    return slot.hash == hash && engine::ShortStringEqual(NameAt(slot.name), name);
  }
  void Place(const Slot& slot);
  void Grow();

  std::vector<Slot> slots_;  // Size is zero or a power of two, at most half full.
  std::string names_;        // Each name as its 16-bit length and its characters (names are <= 253).
  size_t size_ = 0;
};

}  // namespace gangplank::cache
