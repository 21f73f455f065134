// FailedNodesMap of ExtenderFilterResult (node name -> why it was rejected). Go encodes the map with
// its keys sorted; building a std::map for that costs a tree insertion and a copied name per rejected
// node, which at 500-5,000 candidates is a large part of a filter call. Entries are therefore appended
// as they come and sorted once, when encoded.
//
// Hundreds of rejected nodes of one call share a handful of reasons ("needs 4 free GPUs, node has 2"),
// so a reason is stored once and entries refer to it: no string per node to build, copy or free, and
// the encoder escapes each distinct reason once. Node names are views of the request's candidate names
// (a reply is built and encoded while its request lives).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gangplank::extender {

class FailedNodesMap {
 public:
  struct Entry {
    std::string_view first;   // Node name.
    std::string_view second;  // Why: a view of reasons()[reason].
    std::uint32_t reason = 0;
  };

  FailedNodesMap() = default;
  FailedNodesMap(std::initializer_list<std::pair<std::string_view, std::string_view>> entries);
  FailedNodesMap(const FailedNodesMap& other);
  FailedNodesMap& operator=(const FailedNodesMap& other);
  FailedNodesMap(FailedNodesMap&&) noexcept = default;  // A deque's elements keep their addresses.
  FailedNodesMap& operator=(FailedNodesMap&&) noexcept = default;

  // A later reason for the same node replaces the earlier one, as assigning into a Go map does. The
  // reason is copied unless it equals one of the recently given ones.
  void insert_or_assign(std::string_view node, std::string_view reason);

  // The entries sorted by node name, one per node (the last one given): the order Go writes map keys
  // in. Pointers into this map, valid until it changes.
  std::vector<const Entry*> Sorted() const;
  // The reason for `node`, or nullptr.
  const std::string* Find(std::string_view node) const;
  // The reason for `node`; throws std::out_of_range when the node was not rejected.
  const std::string& at(std::string_view node) const;
  // Entries given (a node rejected twice counts twice; kube-scheduler never sends a name twice).
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // The distinct reasons, indexed by Entry::reason.
  const std::deque<std::string>& reasons() const { return reasons_; }
  // About the bytes the entries take encoded: a size hint for the encoder.
  std::size_t encoded_size_hint() const;

 private:
  std::uint32_t ReasonId(std::string_view reason);

  std::vector<Entry> entries_;             // In insertion order; may repeat a node.
  std::deque<std::string> reasons_;         // Stable addresses: entries view them.
  std::vector<std::uint64_t> reason_hash_;  // Parallel to reasons_: most comparisons end at the hash.
};

}  // namespace gangplank::extender
