// Node name -> engine node id, as a flat open-addressing table: the filter verb looks up every
// candidate name (up to 5,000 per call), and a node-based hash map costs a cache miss per bucket and
// per node on top of the one for the node itself. A slot is eight bytes (32 bits of the hash and the
// id), so the whole table for 5,000 nodes is 128 KB and stays in cache beside the node summaries the
// caller reads next. The name is confirmed against the index's own copy of the names, packed one
// after another (about 50 KB for 5,000 nodes).
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
  void Clear() {
    slots_.clear();
    names_.clear();
    name_at_.clear();
    size_ = 0;
  }
  // Adds a node already in `cluster` (names are unique there).
  void Insert(const engine::Cluster& cluster, engine::NodeId id);
  engine::NodeId Find(const engine::Cluster& cluster, std::string_view name) const;
  // Find for many names at once, prefetching ahead so the cache misses of consecutive lookups overlap
  // instead of queueing one after another.
  std::vector<engine::NodeId> FindMany(const engine::Cluster& cluster, const std::vector<std::string_view>& names) const;
  size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint32_t tag = 0;  // The hash's upper half; the lower half picked the slot.
    engine::NodeId id = engine::kNoNode;
  };
  static std::uint64_t Hash(std::string_view s) { return engine::ShortStringHash(s); }
  static std::uint32_t Tag(std::uint64_t hash) { return static_cast<std::uint32_t>(hash >> 32); }
  std::string_view NameOf(engine::NodeId id) const {
    const std::uint32_t offset = name_at_[static_cast<size_t>(id)];
    std::uint16_t size;
    std::memcpy(&size, names_.data() + offset, sizeof size);
    return {names_.data() + offset + sizeof size, size};
  }
  bool Matches(const Slot& slot, std::uint32_t tag, std::string_view name) const {
    return slot.tag == tag && engine::ShortStringEqual(NameOf(slot.id), name);
  }
  engine::NodeId Probe(std::uint64_t hash, std::string_view name) const;
  void Place(std::uint64_t hash, engine::NodeId id);
  void Grow();

  std::vector<Slot> slots_;            // Size is zero or a power of two, at most half full.
  std::string names_;                  // Each name as its 16-bit length and its characters (names are <= 253).
  std::vector<std::uint32_t> name_at_; // By node id: the offset of its name in names_.
  size_t size_ = 0;
};

}  // namespace gangplank::cache
