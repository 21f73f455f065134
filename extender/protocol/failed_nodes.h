// FailedNodesMap of ExtenderFilterResult (node name -> why it was rejected). Go encodes the map with
// its keys sorted; building a std::map for that costs a tree insertion and a copied name per rejected
// node, which at 500-5,000 candidates is a large part of a filter call. Entries are therefore appended
// as they come and sorted once, when encoded. Node names are views of the request's candidate names
// (a reply is built and encoded while its request lives); reasons are owned.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gangplank::extender {

class FailedNodesMap {
 public:
  using Entry = std::pair<std::string_view, std::string>;

  FailedNodesMap() = default;
  FailedNodesMap(std::initializer_list<Entry> entries) : entries_(entries) {}

  // A later reason for the same node replaces the earlier one, as assigning into a Go map does.
  void insert_or_assign(std::string_view node, std::string reason) { entries_.emplace_back(node, std::move(reason)); }

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
  // About the bytes the entries take encoded: a size hint for the encoder.
  std::size_t encoded_size_hint() const {
    std::size_t n = 0;
    for (const Entry& e : entries_) n += e.first.size() + e.second.size() + 6;  // Quotes, colon, comma.
    return n;
  }

 private:
  std::vector<Entry> entries_;  // In insertion order; may repeat a node.
};

}  // namespace gangplank::extender
