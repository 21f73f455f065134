// A pool's queues as a tree (AdmissionQueue::parent). Inner queues (those some queue names as parent)
// divide their share among their children and hold no gangs of their own; gangs wait in leaves. A pool
// without parents is a flat list: every queue is a top-level leaf and everything reduces to the flat
// rules.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "engine/admission/admission_input.h"
#include "engine/fairshare/fair_share.h"

namespace gangplank::engine {

class QueueTree {
 public:
  // Throws std::invalid_argument for a queue without a name, a repeated name, a negative or undefined
  // weight, guarantee or limit, a parent the pool does not have, or parents that form a cycle (the
  // message names the queues). Validation never loops, whatever the input.
  explicit QueueTree(const std::vector<AdmissionQueue>& queues);

  int size() const { return static_cast<int>(parent_.size()); }
  // Index of a queue by name, or -1.
  int Find(const std::string& name) const;
  int parent(int q) const { return parent_[q]; }  // -1 for a top-level queue.
  bool leaf(int q) const { return children_[q].empty(); }
  // q, its parent, ..., its top-level queue.
  const std::vector<int>& path(int q) const { return path_[q]; }
  bool IsAncestorOrSelf(int ancestor, int q) const;
  // The queue on q's path whose parent is the lowest common ancestor of a and b (the top-level queue of
  // q's path when they have none): the two sides meet just above it.
  int SideOf(int q, int other) const;

  // Per queue, its own value plus those of every queue below it.
  std::vector<double> SubtreeTotals(std::vector<double> own) const;
  // Weighted max-min fair shares (ComputeFairShares) of `capacity` down the tree: every queue's
  // guarantee is a floor, its limit a cap, its weight counts among its siblings. `demand` is per queue
  // and counts for leaves only (an inner queue's demand is its children's).
  std::vector<double> FairShares(double capacity, const std::vector<double>& demand) const;

 private:
  void Link(const std::vector<AdmissionQueue>& queues);
  void RefuseCycles(const std::vector<AdmissionQueue>& queues) const;

  std::unordered_map<std::string, int> index_;
  std::vector<ShareInput> spec_;  // Weight, guarantee and limit per queue.
  std::vector<int> parent_;
  std::vector<std::vector<int>> children_;
  std::vector<int> top_;  // Top-level queues, in input order.
  std::vector<std::vector<int>> path_;
  std::vector<int> deepest_first_;  // Every queue, children before their parents.
};

}  // namespace gangplank::engine
