// StateView::Placement must equal what each pod's record says after any sequence of pod, node and
// assumption events: preempt trusts it instead of reading the records.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "cache/state/cluster_state.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::cache {
namespace {

using testing::GpuNode;
using testing::GpuPod;
using testing::PodOptions;

// Checks every pod of the universe against its record; returns how many are cached.
int ExpectPlacementsExact(const ClusterState& state, int pods, const std::string& step) {
  return state.Read([&](const StateView& v) {
    int cached = 0;
    for (int i = 0; i < pods; ++i) {
      const PodRecord* record = v.FindPod("uid-p" + std::to_string(i));
      if (record == nullptr) continue;
      ++cached;
      const PodPlacement& p = v.Placement(record->id);
      EXPECT_TRUE(p == PodPlacement::Of(*record)) << "p" << i << " after " << step;
      EXPECT_EQ(p.node, record->allocation ? record->allocation->node : engine::kNoNode);
    }
    return cached;
  });
}

class RandomEvents {
 public:
  RandomEvents(ClusterState& state, std::uint32_t seed) : state_(state), rng_(seed) {}

  // Applies one random event and names it.
  std::string Step() {
    const int pod = Pick(kPods);
    const std::string name = "p" + std::to_string(pod);
    switch (Pick(10)) {
      case 0: state_.DeletePod("uid-" + name); return "delete " + name;
      case 1: state_.AssumeBound("uid-" + name, Node()); return "assume " + name;
      case 2: state_.AssumeBound(GpuPod(name, Options(true)), Node()); return "assume new " + name;
      case 3: state_.ExpireAssumed(std::chrono::steady_clock::now() + std::chrono::hours(1)); return "expire";
      case 4: state_.UpsertNode(GpuNode(Node(), 4 + 4 * Pick(2))); return "node";
      case 5: state_.DeleteNode(Node()); return "delete node";
      default: state_.UpsertPod(GpuPod(name, Options(false))); return "upsert " + name;
    }
  }
  static constexpr int kPods = 60;

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint32_t>(n)); }
  std::string Node() { return "n" + std::to_string(Pick(6)); }
  PodOptions Options(bool unbound) {
    PodOptions o;
    if (!unbound && Pick(3) != 0) o.node = Node();
    if (Pick(3) == 0) o.planned = Node();
    if (Pick(2) == 0) o.gang = "g" + std::to_string(Pick(4));
    o.gpus = Pick(4);
    if (Pick(8) == 0) o.phase = "Succeeded";
    return o;
  }

  ClusterState& state_;
  std::mt19937 rng_;
};

TEST(PodPlacement, ExactAfterRandomEventSequences) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    ClusterState state;
    state.SetAssumedPodTtl(std::chrono::seconds(1));
    for (int n = 0; n < 4; ++n) state.UpsertNode(GpuNode("n" + std::to_string(n), 8));
    RandomEvents events(state, seed);
    int seen = 0;
    for (int i = 0; i < 400 && !HasFailure(); ++i) {
      const std::string step = events.Step();
      seen += ExpectPlacementsExact(state, RandomEvents::kPods, step);
    }
    EXPECT_GT(seen, 1000);  // The sequences keep pods cached, so there is something to check.
  }
}

TEST(PodPlacement, FollowsBindingAssumptionAndGang) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("a", {.planned = "n1", .gang = "g"}));
  state.Read([](const StateView& v) {
    const PodRecord& a = *v.FindPod("uid-a");
    EXPECT_EQ(v.Placement(a.id).node, v.FindNode("n1"));
    EXPECT_FALSE(v.Placement(a.id).bound);  // A reservation: held, not bound.
    EXPECT_EQ(v.Placement(a.id).gang_members, &v.GangMembers("ml/g"));
  });
  ASSERT_TRUE(state.AssumeBound("uid-a", "n1"));
  state.Read([](const StateView& v) { EXPECT_TRUE(v.Placement(v.FindPod("uid-a")->id).bound); });
  state.DeleteNode("n1");
  state.Read([](const StateView& v) { EXPECT_EQ(v.Placement(v.FindPod("uid-a")->id).node, engine::kNoNode); });
}

}  // namespace
}  // namespace gangplank::cache
