// Node name -> engine node id, as a flat open-addressing table: the filter verb looks up every
// candidate name (up to 5,000 per call), and a node-based hash map costs a cache miss per bucket and
// per node on top of the one for the node itself. Entries hold the full 64-bit hash; the name is
// confirmed against the node's spec, which the caller touches next anyway.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "engine/cluster.h"

namespace gangplank::cache {

class NodeIndex {
 public:
  void Clear() { slots_.clear(), size_ = 0; }
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
  };
  static std::uint64_t Hash(std::string_view s) { return std::hash<std::string_view>{}(s); }
  void Grow(const engine::Cluster& cluster);

  std::vector<Slot> slots_;  // Size is zero or a power of two, at most half full.
  size_t size_ = 0;
};

}  // namespace gangplank::cache
