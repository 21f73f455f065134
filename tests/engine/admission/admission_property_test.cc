// Randomized properties of whole admission rounds: applying a decision never overcommits, gangs are
// placed whole, victims are whole gangs from queues above their share that had run long enough, no
// queue is taken below its guarantee, each eviction makes its beneficiary placeable, the budget holds,
// and the same seed gives the same decisions.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "engine/admission/admission_round.h"
#include "engine/admission/queue_tree.h"
#include "engine/gang/gang_planner.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using testing::LeastFreePolicy;
using testing::Scenario;
using testing::SmallCluster;

const std::vector<std::string> kQueues = {"q0", "q1", "q2"};

std::string Named(const char* prefix, int i) {
  std::ostringstream name;
  name << prefix << i;
  return name.str();
}

enum class Variant { kFlat, kTree, kPreempt };

// Random running gangs planned onto the cluster, then random waiting gangs. kTree: q0 and q1 are
// children of a fourth queue, org (listed last), with its own guarantee and limit. kPreempt: every queue
// preempts lower priorities, and running gangs get random priorities (from a second generator, so the
// cluster and the gangs are those of kFlat).
Scenario RandomScenario(std::uint64_t seed, Variant variant = Variant::kFlat) {
  const bool tree = variant == Variant::kTree;
  Rng rng(seed);
  Scenario s(SmallCluster(3, 4));
  for (size_t q = 0; q < kQueues.size(); ++q) {
    s.Queue(kQueues[q], 1 + static_cast<double>(rng.Below(3)), 4.0 * static_cast<double>(rng.Below(4)),
            tree && q < 2 ? "org" : "");
  }
  if (tree) {
    s.Queue("org", 1 + static_cast<double>(rng.Below(3)), 8.0 * static_cast<double>(rng.Below(4)));
    s.QueueNamed("org").limit = 40 + 8.0 * static_cast<double>(rng.Below(6));
  }
  s.input.now = 20000;
  LeastFreePolicy policy;
  for (int i = 0; i < 14; ++i) {
    GangRequest g;
    g.name = Named("run-", i);
    g.queue = kQueues[rng.Below(kQueues.size())];
    const int pods = 1 + static_cast<int>(rng.Below(3));
    for (int p = 0; p < pods; ++p) g.members.push_back(testing::Gpus(1 << rng.Below(4)));
    const GangPlan plan = PlanGang(s.cluster, g, policy, rng);
    if (!plan.placed) continue;
    ApplyGangPlan(s.cluster, plan);
    RunningGang r;
    r.name = g.name;
    r.queue = g.queue;
    r.start = static_cast<double>(rng.Below(20000));
    if (rng.Below(2) == 0) r.last_checkpoint = r.start + static_cast<double>(rng.Below(5000));
    for (const MemberAllocation& m : plan.allocations) r.allocations.push_back(m.allocation);
    s.input.running.push_back(std::move(r));
  }
  if (variant == Variant::kPreempt) {
    Rng priorities(seed * 7919);
    for (RunningGang& r : s.input.running) r.priority = static_cast<int>(priorities.Below(3));
    for (AdmissionQueue& q : s.input.queues) q.preempt_lower_priority = true;
  }
  for (int i = 0; i < 12; ++i) {
    s.Waiting(Named("wait-", i), kQueues[rng.Below(kQueues.size())], static_cast<double>(rng.Below(20000)),
              1 + static_cast<int>(rng.Below(4)), 1 << rng.Below(4), static_cast<int>(rng.Below(2)));
    if (rng.Below(4) == 0) s.input.waiting.back().request.required_level = "rack";
  }
  return s;
}

AdmissionConfig Config() {
  AdmissionConfig c;
  c.reclaim.enabled = true;
  c.reclaim.min_wait_seconds = 0;
  c.reclaim.min_runtime_seconds = 3000;
  c.reclaim.max_lost_gpu_seconds = 150000;
  c.reclaim.max_victims_per_round = 3;
  c.reclaim.max_victims_per_window = 5;
  return c;
}

std::string Fingerprint(const AdmissionDecision& d) {
  std::ostringstream f;
  for (const Admitted& a : d.admitted) {
    f << 'A' << a.waiting;
    for (const MemberAllocation& m : a.plan.allocations) {
      f << ':' << m.member << '@' << m.allocation.node;
      for (int g : m.allocation.gpus) f << '.' << g;
    }
  }
  for (const Reclaimed& r : d.reclaims) f << " R" << r.running << '>' << r.beneficiary;
  for (const Reserved& r : d.reservations) {
    f << " S" << r.waiting;
    for (NodeId n : r.nodes) f << ',' << n;
  }
  return f.str();
}

// Queues on the victim's path below where it meets the beneficiary's: the ones reclaim takes GPUs from.
std::vector<int> TakenFrom(const QueueTree& tree, int victim, int beneficiary) {
  std::vector<int> out;
  for (int q : tree.path(victim)) {
    if (tree.IsAncestorOrSelf(q, beneficiary)) break;
    out.push_back(q);
  }
  return out;
}

// In a tree: no queue goes above its limit through admissions, and no queue reclaim takes from ends
// below its guarantee or was at or below its fair share.
void CheckTree(const Scenario& s, const AdmissionDecision& d, std::uint64_t seed) {
  const QueueTree tree(s.input.queues);
  std::vector<double> admitted(s.input.queues.size(), 0), taken(s.input.queues.size(), 0);
  for (const Admitted& a : d.admitted) {
    for (int q : tree.path(tree.Find(s.input.waiting[a.waiting].request.queue))) {
      admitted[q] += GangGpus(s.input.waiting[a.waiting].request);
    }
  }
  for (const Reclaimed& r : d.reclaims) {
    const RunningGang& v = s.input.running[r.running];
    const int b = tree.Find(s.input.waiting[r.beneficiary].request.queue);
    for (int q : TakenFrom(tree, tree.Find(v.queue), b)) {
      taken[q] += v.Gpus();
      EXPECT_GT(d.held[q], d.fair_shares[q]) << "seed " << seed << ": took from " << s.input.queues[q].name;
    }
  }
  for (size_t q = 0; q < s.input.queues.size(); ++q) {
    if (admitted[q] > 0) {
      EXPECT_LE(d.held[q] + admitted[q], s.input.queues[q].limit + 1e-9) << "seed " << seed;
    }
    if (taken[q] > 0) {
      EXPECT_GE(d.held[q] - taken[q] + 1e-9, s.input.queues[q].guaranteed) << "seed " << seed;
    }
  }
}

void RandomRoundsKeepEveryInvariant(Variant variant) {
  const bool tree = variant == Variant::kTree;
  int reclaim_rounds = 0, admitted = 0, preemptions = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    Scenario s = RandomScenario(seed, variant);
    const AdmissionConfig config = Config();
    LeastFreePolicy policy;
    Rng rng(seed);
    const std::int64_t allocated_before = s.cluster.allocated_gpu_milli();
    const AdmissionDecision d = DecideAdmission(s.cluster, s.input, config, policy, rng);
    ASSERT_EQ(s.cluster.allocated_gpu_milli(), allocated_before) << "seed " << seed << ": model not restored";

    // Same seed, same decisions.
    LeastFreePolicy policy2;
    Rng rng2(seed);
    Scenario again = RandomScenario(seed, variant);
    EXPECT_EQ(Fingerprint(d), Fingerprint(DecideAdmission(again.cluster, again.input, config, policy2, rng2)))
        << "seed " << seed;

    // Victims: distinct, whole, from queues above their share, past the minimum runtime, within budget.
    EXPECT_LE(static_cast<int>(d.reclaims.size()), config.reclaim.max_victims_per_round);
    std::set<int> victims;
    std::map<std::string, double> taken;
    for (const Reclaimed& r : d.reclaims) {
      EXPECT_TRUE(victims.insert(r.running).second) << "seed " << seed << ": victim chosen twice";
      const RunningGang& v = s.input.running[r.running];
      EXPECT_GE(s.input.now - v.start, config.reclaim.min_runtime_seconds);
      // The lost-work cap holds, but for a queue below its guarantee (round_reclaim.cc).
      const std::string& owed_queue = s.input.waiting[r.beneficiary].request.queue;
      double owed_held = 0, owed_guarantee = 0;
      for (const RunningGang& g : s.input.running) owed_held += g.queue == owed_queue ? g.Gpus() : 0;
      for (const AdmissionQueue& q : s.input.queues) owed_guarantee = q.name == owed_queue ? q.guaranteed : owed_guarantee;
      if (r.kind != EvictionKind::kReclaim || owed_held >= owed_guarantee) {
        EXPECT_LE(LostGpuSeconds(v, s.input.now), config.reclaim.max_lost_gpu_seconds) << "seed " << seed;
      }
      EXPECT_DOUBLE_EQ(r.lost_gpu_seconds, LostGpuSeconds(v, s.input.now));
      if (r.kind == EvictionKind::kPriority) {
        // Same queue, strictly lower priority; the queue's total does not change.
        const GangRequest& b = s.input.waiting[r.beneficiary].request;
        EXPECT_EQ(v.queue, b.queue) << "seed " << seed;
        EXPECT_LT(v.priority, b.priority) << "seed " << seed;
        ++preemptions;
        continue;
      }
      ASSERT_EQ(r.kind, EvictionKind::kReclaim);
      size_t q = 0;
      while (kQueues[q] != v.queue) ++q;
      EXPECT_GT(d.held[q], d.fair_shares[q]) << "seed " << seed << ": victim from a queue not above its share";
      EXPECT_NE(v.queue, s.input.waiting[r.beneficiary].request.queue);
      taken[v.queue] += v.Gpus();
    }
    for (size_t q = 0; q < kQueues.size(); ++q) {
      const double after = d.held[q] - taken[kQueues[q]];
      if (taken[kQueues[q]] > 0) {
        EXPECT_GE(after + 1e-9, s.input.queues[q].guaranteed) << "seed " << seed;
      }
    }

    // Apply: evict whole victims, then every admitted plan in order; the cluster refuses overcommit.
    for (int r : victims) {
      for (const Allocation& a : s.input.running[r].allocations) s.cluster.Release(a);
    }
    std::set<int> admitted_gangs;
    for (const Admitted& a : d.admitted) {
      const GangRequest& g = s.input.waiting[a.waiting].request;
      ASSERT_TRUE(a.plan.placed);
      EXPECT_EQ(a.plan.allocations.size(), g.members.size()) << "seed " << seed << ": gang placed in part";
      EXPECT_TRUE(admitted_gangs.insert(a.waiting).second);
      ASSERT_NO_THROW(ApplyGangPlan(s.cluster, a.plan)) << "seed " << seed << ": overcommit";
      ++admitted;
    }
    EXPECT_LE(s.cluster.allocated_gpu_milli(), s.cluster.total_gpu_milli());

    // Every beneficiary is placeable on its reserved nodes now that its victims are gone.
    std::set<int> beneficiaries;
    for (const Reclaimed& r : d.reclaims) beneficiaries.insert(r.beneficiary);
    for (int w : beneficiaries) {
      EXPECT_EQ(admitted_gangs.count(w), 0u);
      const Reserved* reserved = nullptr;
      for (const Reserved& r : d.reservations) {
        if (r.waiting == w) reserved = &r;
      }
      ASSERT_NE(reserved, nullptr) << "seed " << seed;
      EXPECT_TRUE(reserved->for_reclaim);
      for (NodeId n = 0; n < s.cluster.size(); ++n) {
        const bool mine = std::find(reserved->nodes.begin(), reserved->nodes.end(), n) != reserved->nodes.end();
        if (!mine) s.cluster.SetUnschedulable(n, true);
      }
      LeastFreePolicy p;
      Rng r(seed);
      EXPECT_TRUE(PlanGang(s.cluster, s.input.waiting[w].request, p, r).placed)
          << "seed " << seed << ": evicted for nothing";
      for (NodeId n = 0; n < s.cluster.size(); ++n) s.cluster.SetUnschedulable(n, false);
    }
    if (tree) CheckTree(s, d, seed);

    // Exactly one Blocked entry per waiting gang not admitted, in waiting order.
    std::vector<int> waiting_left, blocked;
    for (size_t w = 0; w < s.input.waiting.size(); ++w) {
      if (!admitted_gangs.count(static_cast<int>(w))) waiting_left.push_back(static_cast<int>(w));
    }
    for (const Blocked& b : d.blocked) {
      blocked.push_back(b.waiting);
      EXPECT_FALSE(b.message.empty()) << "seed " << seed;
    }
    EXPECT_EQ(blocked, waiting_left) << "seed " << seed;
    reclaim_rounds += d.reclaims.empty() ? 0 : 1;
  }
  EXPECT_GT(reclaim_rounds, 10) << "the random cases must exercise reclaim";
  EXPECT_GT(admitted, 100);
  if (variant == Variant::kPreempt) {
    EXPECT_GT(preemptions, 10) << "the random cases must exercise preemption";
  }
}

TEST(AdmissionProperties, RandomRoundsKeepEveryInvariant) { RandomRoundsKeepEveryInvariant(Variant::kFlat); }

// round_scope.h's claim: after a full round is applied and only a new gang arrives, an incremental round
// planning that gang (holdings kept by the caller) admits what a full round would.
TEST(AdmissionProperties, AnIncrementalRoundAfterAFullOneAdmitsWhatAFullRoundWould) {
  int new_admitted = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    Scenario s = RandomScenario(seed);
    const AdmissionConfig config;  // No reclaim: its evictions free capacity, which asks for a full round.
    LeastFreePolicy policy;
    Rng rng(seed);
    const AdmissionDecision first = DecideAdmission(s.cluster, s.input, config, policy, rng);
    std::vector<WaitingGang> still;
    std::set<int> started;
    for (const Admitted& a : first.admitted) {
      ApplyGangPlan(s.cluster, a.plan);
      RunningGang r;
      r.name = s.input.waiting[a.waiting].request.name;
      r.queue = s.input.waiting[a.waiting].request.queue;
      r.start = s.input.now;
      for (const MemberAllocation& m : a.plan.allocations) r.allocations.push_back(m.allocation);
      s.input.running.push_back(std::move(r));
      started.insert(a.waiting);
    }
    for (size_t w = 0; w < s.input.waiting.size(); ++w) {
      if (!started.count(static_cast<int>(w))) still.push_back(s.input.waiting[w]);
    }
    s.input.waiting = std::move(still);
    Rng more(seed * 31);
    s.Waiting("new", kQueues[more.Below(kQueues.size())], s.input.now, 1 + static_cast<int>(more.Below(2)),
              1 << more.Below(2), static_cast<int>(more.Below(2)));
    s.input.now += 1;

    LeastFreePolicy p1, p2;
    Rng r1(seed), r2(seed);
    const AdmissionDecision full = DecideAdmission(s.cluster, s.input, config, p1, r1);
    s.input.plan_only = std::vector<int>{static_cast<int>(s.input.waiting.size()) - 1};
    s.input.held = HeldByQueue(s.input);
    const AdmissionDecision incremental = DecideAdmission(s.cluster, s.input, config, p2, r2);
    std::vector<int> a, b;
    for (const Admitted& x : full.admitted) a.push_back(x.waiting);
    for (const Admitted& x : incremental.admitted) b.push_back(x.waiting);
    EXPECT_EQ(a, b) << "seed " << seed;
    EXPECT_EQ(full.fair_shares, incremental.fair_shares) << "seed " << seed;
    new_admitted += static_cast<int>(b.size());
  }
  EXPECT_GT(new_admitted, 20) << "the new gang must often fit";
}
TEST(AdmissionProperties, RandomRoundsWithAQueueTreeKeepEveryInvariant) {
  RandomRoundsKeepEveryInvariant(Variant::kTree);
}
TEST(AdmissionProperties, RandomRoundsWithPriorityPreemptionKeepEveryInvariant) {
  RandomRoundsKeepEveryInvariant(Variant::kPreempt);
}

}  // namespace
}  // namespace gangplank::engine
