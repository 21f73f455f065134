// Node name -> victims of a preemption call, sorted by node name as Go writes map keys. A sorted
// vector rather than a tree: kube-scheduler sends the keys sorted and preempt keeps them in order, so
// entries are appended, and a call with 500 candidates makes no tree node per candidate (decoding
// one such map cost about as much as deciding the call). Node names and UIDs are views (see
// extender_types.h for whose strings they view).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gangplank::extender {

struct MetaVictims {
  std::vector<std::string_view> uids;  // MetaPod.UID, in the scheduler's order (highest priority first).
  std::int64_t num_pdb_violations = 0;
};

class NodeVictimsMap {
 public:
  using value_type = std::pair<std::string_view, MetaVictims>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  NodeVictimsMap() = default;
  NodeVictimsMap(std::initializer_list<value_type> entries) {
    for (const value_type& e : entries) insert_or_assign(e.first, e.second);
  }

  // The entry for `node`, added (empty) where it sorts when there is none.
  MetaVictims& operator[](std::string_view node) {
    auto it = LowerBound(node);
    if (it == entries_.end() || it->first != node) it = entries_.insert(it, value_type(node, MetaVictims{}));
    return it->second;
  }
  // Sets the entry for `node`; appending is O(1) when `node` sorts after every key, the usual case.
  MetaVictims& insert_or_assign(std::string_view node, MetaVictims victims) {
    if (entries_.empty() || entries_.back().first < node) {
      return entries_.emplace_back(node, std::move(victims)).second;
    }
    return (*this)[node] = std::move(victims);
  }
  const MetaVictims& at(std::string_view node) const {
    const auto it = LowerBound(node);
    if (it == entries_.end() || it->first != node) throw std::out_of_range("NodeVictimsMap: no node " + std::string(node));
    return it->second;
  }
  size_t count(std::string_view node) const {
    const auto it = LowerBound(node);
    return it != entries_.end() && it->first == node ? 1 : 0;
  }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void reserve(size_t n) { entries_.reserve(n); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

 private:
  template <typename Self>
  static auto LowerBound(Self& self, std::string_view node) {
    return std::lower_bound(self.entries_.begin(), self.entries_.end(), node,
                            [](const value_type& e, std::string_view n) { return e.first < n; });
  }
  iterator LowerBound(std::string_view node) { return LowerBound(*this, node); }
  const_iterator LowerBound(std::string_view node) const { return LowerBound(*this, node); }

  std::vector<value_type> entries_;  // Sorted by node name, one entry per node.
};

}  // namespace gangplank::extender
