#include "engine/admission/queue_tree.h"

#include <algorithm>
#include <stdexcept>

#include "engine/fairshare/fair_share.h"

namespace gangplank::engine {

QueueTree::QueueTree(const std::vector<AdmissionQueue>& queues) {
  for (size_t q = 0; q < queues.size(); ++q) {
    const AdmissionQueue& queue = queues[q];
    if (queue.name.empty()) throw std::invalid_argument("admission: queue " + std::to_string(q) + " has no name");
    if (!(queue.weight >= 0) || !(queue.guaranteed >= 0) || !(queue.limit >= 0)) {
      throw std::invalid_argument("admission: queue " + queue.name +
                                  " has a negative or undefined weight, guarantee or limit");
    }
    if (!index_.emplace(queue.name, static_cast<int>(q)).second) {
      throw std::invalid_argument("admission: queue " + queue.name + " is listed twice");
    }
    spec_.push_back(ShareInput{queue.weight, queue.guaranteed, queue.limit, 0});
  }
  Link(queues);
  RefuseCycles(queues);
  path_.resize(queues.size());
  for (int q = 0; q < size(); ++q) {
    for (int a = q; a >= 0; a = parent_[a]) path_[q].push_back(a);
    deepest_first_.push_back(q);
  }
  std::stable_sort(deepest_first_.begin(), deepest_first_.end(),
                   [&](int a, int b) { return path_[a].size() > path_[b].size(); });
}

void QueueTree::Link(const std::vector<AdmissionQueue>& queues) {
  parent_.assign(queues.size(), -1);
  children_.resize(queues.size());
  for (size_t q = 0; q < queues.size(); ++q) {
    const std::string& parent = queues[q].parent;
    if (parent.empty()) {
      top_.push_back(static_cast<int>(q));
      continue;
    }
    const int p = Find(parent);
    if (p < 0) {
      throw std::invalid_argument("admission: queue " + queues[q].name + " names parent " + parent +
                                  ", which the pool does not have");
    }
    parent_[q] = p;
    children_[p].push_back(static_cast<int>(q));
  }
}

// Follows parents from every queue once (each queue is finished at most once), so it ends on any input.
void QueueTree::RefuseCycles(const std::vector<AdmissionQueue>& queues) const {
  enum : char { kNew, kOnWalk, kDone };
  std::vector<char> state(queues.size(), kNew);
  for (size_t start = 0; start < queues.size(); ++start) {
    std::vector<int> walk;
    int q = static_cast<int>(start);
    while (q >= 0 && state[q] == kNew) {
      state[q] = kOnWalk;
      walk.push_back(q);
      q = parent_[q];
    }
    if (q >= 0 && state[q] == kOnWalk) {
      std::string names;
      for (auto it = std::find(walk.begin(), walk.end(), q); it != walk.end(); ++it) names += queues[*it].name + " -> ";
      throw std::invalid_argument("admission: queue parents form a cycle: " + names + queues[q].name);
    }
    for (int w : walk) state[w] = kDone;
  }
}

int QueueTree::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

bool QueueTree::IsAncestorOrSelf(int ancestor, int q) const {
  const std::vector<int>& p = path_[q];
  return std::find(p.begin(), p.end(), ancestor) != p.end();
}

int QueueTree::SideOf(int q, int other) const {
  int side = q;
  for (int a : path_[q]) {
    if (IsAncestorOrSelf(a, other)) return side;
    side = a;
  }
  return side;
}

std::vector<double> QueueTree::SubtreeTotals(std::vector<double> own) const {
  for (int q : deepest_first_) {
    if (parent_[q] >= 0) own[parent_[q]] += own[q];
  }
  return own;
}

namespace {

QueueNode NodeOf(int q, const std::vector<ShareInput>& spec, const std::vector<std::vector<int>>& children,
                 const std::vector<double>& demand) {
  QueueNode node{{}, spec[q].weight, spec[q].guaranteed, spec[q].limit, demand[q], {}};
  for (int c : children[q]) node.children.push_back(NodeOf(c, spec, children, demand));
  return node;
}

void Collect(const QueueShare& share, int q, const std::vector<std::vector<int>>& children, std::vector<double>& out) {
  out[q] = share.share;
  for (size_t i = 0; i < children[q].size(); ++i) Collect(share.children[i], children[q][i], children, out);
}

}  // namespace

// The pool is the root: it divides its GPUs among the top-level queues, each of those among its children.
std::vector<double> QueueTree::FairShares(double capacity, const std::vector<double>& demand) const {
  QueueNode root;
  for (int q : top_) root.children.push_back(NodeOf(q, spec_, children_, demand));
  const QueueShare shares = ComputeFairShares(capacity, root);
  std::vector<double> out(parent_.size(), 0);
  for (size_t i = 0; i < top_.size(); ++i) Collect(shares.children[i], top_[i], children_, out);
  return out;
}

}  // namespace gangplank::engine
