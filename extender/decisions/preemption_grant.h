// The victims the extender approved in one preempt answer, per node. kube-scheduler deletes the victims
// of the node it picks and retries the preemptor there; the deletions can reach kube-scheduler's cache
// before the extender's, so the filter counts a grant's victims as gone on a node kube-scheduler
// acted on (see FilterNodes), instead of refusing that node and sending kube-scheduler to preempt a
// second gang elsewhere.
//
// Kept for every answer, so it is built in a handful of allocations however many nodes it names: the
// names and UIDs share one buffer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gangplank::extender {

class PreemptionGrant {
 public:
  // `uids` is a range of string-like victims; call `Reserve` first with the totals to avoid regrowth.
  void Reserve(size_t nodes, size_t uids, size_t bytes) {
    nodes_.reserve(nodes);
    uids_.reserve(uids);
    text_.reserve(bytes);
  }
  template <typename Uids>
  void AddNode(std::string_view node, const Uids& uids) {
    nodes_.push_back({Append(node), static_cast<std::uint32_t>(uids_.size()), 0});
    for (std::string_view uid : uids) uids_.push_back(Append(uid));
    nodes_.back().uid_count = static_cast<std::uint32_t>(uids_.size()) - nodes_.back().first_uid;
  }

  bool empty() const { return nodes_.empty(); }
  size_t size() const { return nodes_.size(); }
  std::string_view node(size_t i) const { return View(nodes_[i].name); }
  // The victims granted on the i-th node.
  std::vector<std::string_view> victims(size_t i) const;
  // The index of `node`, or size() when the grant does not name it.
  size_t Find(std::string_view node) const;

 private:
  using Slice = std::pair<std::uint32_t, std::uint32_t>;  // Offset and length in text_.
  struct Node {
    Slice name;
    std::uint32_t first_uid;
    std::uint32_t uid_count;
  };
  Slice Append(std::string_view s) {
    const Slice slice{static_cast<std::uint32_t>(text_.size()), static_cast<std::uint32_t>(s.size())};
    text_.append(s);
    return slice;
  }
  std::string_view View(Slice s) const { return std::string_view(text_).substr(s.first, s.second); }

  std::string text_;
  std::vector<Node> nodes_;  // In the answer's order (sorted by node name).
  std::vector<Slice> uids_;
};

}  // namespace gangplank::extender
