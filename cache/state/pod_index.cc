#include "cache/state/pod_index.h"

#include "engine/short_string_equal.h"

namespace gangplank::cache {

void PodIndex::Insert(std::uint64_t hash, PodId id) {
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].id != kNoPod) i = (i + 1) & mask;
  slots_[i] = {hash, id};
  ++size_;
}

// Linear probing with backward shift: later entries of the probe run move up, so no tombstones pile up.
void PodIndex::Erase(std::uint64_t hash, PodId id) {
  if (slots_.empty()) return;
  const size_t mask = slots_.size() - 1;
  size_t hole = hash & mask;
  while (slots_[hole].id != id) {
    if (slots_[hole].id == kNoPod) return;
    hole = (hole + 1) & mask;
  }
  for (size_t next = (hole + 1) & mask; slots_[next].id != kNoPod; next = (next + 1) & mask) {
    const size_t home = slots_[next].hash & mask;
    // The entry at `next` may fill the hole unless its home lies cyclically in (hole, next].
    const bool stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
    if (stays) continue;
    slots_[hole] = slots_[next];
    hole = next;
  }
  slots_[hole] = Slot{};
  --size_;
}

PodId PodIndex::Probe(std::uint64_t hash, std::string_view uid) const {
  if (slots_.empty()) return kNoPod;
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask; slots_[i].id != kNoPod; i = (i + 1) & mask) {
    if (slots_[i].hash == hash && engine::ShortStringEqual(records_[slots_[i].id]->uid, uid)) return slots_[i].id;
  }
  return kNoPod;
}

PodId PodIndex::Find(std::string_view uid) const { return Probe(Hash(uid), uid); }

std::vector<PodId> PodIndex::FindMany(const std::vector<std::string_view>& uids) const {
  std::vector<PodId> ids(uids.size(), kNoPod);
  if (slots_.empty()) return ids;
  constexpr size_t kAhead = 8;
  const size_t mask = slots_.size() - 1;
  std::vector<std::uint64_t> hashes(uids.size());
  for (size_t i = 0; i < uids.size(); ++i) hashes[i] = Hash(uids[i]);
  // Three misses per look-up (slot, record pointer, record) overlap across the look-ups ahead.
  for (size_t i = 0; i < uids.size(); ++i) {
    if (i + kAhead < uids.size()) __builtin_prefetch(&slots_[hashes[i + kAhead] & mask]);
    if (i + kAhead / 2 < uids.size()) {
      const Slot& next = slots_[hashes[i + kAhead / 2] & mask];
      if (next.id != kNoPod) __builtin_prefetch(&records_[next.id]);
    }
    if (i + kAhead / 4 < uids.size()) {
      const Slot& next = slots_[hashes[i + kAhead / 4] & mask];
      if (next.id != kNoPod) __builtin_prefetch(records_[next.id]);
    }
    ids[i] = Probe(hashes[i], uids[i]);
  }
  return ids;
}

void PodIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
  size_ = 0;
  for (const Slot& s : old) {
    if (s.id != kNoPod) Insert(s.hash, s.id);
  }
}

}  // namespace gangplank::cache
