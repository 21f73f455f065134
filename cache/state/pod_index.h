// Pod UID -> PodId, as a flat open-addressing table (like NodeIndex): preempt looks up every victim
// of hundreds of candidate nodes per call, and a node-based hash map costs a cache miss for the
// bucket, one for the node and the hashing of the key on each. Entries hold the full 64-bit hash; the
// UID is confirmed against the pod's record. FindMany prefetches ahead so consecutive look-ups overlap.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cache/state/pod_record.h"
#include "engine/short_string_hash.h"

namespace gangplank::cache {

class PodIndex {
 public:
  // Records by PodId, owned by the caller; the index reads their UIDs to confirm a match.
  explicit PodIndex(const std::vector<PodRecord*>& records) : records_(records) {}

  static std::uint64_t Hash(std::string_view uid) { return engine::ShortStringHash(uid); }
  // Adds a pod whose UID is not in the index yet.
  void Insert(std::uint64_t hash, PodId id);
  // Removes a pod that is in the index.
  void Erase(std::uint64_t hash, PodId id);
  PodId Find(std::string_view uid) const;
  // Find for many UIDs; kNoPod where a UID is unknown.
  std::vector<PodId> FindMany(const std::vector<std::string_view>& uids) const;
  void Clear() {
    slots_.clear();
    size_ = 0;
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    PodId id = kNoPod;
  };
  PodId Probe(std::uint64_t hash, std::string_view uid) const;
  void Grow();

  const std::vector<PodRecord*>& records_;
  std::vector<Slot> slots_;  // Size is zero or a power of two, at most half full.
  size_t size_ = 0;
};

}  // namespace gangplank::cache
