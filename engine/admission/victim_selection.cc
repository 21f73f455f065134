#include "engine/admission/victim_selection.h"

#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

#include "engine/gang/gang_planner.h"

namespace gangplank::engine {
namespace {

constexpr double kEpsilon = 1e-9;

struct VictimSet {
  std::vector<int> victims;  // Candidate indices, in the order they were added.
  double busy_lost = 0;  // Work lost by victims that are not idle: what ranks sets.
  int busy = 0;
  int level = -1;
  DomainId domain = kNoDomain;
};

// Whether pods of whole-GPU `sizes` (descending) fit nodes whose free GPU counts form `histogram`,
// by best-fit decreasing. A pre-check: CPU, memory and GPU sharing are left to PlanGang.
bool FitsHistogram(std::vector<int> histogram, const std::vector<int>& sizes) {
  for (int size : sizes) {
    if (size <= 0) continue;
    int f = size;
    while (f < static_cast<int>(histogram.size()) && histogram[f] == 0) ++f;
    if (f >= static_cast<int>(histogram.size())) return false;
    --histogram[f];
    ++histogram[f - size];
  }
  return true;
}

// Per-call indexes over the cluster: which nodes the gang may use and which candidates sit where.
class VictimMap {
 public:
  VictimMap(const Cluster& cluster, const GangRequest& gang, const std::vector<VictimCandidate>& candidates)
      : cluster_(cluster), usable_(static_cast<size_t>(cluster.size()), 0), on_node_(usable_.size()) {
    for (NodeId n = 0; n < cluster.size(); ++n) {
      if (cluster.spec(n).unschedulable) continue;
      usable_[n] = std::any_of(gang.members.begin(), gang.members.end(),
                               [&](const PodRequest& m) { return cluster.Eligible(n, m); });
      width_ = std::max(width_, cluster.spec(n).gpu_count + 1);
    }
    for (size_t c = 0; c < candidates.size(); ++c) {
      for (const Allocation& a : *candidates[c].allocations) {
        std::vector<int>& here = on_node_.at(static_cast<size_t>(a.node));
        if (here.empty() || here.back() != static_cast<int>(c)) here.push_back(static_cast<int>(c));
      }
    }
  }
  bool usable(NodeId n) const { return usable_[n] != 0; }
  const std::vector<int>& on(NodeId n) const { return on_node_[n]; }
  int width() const { return width_; }
  const Cluster& cluster() const { return cluster_; }

 private:
  const Cluster& cluster_;
  std::vector<char> usable_;
  std::vector<std::vector<int>> on_node_;
  int width_ = 1;
};

// Greedy victim set for one domain, or an empty set when the domain cannot be made to fit the gang.
// Per-node free GPUs of the domain being evaluated; -1 for nodes outside it. Shared across domains
// (one allocation per search), reset on scope exit.
class DomainFree {
 public:
  DomainFree(std::vector<int>& free_of, const std::vector<NodeId>& nodes) : free_of_(free_of), nodes_(nodes) {}
  DomainFree(const DomainFree&) = delete;
  DomainFree& operator=(const DomainFree&) = delete;
  ~DomainFree() {
    for (NodeId n : nodes_) free_of_[n] = -1;
  }

 private:
  std::vector<int>& free_of_;
  const std::vector<NodeId>& nodes_;
};

// Whether taking `v` keeps every queue on its path within what may be taken from it; if so, takes it.
// An idle victim takes nothing from the budget: its GPUs did no work, so losing them leaves its queue's
// busy gangs as entitled as before.
bool TakeWithin(const VictimCandidate& v, const VictimSearch& search, std::vector<double>& taken) {
  if (v.idle) return true;
  auto up = [&](int q) { return search.parent.empty() ? -1 : search.parent[q]; };
  for (int q = v.queue; q >= 0; q = up(q)) {
    if (taken[q] + v.gpus > search.reclaimable[q] + kEpsilon) return false;
  }
  for (int q = v.queue; q >= 0; q = up(q)) taken[q] += v.gpus;
  return true;
}

VictimSet GreedyForDomain(const VictimMap& map, const std::vector<NodeId>& nodes, const std::vector<int>& sizes,
                          int need, const std::vector<VictimCandidate>& candidates, const VictimSearch& search,
                          std::vector<int>& free_of) {
  const Cluster& cluster = map.cluster();
  const DomainFree reset(free_of, nodes);
  std::vector<int> histogram(static_cast<size_t>(map.width()), 0);
  int free_total = 0;
  std::vector<int> touching;
  std::set<int> seen;
  for (NodeId n : nodes) {
    if (!map.usable(n)) continue;
    free_of[n] = cluster.state(n).FullyFreeGpus();
    ++histogram[free_of[n]];
    free_total += free_of[n];
    for (int c : map.on(n)) {
      if (seen.insert(c).second) touching.push_back(c);
    }
  }
  // GPUs each touching victim frees inside the domain, and how many it holds elsewhere.
  auto inside = [&](int c) {
    int g = 0;
    for (const Allocation& a : *candidates[c].allocations) {
      if (free_of[a.node] >= 0 && a.milli_per_gpu == kMilliPerGpu) g += static_cast<int>(a.gpus.size());
    }
    return g;
  };
  int could_free = 0;
  std::vector<std::tuple<bool, double, double, int>> order;  // (busy, lost, GPUs outside, candidate)
  for (int c : touching) {
    const int in = inside(c);
    could_free += in;
    order.emplace_back(!candidates[c].idle, candidates[c].lost_gpu_seconds, candidates[c].gpus - in, c);
  }
  if (free_total + could_free < need || touching.empty()) return {};
  std::sort(order.begin(), order.end());

  VictimSet set;
  std::vector<double> taken(search.reclaimable.size(), 0);
  for (const auto& [busy, lost, outside, c] : order) {
    if (static_cast<int>(set.victims.size()) >= search.max_victims) break;
    const VictimCandidate& v = candidates[c];
    if (!TakeWithin(v, search, taken)) continue;
    set.victims.push_back(c);
    if (busy) {
      set.busy_lost += lost;
      ++set.busy;
    }
    for (const Allocation& a : *v.allocations) {
      if (free_of[a.node] < 0 || a.milli_per_gpu != kMilliPerGpu) continue;
      --histogram[free_of[a.node]];
      free_of[a.node] = std::min(free_of[a.node] + static_cast<int>(a.gpus.size()), cluster.spec(a.node).gpu_count);
      ++histogram[free_of[a.node]];
      free_total += static_cast<int>(a.gpus.size());
    }
    if (free_total >= need && FitsHistogram(histogram, sizes)) return set;
  }
  return {};
}

std::vector<NodeId> AllNodes(const Cluster& cluster) {
  std::vector<NodeId> all(static_cast<size_t>(cluster.size()));
  for (NodeId n = 0; n < cluster.size(); ++n) all[n] = n;
  return all;
}

// Ranked, distinct candidate victim sets over every domain the gang may use.
std::vector<VictimSet> CandidateSets(const VictimMap& map, const GangRequest& gang,
                                     const std::vector<VictimCandidate>& candidates, const VictimSearch& search) {
  std::vector<int> sizes;
  int need = 0;
  for (const PodRequest& m : gang.members) {
    const int s = m.WantsGpu() && m.gpu_milli == kMilliPerGpu ? m.gpu_count : 0;
    sizes.push_back(s);
    need += s;
  }
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  const Topology& topology = map.cluster().topology();
  const int widest = gang.required_level.empty() ? -1 : topology.LevelIndex(gang.required_level);
  std::vector<VictimSet> sets;
  std::set<std::vector<int>> distinct;
  std::vector<int> free_of(static_cast<size_t>(map.cluster().size()), -1);
  auto consider = [&](VictimSet s, int level, DomainId domain) {
    if (s.victims.empty()) return;
    std::vector<int> key = s.victims;
    std::sort(key.begin(), key.end());
    if (!distinct.insert(key).second) return;
    s.level = level;
    s.domain = domain;
    sets.push_back(std::move(s));
  };
  for (int level = topology.levels() - 1; level >= widest; --level) {
    if (level < 0) {
      consider(GreedyForDomain(map, AllNodes(map.cluster()), sizes, need, candidates, search, free_of), -1,
              kNoDomain);
      continue;
    }
    for (DomainId d : topology.DomainsAt(level)) {
      consider(GreedyForDomain(map, topology.NodesIn(d), sizes, need, candidates, search, free_of), level, d);
    }
  }
  std::stable_sort(sets.begin(), sets.end(), [](const VictimSet& a, const VictimSet& b) {
    return std::make_tuple(a.busy_lost, a.busy, a.victims.size(), -a.level, a.domain) <
           std::make_tuple(b.busy_lost, b.busy, b.victims.size(), -b.level, b.domain);
  });
  return sets;
}

}  // namespace

VictimChoice ChooseVictims(ScratchModel& model, const GangRequest& gang, const std::vector<VictimCandidate>& candidates,
                           const VictimSearch& search, Rng& rng) {
  VictimChoice choice;
  if (candidates.empty() || search.max_victims <= 0) {
    choice.reason = candidates.empty() ? "no running gang may be evicted (none of another queue above its fair "
                                         "share that is past the minimum runtime and would lose no more than the "
                                         "lost-work cap)"
                                       : "the preemption budget is spent";
    return choice;
  }
  const VictimMap map(model.cluster(), gang, candidates);
  const std::vector<VictimSet> sets = CandidateSets(map, gang, candidates, search);
  if (sets.empty()) {
    choice.reason = "evicting up to " + std::to_string(search.max_victims) +
                    " eligible gangs would not free room for it in any topology domain it may use";
    return choice;
  }
  const int tries = std::min(static_cast<int>(sets.size()), std::max(1, search.max_verifications));
  for (int t = 0; t < tries; ++t) {
    const VictimSet& set = sets[t];
    const std::size_t mark = model.Mark();
    for (int c : set.victims) model.Release(*candidates[c].allocations);
    GangPlan plan = PlanGang(model.cluster(), gang, model.policy(), rng);
    model.UndoTo(mark);
    if (!plan.placed) continue;
    // Keep only victims on nodes the plan uses: the plan stays valid without the others.
    std::set<NodeId> used;
    for (const MemberAllocation& m : plan.allocations) used.insert(m.allocation.node);
    for (int c : set.victims) {
      const auto& allocations = *candidates[c].allocations;
      if (std::any_of(allocations.begin(), allocations.end(), [&](const Allocation& a) { return used.count(a.node); })) {
        choice.victims.push_back(c);
        choice.lost_gpu_seconds += candidates[c].lost_gpu_seconds;
      }
    }
    if (choice.victims.empty()) {
      choice.reason = "it fits without evicting anything";
      return choice;
    }
    choice.found = true;
    choice.plan = std::move(plan);
    return choice;
  }
  choice.reason = "none of the " + std::to_string(tries) + " cheapest sets of at most " +
                  std::to_string(search.max_victims) + " victims makes it placeable";
  return choice;
}

}  // namespace gangplank::engine
