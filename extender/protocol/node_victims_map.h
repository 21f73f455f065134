// Node name -> victims of a preemption call, sorted by node name as Go writes map keys. A sorted
// vector rather than a tree: kube-scheduler sends the keys sorted and preempt keeps them in order, so
// entries are appended, and a call with 500 candidates makes no tree node per candidate. The UIDs of
// all nodes share one flat list (each node views its run of it), so a map costs two allocations
// however many nodes it names. Node names and UIDs are views (see extender_types.h for whose strings
// they view).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/short_string_equal.h"

namespace gangplank::extender {

// One node's victims in owning form, for building a map by hand.
struct MetaVictims {
  std::vector<std::string_view> uids;  // MetaPod.UID, in the scheduler's order (highest priority first).
  std::int64_t num_pdb_violations = 0;
};

// A node's UIDs as the map holds them: a view of its flat list, valid until the map changes.
class VictimUids : public std::span<const std::string_view> {
 public:
  using std::span<const std::string_view>::span;
  friend bool operator==(VictimUids a, const std::vector<std::string_view>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
};

struct NodeVictims {
  VictimUids uids;
  std::int64_t num_pdb_violations = 0;
};

class NodeVictimsMap {
 public:
  using value_type = std::pair<std::string_view, NodeVictims>;

  class const_iterator;

  NodeVictimsMap() = default;
  NodeVictimsMap(std::initializer_list<std::pair<std::string_view, MetaVictims>> entries) {
    for (const auto& [node, victims] : entries) insert_or_assign(node, victims);
  }

  // Building: the UIDs added since the last CloseNode become `node`'s victims (replacing any it had).
  // Appending is O(1) when `node` sorts after every key, the usual case.
  void AddUid(std::string_view uid) { uids_.push_back(uid); }
  // Drops the UIDs added since the last CloseNode.
  void DiscardOpen() { uids_.resize(open_); }
  void CloseNode(std::string_view node, std::int64_t num_pdb_violations);
  void insert_or_assign(std::string_view node, const MetaVictims& victims) {
    uids_.insert(uids_.end(), victims.uids.begin(), victims.uids.end());
    CloseNode(node, victims.num_pdb_violations);
  }

  NodeVictims at(std::string_view node) const {
    const auto it = LowerBound(node);
    if (it == entries_.end() || it->node != node) throw std::out_of_range("NodeVictimsMap: no node " + std::string(node));
    return VictimsOf(*it);
  }
  size_t count(std::string_view node) const {
    const auto it = LowerBound(node);
    return it != entries_.end() && it->node == node ? 1 : 0;
  }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void reserve(size_t nodes, size_t uids) {
    entries_.reserve(nodes);
    uids_.reserve(uids);
  }
  inline const_iterator begin() const;
  inline const_iterator end() const;

  // Every UID added, each node's run in one list (NodeVictims::uids views into it): look-ups of all
  // victims take it whole. Runs replaced by a later CloseNode of the same node stay, unreferenced.
  const std::vector<std::string_view>& all_uids() const { return uids_; }

  // Set by whoever built the map when every node name and UID is known to be plain JSON
  // (IsPlainJsonString), so the encoder copies them without checking; any change clears it.
  bool known_plain() const { return known_plain_; }
  void set_known_plain(bool plain) { known_plain_ = plain; }

 private:
  struct Entry {
    std::string_view node;
    std::uint32_t first = 0;  // Run of uids_.
    std::uint32_t count = 0;
    std::int64_t num_pdb_violations = 0;
  };

  std::vector<Entry>::const_iterator LowerBound(std::string_view node) const {
    return std::lower_bound(entries_.begin(), entries_.end(), node,
                            [](const Entry& e, std::string_view n) { return e.node < n; });
  }
  NodeVictims VictimsOf(const Entry& e) const {
    return {VictimUids(uids_.data() + e.first, e.count), e.num_pdb_violations};
  }

  std::vector<Entry> entries_;  // Sorted by node name, one entry per node.
  std::vector<std::string_view> uids_;
  std::uint32_t open_ = 0;  // Start of the UIDs not yet closed into a node.
  bool known_plain_ = false;
};

// Yields (node, victims) pairs by value: the victims view the map's flat UID list.
class NodeVictimsMap::const_iterator {
 public:
  const_iterator(const NodeVictimsMap& map, std::vector<Entry>::const_iterator at) : map_(&map), at_(at) {}
  value_type operator*() const { return {at_->node, map_->VictimsOf(*at_)}; }
  const_iterator& operator++() {
    ++at_;
    return *this;
  }
  bool operator==(const const_iterator& other) const { return at_ == other.at_; }

 private:
  const NodeVictimsMap* map_;
  std::vector<Entry>::const_iterator at_;
};

NodeVictimsMap::const_iterator NodeVictimsMap::begin() const { return {*this, entries_.begin()}; }
NodeVictimsMap::const_iterator NodeVictimsMap::end() const { return {*this, entries_.end()}; }

inline void NodeVictimsMap::CloseNode(std::string_view node, std::int64_t num_pdb_violations) {
  const Entry entry{node, open_, static_cast<std::uint32_t>(uids_.size() - open_), num_pdb_violations};
  open_ = static_cast<std::uint32_t>(uids_.size());
  known_plain_ = false;
  if (entries_.empty() || engine::ShortStringLess(entries_.back().node, node)) {
    entries_.push_back(entry);
    return;
  }
  const auto it = entries_.begin() + (LowerBound(node) - entries_.cbegin());
  if (it != entries_.end() && it->node == node) *it = entry;
  else entries_.insert(it, entry);
}

}  // namespace gangplank::extender
