#include "engine/gang/gang_planner.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include "engine/gang/domain_index.h"

namespace gangplank::engine {
namespace {

// Tentative assignments on the cluster, kept in step with the index and the policy's own bookkeeping,
// and undone in reverse order.
class Scratch {
 public:
  Scratch(Cluster& cluster, DomainIndex& index, ScoringPolicy& policy, const GangRequest& gang)
      : cluster_(cluster), index_(index), policy_(policy), gang_(gang) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { RollbackTo(0); }

  void Assign(int member, Allocation allocation) {
    const NodeId node = allocation.node;
    const int before = cluster_.state(node).FullyFreeGpus();
    cluster_.Assign(allocation);
    index_.Update(node, before, cluster_.state(node).FullyFreeGpus());
    policy_.OnAssigned(allocation, gang_.members[member]);
    applied_.push_back(MemberAllocation{member, std::move(allocation)});
  }
  size_t mark() const { return applied_.size(); }
  void RollbackTo(size_t mark) {
    while (applied_.size() > mark) {
      const Allocation& a = applied_.back().allocation;
      const int before = cluster_.state(a.node).FullyFreeGpus();
      cluster_.Release(a);
      index_.Update(a.node, before, cluster_.state(a.node).FullyFreeGpus());
      policy_.OnReleased(a, gang_.members[applied_.back().member]);
      applied_.pop_back();
    }
  }
  const std::vector<MemberAllocation>& applied() const { return applied_; }

 private:
  Cluster& cluster_;
  DomainIndex& index_;
  ScoringPolicy& policy_;
  const GangRequest& gang_;
  std::vector<MemberAllocation> applied_;
};

// Whole GPUs a member needs on one node for the aggregates; 0 for GPU-sharing and GPU-less members.
int WholeGpus(const PodRequest& r) { return r.WantsGpu() && !r.IsSharing() ? r.gpu_count : 0; }

std::vector<char> CountedNodes(const Cluster& cluster, const GangRequest& gang) {
  std::vector<char> counted(static_cast<size_t>(cluster.size()), 0);
  for (NodeId n = 0; n < cluster.size(); ++n) {
    for (const PodRequest& m : gang.members) {
      if (cluster.Eligible(n, m)) {
        counted[n] = 1;
        break;
      }
    }
  }
  return counted;
}

std::string LevelName(const Topology& topology, int level) {
  return level < 0 ? std::string("pool") : topology.level_keys()[level];
}

std::string DomainName(const Topology& topology, DomainId d) {
  if (d == kNoDomain) return "pool";
  std::string name = topology.ValueOf(d);
  for (DomainId p = topology.ParentOf(d); p != kNoDomain; p = topology.ParentOf(p)) {
    name = topology.ValueOf(p) + "/" + name;
  }
  return name;
}

class Planner {
 public:
  Planner(Cluster& cluster, const GangRequest& gang, ScoringPolicy& policy, Rng& rng)
      : cluster_(cluster),
        topology_(cluster.topology()),
        gang_(gang),
        policy_(policy),
        rng_(rng),
        index_(cluster, CountedNodes(cluster, gang)),
        scratch_(cluster, index_, policy, gang) {
    const int n = static_cast<int>(gang.members.size());
    order_.resize(static_cast<size_t>(n));
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
      const PodRequest& ra = gang.members[a];
      const PodRequest& rb = gang.members[b];
      return std::make_tuple(WholeGpus(ra), ra.TotalGpuMilli()) > std::make_tuple(WholeGpus(rb), rb.TotalGpuMilli());
    });
    min_members_ = gang.MinMembers();
    // The bound a domain must pass: for a partial minimum, the easiest subset (the smallest members).
    for (int i = n - min_members_; i < n; ++i) need_.push_back(WholeGpus(gang.members[order_[i]]));
    need_gpus_ = std::accumulate(need_.begin(), need_.end(), 0);
  }

  GangPlan Run() {
    GangPlan plan;
    const int widest = gang_.required_level.empty() ? -1 : topology_.LevelIndex(gang_.required_level);
    const int preferred = gang_.preferred_level.empty() ? -1 : topology_.LevelIndex(gang_.preferred_level);
    if (index_.nodes(kNoDomain) == 0) {
      plan.reason = "gang " + gang_.name + ": no node is eligible (GPU model, node selector, taints or cordon)";
      return plan;
    }
    for (int level = topology_.levels() - 1; level >= widest; --level) {
      std::vector<DomainId> candidates;
      if (level < 0) {
        if (index_.Holds(kNoDomain, need_)) candidates.push_back(kNoDomain);
      } else {
        for (DomainId d : topology_.DomainsAt(level)) {
          if (index_.Holds(d, need_)) candidates.push_back(d);
        }
      }
      // Score once, then keep only the best few in order.
      std::vector<std::tuple<int, int, int, DomainId>> scored;
      scored.reserve(candidates.size());
      for (DomainId d : candidates) scored.push_back(Score(d, need_gpus_));
      const size_t tries = std::min(scored.size(), kMaxTriesPerLevel);
      std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(tries), scored.end());
      scored.resize(tries);
      for (const auto& entry : scored) {
        const DomainId d = std::get<3>(entry);
        if (TryDomain(level, d)) {
          plan.placed = true;
          plan.allocations = scratch_.applied();
          std::sort(plan.allocations.begin(), plan.allocations.end(),
                    [](const MemberAllocation& a, const MemberAllocation& b) { return a.member < b.member; });
          plan.level = level;
          plan.domain = d;
          plan.preferred_met = preferred < 0 || level >= preferred;
          if (!plan.preferred_met) {
            plan.reason = "no single " + LevelName(topology_, preferred) + " can hold gang " + gang_.name +
                          " now; placed in " + LevelName(topology_, level) + " " + DomainName(topology_, d);
          }
          return plan;
        }
      }
    }
    plan.reason = Explain(widest);
    return plan;
  }

 private:
  static constexpr size_t kMaxTriesPerLevel = 16;

  // Lower is better: fully free domains this would break (itself and ancestors), GPUs left over in the
  // domain, free GPUs in its parent (prefer fuller surroundings), then id for determinism.
  std::tuple<int, int, int, DomainId> Score(DomainId d, int demand) const {
    if (d == kNoDomain) return {0, 0, 0, d};
    int breaks = 0;
    for (DomainId a = d; a != kNoDomain; a = topology_.ParentOf(a)) breaks += index_.fully_free(a) ? 1 : 0;
    const DomainId parent = topology_.ParentOf(d);
    return {breaks, index_.free_gpus(d) - demand, parent == kNoDomain ? 0 : index_.free_gpus(parent), d};
  }

  bool TryDomain(int level, DomainId d) {
    std::vector<NodeId> nodes;
    if (d == kNoDomain) {
      for (NodeId n = 0; n < cluster_.size(); ++n) {
        if (index_.counted(n)) nodes.push_back(n);
      }
    } else {
      for (NodeId n : topology_.NodesIn(d)) {
        if (index_.counted(n)) nodes.push_back(n);
      }
    }
    const size_t mark = scratch_.mark();
    std::vector<int> pending = order_;
    PlaceIn(level, nodes, pending);
    const int placed = static_cast<int>(order_.size() - pending.size());
    if (placed >= min_members_) return true;
    scratch_.RollbackTo(mark);
    return false;
  }

  std::vector<int> SizesOf(const std::vector<int>& members) const {
    std::vector<int> sizes;
    sizes.reserve(members.size());
    for (int m : members) sizes.push_back(WholeGpus(gang_.members[m]));
    return sizes;
  }

  // Places as many `pending` members as fit on `nodes` (all inside one domain at `level`), spreading
  // over as few child domains as possible. Placed members leave `pending`.
  void PlaceIn(int level, const std::vector<NodeId>& nodes, std::vector<int>& pending) {
    if (level + 1 >= topology_.levels()) {
      PlaceOnNodes(nodes, pending);
      return;
    }
    std::map<DomainId, std::vector<NodeId>> children;  // kNoDomain: nodes without the child label.
    for (NodeId n : nodes) children[topology_.DomainOf(n, level + 1)].push_back(n);
    std::vector<DomainId> unused;
    for (const auto& [child, members] : children) {
      if (child != kNoDomain) unused.push_back(child);
    }
    while (!pending.empty() && !unused.empty()) {
      const std::vector<int> sizes = SizesOf(pending);
      const int demand = std::accumulate(sizes.begin(), sizes.end(), 0);
      auto best = unused.end();
      int best_prefix = 0;
      for (auto it = unused.begin(); it != unused.end(); ++it) {
        const int prefix = index_.HoldsPrefix(*it, sizes);
        if (prefix == 0) continue;
        // A child that holds everything beats any partial one; among equals the domain score decides.
        if (best == unused.end() || prefix > best_prefix ||
            (prefix == best_prefix && Score(*it, demand) < Score(*best, demand))) {
          best = it;
          best_prefix = prefix;
        }
      }
      if (best == unused.end()) break;
      const DomainId child = *best;
      unused.erase(best);
      PlaceIn(level + 1, children[child], pending);
    }
    if (!pending.empty() && children.count(kNoDomain)) PlaceOnNodes(children[kNoDomain], pending);
  }

  void PlaceOnNodes(const std::vector<NodeId>& nodes, std::vector<int>& pending) {
    std::vector<int> left;
    for (int member : pending) {
      std::optional<Allocation> best = BestNode(nodes, gang_.members[member]);
      if (best) {
        scratch_.Assign(member, std::move(*best));
      } else {
        left.push_back(member);
      }
    }
    pending = std::move(left);
  }

  // The policy's choice among `nodes`, as PlacePod makes it (same fast path, same tie-breaking).
  std::optional<Allocation> BestNode(const std::vector<NodeId>& nodes, const PodRequest& request) {
    const bool fast = policy_.HasFastScore();
    NodeId best = kNoNode;
    NodeScore best_score;
    std::uint64_t ties = 0;
    for (NodeId n : nodes) {
      if (!cluster_.Fits(n, request)) continue;
      NodeScore s;
      if (fast) {
        s.score = policy_.FastScore(cluster_, n, request);
      } else {
        s = policy_.Score(cluster_, n, request);
        if (request.WantsGpu() && static_cast<int>(s.gpus.size()) != request.gpu_count) continue;
      }
      if (best == kNoNode || s.score > best_score.score) {
        best = n;
        best_score = std::move(s);
        ties = 1;
      } else if (s.score == best_score.score && rng_.Below(++ties) == 0) {
        best = n;
        best_score = std::move(s);
      }
    }
    if (best == kNoNode) return std::nullopt;
    if (fast) best_score = policy_.Score(cluster_, best, request);
    if (request.WantsGpu() && static_cast<int>(best_score.gpus.size()) != request.gpu_count) return std::nullopt;
    return MakeAllocation(best, request, std::move(best_score.gpus));
  }

  std::string BestName(int widest, DomainId best) const {
    if (widest < 0) return "the pool";
    return "best " + LevelName(topology_, widest) + " " + DomainName(topology_, best);
  }

  // Why no domain of the allowed levels can hold the gang, in terms of its largest members.
  std::string Explain(int widest) const {
    const std::string where = widest < 0 ? "in the pool" : "in one " + LevelName(topology_, widest);
    std::vector<DomainId> domains;
    if (widest < 0) {
      domains.push_back(kNoDomain);
    } else {
      domains = topology_.DomainsAt(widest);
    }
    DomainId best = kNoDomain;
    int best_prefix = -1;
    for (DomainId d : domains) {
      const int prefix = index_.HoldsPrefix(d, need_);
      if (prefix > best_prefix || (prefix == best_prefix && index_.free_gpus(d) > index_.free_gpus(best))) {
        best = d;
        best_prefix = prefix;
      }
    }
    std::string what;
    const bool uniform = std::all_of(need_.begin(), need_.end(), [&](int s) { return s == need_.front(); });
    if (uniform && need_.front() > 0) {
      const int size = need_.front();
      const std::string slot = size == index_.max_gpus_per_node()
                                   ? "nodes with " + std::to_string(size) + " free GPUs"
                                   : "pods of " + std::to_string(size) + " GPUs";
      what = "needs " + std::to_string(need_.size()) + " " + slot + " " + where;
      if (best_prefix >= static_cast<int>(need_.size())) {
        what += "; domains with room exist but the members did not fit there (CPU, memory or node choice)";
      } else {
        what += "; " + BestName(widest, best) + " has " + std::to_string(std::min(index_.SlotsFor(best, size), static_cast<int>(need_.size()))) +
                " (" + std::to_string(index_.free_gpus(best)) + " free GPUs)";
      }
    } else {
      what = "needs " + std::to_string(need_gpus_) + " GPUs as " + std::to_string(need_.size()) + " pods " + where;
      if (best_prefix >= static_cast<int>(need_.size())) {
        what += "; domains with room exist but the members did not fit there (CPU, memory, GPU share or packing)";
      } else {
        what += "; " + BestName(widest, best) + " has room for " + std::to_string(std::max(best_prefix, 0)) + " of them (" +
                std::to_string(index_.free_gpus(best)) + " free GPUs)";
      }
    }
    return "gang " + gang_.name + " " + what;
  }

  Cluster& cluster_;
  const Topology& topology_;
  const GangRequest& gang_;
  ScoringPolicy& policy_;
  Rng& rng_;
  DomainIndex index_;
  Scratch scratch_;
  std::vector<int> order_;  // Member indices, largest first.
  int min_members_ = 0;
  std::vector<int> need_;   // Whole-GPU sizes a domain must hold, descending.
  int need_gpus_ = 0;
};

}  // namespace

GangPlan PlanGang(Cluster& cluster, const GangRequest& gang, ScoringPolicy& policy, Rng& rng) {
  if (std::string why = ValidateGang(gang, cluster.topology()); !why.empty()) {
    GangPlan plan;
    plan.reason = why;
    return plan;
  }
  Planner planner(cluster, gang, policy, rng);
  return planner.Run();
}

}  // namespace gangplank::engine
