// Every way a waiting gang can be blocked, with the exact sentence the operator puts in its condition.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/admission/admission_round.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace testing;  // The admission fixture (gangplank::engine::testing).

// The Blocked entry of the waiting gang called `name`; fails the test when there is none.
Blocked BlockOf(const Scenario& s, const AdmissionDecision& d, const std::string& name) {
  for (const Blocked& b : d.blocked) {
    if (s.input.waiting.at(b.waiting).request.name == name) return b;
  }
  ADD_FAILURE() << "no Blocked entry for " << name;
  return {};
}

TEST(BlockCodeName, CamelCaseConditionReasons) {
  EXPECT_EQ(BlockCodeName(BlockCode::kQueueAtLimit), "QueueAtLimit");
  EXPECT_EQ(BlockCodeName(BlockCode::kInsufficientGpus), "InsufficientGPUs");
  EXPECT_EQ(BlockCodeName(BlockCode::kTopology), "TopologyUnsatisfiable");
  EXPECT_EQ(BlockCodeName(BlockCode::kNoEligibleNodes), "NoEligibleNodes");
  EXPECT_EQ(BlockCodeName(BlockCode::kReserved), "Reserved");
  EXPECT_EQ(BlockCodeName(BlockCode::kAwaitingVictims), "AwaitingVictims");
  EXPECT_EQ(BlockCodeName(BlockCode::kBehindStarvingGang), "BlockedBehindGang");
  EXPECT_EQ(BlockCodeName(BlockCode::kNotReplanned), "NotReplanned");
  EXPECT_EQ(BlockCodeName(BlockCode::kInvalid), "InvalidGang");
  EXPECT_EQ(BlockCodeName(BlockCode::kTimedOut), "TimedOut");
}

TEST(Blocked, OneEntryPerWaitingGangNotAdmittedInWaitingOrder) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Waiting("too-big", "a", 0, 2, 8).Waiting("fits", "a", 1, 1, 8).Waiting("lost", "nope", 2, 1, 1);
  s.Waiting("late", "a", 3, 1, 8);
  const AdmissionDecision d = Decide(s);
  ASSERT_EQ(d.blocked.size(), 3u);
  EXPECT_EQ(d.blocked[0].waiting, 0);
  EXPECT_EQ(d.blocked[1].waiting, 2);
  EXPECT_EQ(d.blocked[2].waiting, 3);
}

TEST(Blocked, InvalidGangsSayWhatIsWrong) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("org").Queue("team", 1, 0, "org");
  s.Waiting("inner", "org", 0, 1, 1).Waiting("lost", "nope", 1, 1, 1).Waiting("empty", "team", 2, 0, 1);
  const AdmissionDecision d = Decide(s);
  ASSERT_EQ(d.blocked.size(), 3u);
  for (const Blocked& b : d.blocked) EXPECT_EQ(b.code, BlockCode::kInvalid);
  EXPECT_EQ(d.blocked[0].message, "queue org has child queues; gangs must name a leaf queue");
  EXPECT_EQ(d.blocked[1].message, "gang lost names queue 'nope', which the pool does not have");
  EXPECT_EQ(d.blocked[2].message, "gang empty has no members");
  EXPECT_EQ(d.errors[0], "gang inner: queue org has child queues; gangs must name a leaf queue");
}

TEST(Blocked, QueueAtItsLimitNamesTheQueueThatBinds) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("org").Queue("team-a", 1, 0, "org").Queue("team-b", 1, 0, "org").Queue("top");
  s.Queue("deep", 1, 0, "team-b");  // team-b is inner; deep is a leaf two levels below org.
  s.Running("r", "team-a", 0, {{"k0-n0", 4}});
  s.QueueNamed("team-a").limit = 6;
  s.Waiting("a", "team-a", 0, 1, 8);
  AdmissionDecision d = Decide(s);
  EXPECT_EQ(BlockOf(s, d, "a").code, BlockCode::kQueueAtLimit);
  EXPECT_EQ(BlockOf(s, d, "a").message, "queue team-a at its limit of 6 GPUs (holds 4, gang needs 8)");
  s.QueueNamed("team-a").limit = 64;
  s.QueueNamed("org").limit = 8;
  d = Decide(s);
  EXPECT_EQ(BlockOf(s, d, "a").message, "queue org (parent of team-a) at its limit of 8 GPUs (holds 4, gang needs 8)");
  s.Waiting("d", "deep", 1, 1, 8);
  d = Decide(s);
  EXPECT_EQ(BlockOf(s, d, "d").message, "queue org (ancestor of deep) at its limit of 8 GPUs (holds 4, gang needs 8)");
  EXPECT_EQ(BlockOf(s, d, "a").code, BlockCode::kQueueAtLimit);
}

TEST(Blocked, TooFewFreeGpusInThePool) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Running("r", "a", 0, {{"k0-n0", 8}, {"k0-n1", 4}});
  s.Waiting("big", "a", 0, 2, 8);
  const Blocked b = BlockOf(s, Decide(s), "big");
  EXPECT_EQ(b.code, BlockCode::kInsufficientGpus);
  EXPECT_EQ(b.message, "needs 16 GPUs; the pool has 4 free");
}

TEST(Blocked, EnoughGpusButNotInOneDomainOfTheRequiredLevel) {
  // Two NVLink domains of two 4-GPU nodes: 4 + 2 free in one, 2 in the other.
  Cluster cluster({"nvidia.com/gpu.clique"});
  for (int i = 0; i < 4; ++i) {
    NodeSpec spec;
    spec.name = "n";
    spec.name.append(std::to_string(i));
    spec.capacity = HostResources{64000, 512 * 1024};
    spec.gpu_count = 4;
    spec.labels = {{"nvidia.com/gpu.clique", i < 2 ? "c0" : "c1"}};
    cluster.AddNode(spec);
  }
  Scenario s(std::move(cluster));
  s.Queue("a").Running("r", "a", 0, {{"n1", 2}, {"n2", 4}, {"n3", 2}});
  s.Waiting("g", "a", 0, 2, 4);
  s.input.waiting[0].request.required_level = "nvidia.com/gpu.clique";
  const Blocked b = BlockOf(s, Decide(s), "g");
  EXPECT_EQ(b.code, BlockCode::kTopology);
  EXPECT_EQ(b.message, "needs 8 GPUs in one NVLink domain; largest free is 6");
}

TEST(Blocked, EnoughGpusInThePoolButNoNodeHasRoomForAMember) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Running("r", "a", 0, {{"k0-n0", 4}, {"k0-n1", 4}});
  s.Waiting("g", "a", 0, 1, 8);
  const Blocked b = BlockOf(s, Decide(s), "g");
  EXPECT_EQ(b.code, BlockCode::kTopology);
  EXPECT_EQ(b.message,
            "needs 8 GPUs on the nodes it may use; they have 8 free, but its pods do not fit there (GPUs per node, CPU "
            "or memory)");
}

TEST(Blocked, NoEligibleNode) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Waiting("h100", "a", 0, 1, 1);
  s.input.waiting[0].request.members[0].gpu_models = {"H100"};
  const Blocked b = BlockOf(s, Decide(s), "h100");
  EXPECT_EQ(b.code, BlockCode::kNoEligibleNodes);
  EXPECT_EQ(b.message, "no node is eligible: GPU model, node selector, taints or cordon");
}

TEST(Blocked, HoldingAReservationBeingDrained) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Running("r", "a", 0, {{"k0-n0", 4}, {"k0-n1", 4}});
  s.Waiting("g", "a", 0, 2, 8);
  s.input.reservations.push_back(HeldReservation{"g", {s.cluster.Find("k0-n0"), s.cluster.Find("k0-n1")}, false});
  const AdmissionDecision d = Decide(s);
  EXPECT_EQ(BlockOf(s, d, "g").code, BlockCode::kReserved);
  EXPECT_EQ(BlockOf(s, d, "g").message, "holds a reservation of 2 nodes being drained");
}

TEST(Blocked, AwaitingTheGangsEvictedForIt) {
  // Reclaim this round evicts two gangs for B.
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b");
  s.Running("A1", "a", 0, {{"k0-n0", 4}, {"k0-n1", 4}}).Running("A2", "a", 5000, {{"k0-n0", 4}});
  s.Running("A3", "a", 1000, {{"k0-n1", 4}});
  s.Waiting("B", "b", 100, 1, 8);
  s.input.now = 10000;
  const AdmissionDecision d = Decide(s, WithReclaim());
  ASSERT_EQ(d.reclaims.size(), 2u);
  EXPECT_EQ(BlockOf(s, d, "B").code, BlockCode::kAwaitingVictims);
  EXPECT_EQ(BlockOf(s, d, "B").message, "waiting for 2 evicted gangs to leave");
  // Next round: the victims are terminating and still on B's reserved node.
  for (const Reclaimed& r : d.reclaims) s.input.running[r.running].terminating = true;
  s.input.reservations = {HeldReservation{"B", d.reservations[0].nodes, true}};
  const AdmissionDecision next = Decide(s, WithReclaim());
  EXPECT_TRUE(next.reclaims.empty());
  EXPECT_EQ(BlockOf(s, next, "B").message, "waiting for 2 evicted gangs to leave");
  // One has left.
  const int gone = d.reclaims[0].running;
  for (const Allocation& a : s.input.running[gone].allocations) s.cluster.Release(a);
  s.input.running.erase(s.input.running.begin() + gone);
  EXPECT_EQ(BlockOf(s, Decide(s, WithReclaim()), "B").message, "waiting for 1 evicted gang to leave");
}

TEST(Blocked, BehindAStarvingGangOfTheSameQueue) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Queue("b").Running("r", "a", 0, {{"k0-n0", 4}});
  s.Waiting("big", "a", 0, 1, 8).Waiting("small", "a", 1, 1, 2).Waiting("other", "b", 2, 1, 2);
  s.input.now = 7560;
  AdmissionConfig c;
  c.no_backfill_after_seconds = 3600;
  const AdmissionDecision d = Decide(s, c);
  EXPECT_EQ(BlockOf(s, d, "small").code, BlockCode::kBehindStarvingGang);
  EXPECT_EQ(BlockOf(s, d, "small").message,
            "waits behind gang big of the same queue, which has waited 2.1 h and does not fit");
  EXPECT_EQ(BlockOf(s, d, "big").message, "needs 8 GPUs; the pool has 2 free");  // After b's gang started.
  ASSERT_EQ(d.blocked.size(), 2u);
}

}  // namespace
}  // namespace gangplank::engine
