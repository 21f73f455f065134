// The reconciler against an in-memory API server (FakeClusterWriter): admissions written whole, whole
// gangs evicted, every condition reason a waiting gang can carry, recovery of half-written plans, and
// the pool's status.
#include "operator/admission/reconciler.h"

#include <gtest/gtest.h>

#include "operator/status/pool_status.h"
#include "tests/operator/support/reconciler_fixture.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;
using testing::FakeClusterWriter;
using testing::kNow;
using testing::ReconcilerTest;

TEST_F(ReconcilerTest, AdmitsACompleteGangWholeInOneRack) {
  for (int i = 0; i < 4; ++i) Node("r1-" + std::to_string(i), 8, "r1");
  for (int i = 0; i < 4; ++i) Node("r2-" + std::to_string(i), 8, "r2");
  Running("busy", "other", 8, "team-b", "r2-0");
  for (int i = 0; i < 4; ++i) Waiting("g-" + std::to_string(i), "g", 8, "team-a", 4);
  const RoundReport r = Reconcile();
  EXPECT_EQ(r.admitted, 1);
  std::set<std::string> nodes;
  for (int i = 0; i < 4; ++i) {
    const std::string uid = "uid-g-" + std::to_string(i);
    nodes.insert(PlannedNode(uid));
    EXPECT_FALSE(Gated(uid)) << uid;
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"r1-0", "r1-1", "r1-2", "r1-3"}));  // The rack that is wholly free.
  EXPECT_EQ(Reason("uid-g-0"), "Admitted");
  EXPECT_EQ(writer_.ConditionOf("uid-g-0")->type, "gangplank.io/GangAdmitted");
  // The admission is in the caches at once: a second round admits nothing more and plans nothing twice.
  EXPECT_EQ(Reconcile().admitted, 0);
}

// The gangs one round admits are written side by side (ReconcilerOptions::admission_writers), each
// still whole: with writes that each wait on the API server, one at a time caps admissions at one round
// trip each.
class AdmissionWriters : public ReconcilerTest {
 protected:
  // Six lone 8-GPU pods on six free nodes, admitted in one round; the most pod writes seen at once.
  int AdmitSix() {
    for (int i = 0; i < 6; ++i) Node("n" + std::to_string(i), 8, "r1");
    for (int i = 0; i < 6; ++i) Waiting("p" + std::to_string(i), "p" + std::to_string(i), 8, "team-a");
    EXPECT_EQ(Reconcile().admitted, 6);
    for (int i = 0; i < 6; ++i) EXPECT_FALSE(Gated("uid-p" + std::to_string(i)));
    return writer_.MostInFlight();
  }
};

TEST_F(AdmissionWriters, OneRoundsGangsAreWrittenSideBySide) {
  writer_.OverlapWrites(4);  // Each write is answered only once four are in flight (or after 2 s).
  EXPECT_GE(AdmitSix(), 4);
}

TEST_F(AdmissionWriters, OneWriterWritesOneGangAtATime) {
  Remake(1);
  EXPECT_EQ(AdmitSix(), 1);
}

TEST_F(ReconcilerTest, AnIncompleteGangWaitsAndSaysHowFarItIs) {
  Node("n1", 8, "r1");
  cache::PodInfo p = cache::testing::GpuPod("train-0", {.queue = "team-a", .gpus = 1});
  p.scheduler_name = "gangplank";
  p.scheduling_gates = {std::string(cache::kAdmissionGate)};
  p.resource_version = "1";
  p.controller = cache::OwnerRef{"batch/v1", "Job", "train", "uid-job"};
  Add(p);
  reader_.objects["Job/ml/train"] = Json::parse(R"({"spec":{"parallelism":4,"completions":4}})");
  EXPECT_EQ(Reconcile().admitted, 0);
  EXPECT_EQ(Reason("uid-train-0"), "GangIncomplete");
  EXPECT_EQ(Message("uid-train-0"), "1 of 4 pods exist (size from Job ml/train spec.parallelism)");
  EXPECT_TRUE(Gated("uid-train-0"));
}

TEST_F(ReconcilerTest, QueueReasons) {
  Node("n1", 8, "r1");
  queues_.push_back(cache::UniformQueue("org", 0));
  queues_.back().parent = "";
  cache::QueueConfig child = cache::UniformQueue("child", 0);
  child.parent = "org";
  queues_.push_back(child);
  cache::QueueConfig elsewhere = cache::UniformQueue("elsewhere", 0);
  elsewhere.any_pool.reset();
  elsewhere.pools["other-pool"] = {};
  queues_.push_back(elsewhere);
  Waiting("missing", "", 1, "nope");
  Waiting("inner", "", 1, "org");
  Waiting("unqueued", "", 1, "");
  Reconcile();
  EXPECT_EQ(Reason("uid-missing"), "QueueNotFound");
  EXPECT_EQ(Message("uid-missing"), "queue nope does not exist");
  EXPECT_EQ(Reason("uid-inner"), "QueueNotLeaf");
  EXPECT_EQ(Reason("uid-unqueued"), "NoQueue");
}

// A pod's queue label is the tenant's to write, so the queue must admit the pod's namespace and priority
// (cache/crd/queue_access.h): before, any namespace could spend any team's guarantee.
TEST_F(ReconcilerTest, AQueueAdmitsOnlyItsNamespacesAndPriorities) {
  Node("n1", 8, "r1");
  cache::QueueConfig closed = cache::UniformQueue("team-x", 0);
  closed.namespaces = std::vector<std::string>{"team-x"};
  queues_.push_back(closed);
  cache::QueueConfig capped = cache::UniformQueue("capped", 0);
  capped.max_priority = 100;
  queues_.push_back(capped);
  Waiting("intruder", "", 1, "team-x");  // GpuPod's namespace is ml.
  Waiting("urgent", "", 1, "capped", 0, 1000);
  Reconcile();
  EXPECT_EQ(Reason("uid-intruder"), "QueueForbidden");
  EXPECT_EQ(Message("uid-intruder"), "namespace ml may not use queue team-x (not in its spec.namespaces)");
  EXPECT_TRUE(Gated("uid-intruder"));
  EXPECT_EQ(Reason("uid-urgent"), "QueueForbidden");
  EXPECT_EQ(Message("uid-urgent"), "priority 1000 is above queue capped's maxPriority of 100");

  // A namespace an admin bound to team-a by its label may not name another open queue.
  namespace_queues_["ml"] = "team-a";
  queues_.push_back(cache::UniformQueue("open", 0));
  Waiting("elsewhere", "", 1, "open");
  Waiting("own", "", 1, "team-a");
  const RoundReport r = Reconcile();
  EXPECT_EQ(Reason("uid-elsewhere"), "QueueForbidden");
  EXPECT_EQ(Message("uid-elsewhere"), "namespace ml is bound to queue team-a by its gangplank.io/queue label and may not use queue open");
  EXPECT_FALSE(Gated("uid-own"));  // Admitted (a lone pod admitted at once is given no condition).
  EXPECT_EQ(r.admitted, 1);
}

TEST_F(ReconcilerTest, PoolReasons) {
  Node("n1", 8, "r1");
  cache::PoolConfig other;
  other.name = "zz-other";
  extra_pools_.push_back(other);
  Waiting("two-pools", "", 1, "team-a");  // team-a may use both pools.
  cache::PodInfo labelled = cache::testing::GpuPod("ghost-pool", {.queue = "team-a", .gpus = 1});
  labelled.scheduler_name = "gangplank";
  labelled.scheduling_gates = {std::string(cache::kAdmissionGate)};
  labelled.labels["gangplank.io/pool"] = "ghost";
  Add(labelled);
  Reconcile();
  EXPECT_EQ(Reason("uid-two-pools"), "AmbiguousPool");
  EXPECT_EQ(Reason("uid-ghost-pool"), "PoolNotFound");
}

TEST_F(ReconcilerTest, PodAndSizeReasons) {
  Node("n1", 8, "r1");
  cache::PodInfo bad = cache::testing::GpuPod("bad", {.queue = "team-a", .gpus = 1});
  bad.scheduler_name = "gangplank";
  bad.scheduling_gates = {std::string(cache::kAdmissionGate)};
  bad.containers[0].requests.emplace_back("gangplank.io/gpu-milli", "500");  // Both whole and shared GPUs.
  Add(bad);
  cache::PodInfo grouped = cache::testing::GpuPod("grouped", {.queue = "team-a", .gpus = 1});
  grouped.scheduler_name = "gangplank";
  grouped.scheduling_gates = {std::string(cache::kAdmissionGate)};
  grouped.labels["scheduling.x-k8s.io/pod-group"] = "pg";  // No such PodGroup.
  Add(grouped);
  Reconcile();
  EXPECT_EQ(Reason("uid-bad"), "InvalidPod");
  EXPECT_NE(Message("uid-bad").find("use one of them"), std::string::npos) << Message("uid-bad");
  EXPECT_EQ(Reason("uid-grouped"), "GangSizeUnknown");
  EXPECT_EQ(Message("uid-grouped"), "PodGroup ml/pg (scheduling.x-k8s.io/v1alpha1) does not exist");
}

TEST_F(ReconcilerTest, EngineReasonsReachTheCondition) {
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i), 8, "r" + std::to_string(i));
  queues_[0] = cache::UniformQueue("team-a", 0, 8);
  Running("a-run", "a-run", 8, "team-a", "n0");  // team-a is at its limit; 16 GPUs free, 8 per rack.
  Waiting("over-limit", "", 1, "team-a");
  for (int i = 0; i < 4; ++i) Waiting("big-" + std::to_string(i), "big", 8, "team-b", 4);  // 32 GPUs.
  cache::PodInfo picky = cache::testing::GpuPod("picky", {.queue = "team-b", .gpus = 1});
  picky.scheduler_name = "gangplank";
  picky.scheduling_gates = {std::string(cache::kAdmissionGate)};
  picky.node_selector = {{"disk", "nvme"}};
  Add(picky);
  for (int i = 0; i < 2; ++i) {
    cache::PodInfo p = cache::testing::GpuPod("one-rack-" + std::to_string(i), {.queue = "team-b", .gang = "one-rack", .gpus = 8});
    p.scheduler_name = "gangplank";
    p.scheduling_gates = {std::string(cache::kAdmissionGate)};
    p.annotations["gangplank.io/gang-size"] = "2";
    p.annotations["gangplank.io/topology-required"] = "rack";
    Add(p);
  }
  EXPECT_EQ(Reconcile().admitted, 0);
  EXPECT_EQ(Reason("uid-over-limit"), "QueueAtLimit");
  EXPECT_NE(Message("uid-over-limit").find("queue team-a at its limit of 8 GPUs"), std::string::npos) << Message("uid-over-limit");
  EXPECT_EQ(Reason("uid-big-0"), "InsufficientGPUs");
  EXPECT_EQ(Message("uid-big-0"), "needs 32 GPUs; the pool has 16 free");
  EXPECT_EQ(Reason("uid-picky"), "NoEligibleNodes");
  EXPECT_EQ(Reason("uid-one-rack-0"), "TopologyUnsatisfiable");
  EXPECT_NE(Message("uid-one-rack-0").find("rack"), std::string::npos) << Message("uid-one-rack-0");
  for (const char* pod : {"uid-over-limit", "uid-big-0", "uid-picky", "uid-one-rack-0"}) EXPECT_TRUE(Gated(pod)) << pod;
}

// Review (issue 31): a GPU pod of another scheduler (or bound at creation) held GPUs no queue was charged
// for. It is charged to its namespace's queue (the admin's namespace label, never the pod's own label),
// so that queue's gangs wait for its limit; it is never a victim, and its going frees the queue.
TEST_F(ReconcilerTest, UngovernedGpuPodsAreChargedToTheirNamespacesQueue) {
  for (const char* n : {"n0", "n1", "n2"}) Node(n, 8, "r1");
  queues_[0] = cache::UniformQueue("team-a", 0, 16);
  cache::PodInfo system = cache::testing::GpuPod("system", {.node = "n0", .queue = "team-b", .gpus = 8});
  system.scheduler_name = "default-scheduler";
  Add(system);
  Waiting("mine", "", 8, "team-a");
  Reconcile();
  EXPECT_FALSE(Gated("uid-mine")) << "the namespace has no queue: the pod is charged to none";

  namespace_queues_["ml"] = "team-a";
  model_->NoteGang(UngovernedKey("ml"));  // As the controller does when a namespace's label changes.
  Waiting("more", "", 8, "team-a");
  Reconcile();
  EXPECT_EQ(Reason("uid-more"), "QueueAtLimit") << "team-a holds 8 of its own and is charged the pod's 8";
  EXPECT_NE(Message("uid-more").find("queue team-a at its limit of 16 GPUs"), std::string::npos) << Message("uid-more");
  EXPECT_EQ(model_->queue_figures["team-a"].used, 16);
  EXPECT_EQ(model_->queue_figures["team-b"].used, 0) << "the pod's own queue label is not believed";

  Remove(system);
  Remove(writer_.Pod("uid-mine").value());
  Reconcile();
  EXPECT_EQ(Reason("uid-more"), "Admitted");
  Reconcile();  // The admitted gang is counted as running from the next round.
  EXPECT_EQ(model_->queue_figures["team-a"].used, 8);
}

TEST_F(ReconcilerTest, ReclaimEvictsAWholeGangOfTheQueueAboveItsShare) {
  pool_.preemption.reclaim = true;
  Remake();
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i), 8, "r1");
  for (int i = 0; i < 4; ++i) Running("a-" + std::to_string(i), "hog", 8, "team-a", "n" + std::to_string(i));
  for (int i = 0; i < 2; ++i) Waiting("b-" + std::to_string(i), "starved", 8, "team-b", 2);
  const RoundReport r = Reconcile();
  EXPECT_EQ(r.evicted, 1);
  EXPECT_EQ(writer_.evicted().size(), 4u);  // The whole gang, nothing else.
  bool reclaim_event = false;
  for (const EventWrite& e : writer_.events()) reclaim_event = reclaim_event || e.reason == "Reclaim";
  EXPECT_TRUE(reclaim_event);
  EXPECT_EQ(Reason("uid-b-0"), "AwaitingVictims");
}

TEST_F(ReconcilerTest, PriorityPreemptionWithinAQueueTakesAWholeLowerGang) {
  queues_[0].preempt_lower_priority = true;
  for (int i = 0; i < 2; ++i) Node("n" + std::to_string(i), 8, "r1");
  for (int i = 0; i < 2; ++i) Running("low-" + std::to_string(i), "low", 8, "team-a", "n" + std::to_string(i), 0);
  for (int i = 0; i < 2; ++i) Waiting("high-" + std::to_string(i), "high", 8, "team-a", 2, 100);
  EXPECT_EQ(Reconcile().evicted, 1);
  EXPECT_EQ(writer_.evicted(), (std::vector<std::string>{"low-0", "low-1"}));
}

TEST_F(ReconcilerTest, ABudgetThatForbidsTheWholeGangKeepsItWhole) {
  queues_[0].preempt_lower_priority = true;
  for (int i = 0; i < 2; ++i) Node("n" + std::to_string(i), 8, "r1");
  for (int i = 0; i < 2; ++i) Running("low-" + std::to_string(i), "low", 8, "team-a", "n" + std::to_string(i), 0);
  for (int i = 0; i < 2; ++i) Waiting("high-" + std::to_string(i), "high", 8, "team-a", 2, 100);
  writer_.AddBudget(Json::parse(R"({"metadata":{"name":"low-pdb"},"spec":{"selector":{"matchLabels":{"gangplank.io/gang":"low"}}},
                                    "status":{"disruptionsAllowed":1}})"));
  Reconcile();
  EXPECT_TRUE(writer_.evicted().empty());
  bool blocked = false;
  for (const EventWrite& e : writer_.events()) blocked = blocked || (e.reason == "EvictionBlocked" && e.message.find("low-pdb") != std::string::npos);
  EXPECT_TRUE(blocked);
  // Shielded: the next round does not pick it again.
  now_ += 5;
  Reconcile();
  EXPECT_TRUE(writer_.evicted().empty());
}

TEST_F(ReconcilerTest, AConflictRollsBackAndTheNextRoundAdmitsWhole) {
  for (int i = 0; i < 2; ++i) Node("n" + std::to_string(i), 8, "r1");
  for (int i = 0; i < 2; ++i) Waiting("g-" + std::to_string(i), "g", 8, "team-a", 2);
  writer_.FailPlanOf("g-1");
  RoundReport r = Reconcile();
  EXPECT_EQ(r.admitted, 0);
  EXPECT_EQ(r.conflicts, 1);
  EXPECT_EQ(PlannedNode("uid-g-0"), "");  // Rolled back.
  EXPECT_TRUE(Gated("uid-g-0"));
  r = Reconcile();
  EXPECT_EQ(r.admitted, 1);
  EXPECT_FALSE(Gated("uid-g-0"));
  EXPECT_FALSE(Gated("uid-g-1"));
}

TEST_F(ReconcilerTest, RecoversHalfWrittenAdmissions) {
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i), 8, "r1");
  // A leader stopped after planning one member of three: roll back, then admit whole.
  cache::PodInfo half = Waiting("half-0", "half", 8, "team-a", 3);
  Waiting("half-1", "half", 8, "team-a", 3);
  Waiting("half-2", "half", 8, "team-a", 3);
  half = writer_.PlanPod(half, "n3", "1799999999-dead");
  Add(half);
  // Another stopped between the phases: every member planned, one released.
  cache::PodInfo w0 = Waiting("whole-0", "whole", 8, "team-b", 2);
  cache::PodInfo w1 = Waiting("whole-1", "whole", 8, "team-b", 2);
  w0 = writer_.ReleasePod(writer_.PlanPod(w0, "n0", "1799999999-beef"));
  w1 = writer_.PlanPod(w1, "n1", "1799999999-beef");
  Add(w0);
  Add(w1);
  Reconcile();
  EXPECT_FALSE(Gated("uid-whole-1"));                // Finished: released.
  EXPECT_EQ(PlannedNode("uid-whole-1"), "n1");       // On its original plan.
  bool rolled_back = false;
  for (const EventWrite& e : writer_.events()) rolled_back = rolled_back || e.reason == "AdmissionRolledBack";
  EXPECT_TRUE(rolled_back);
  Reconcile();  // The rolled-back gang is planned whole now (n2, n3 and... it needs 3 nodes: n2, n3 free only).
  const int planned = (PlannedNode("uid-half-0") != "") + (PlannedNode("uid-half-1") != "") + (PlannedNode("uid-half-2") != "");
  EXPECT_TRUE(planned == 0 || planned == 3) << "half-admitted: " << planned << " of 3 planned";
}

TEST_F(ReconcilerTest, WritesThePoolStatus) {
  for (int i = 0; i < 2; ++i) Node("n" + std::to_string(i), 8, "r" + std::to_string(i));
  Running("r", "r", 2, "team-a", "n0");
  Waiting("w", "", 16, "team-b");
  ReconcileContext c;
  c.tree = std::make_shared<QueueTree>(BuildQueueTree(queues_));
  c.pools = {pool_};
  c.namespace_queue = [](const std::string&) { return std::string(); };
  c.now = now_;
  reconciler_->Reconcile(*model_, c);
  reconciler_->WritePoolStatus(*model_, c, PoolReadyCondition(pool_, PoolHealth{2, {}}), true);
  const auto status = writer_.Status("gpupools/pool");
  ASSERT_TRUE(status);
  EXPECT_EQ((*status)["nodes"], 2);
  EXPECT_EQ((*status)["capacityGPUs"], 16);
  EXPECT_EQ((*status)["allocatedGPUs"], 2.0);
  EXPECT_EQ((*status)["largestGangGPUs"], 14);
  EXPECT_EQ((*status)["pendingGangs"], 1);
  EXPECT_EQ((*status)["largestGang"][1]["level"], "rack");
  EXPECT_EQ((*status)["largestGang"][1]["gpus"], 8);
  EXPECT_EQ(writer_.StatusCondition("gpupools/pool")->reason, "Ready");
  bool team_b_pending = false;
  for (const auto& q : (*status)["queues"]) team_b_pending = team_b_pending || (q["name"] == "team-b" && q["pendingGangs"] == 1);
  EXPECT_TRUE(team_b_pending) << status->dump();
}

// Issue 37: at 1,000 nodes a pod ends every moment, and each ending made the next reconcile look over
// every running gang for faults. Only a node change that may be a fault (or the periodic look) does now.
TEST_F(ReconcilerTest, APodEndingDoesNotMakeTheNextRoundLookOverEveryRunningGangForFaults) {
  for (int i = 0; i < 2; ++i) Node("n" + std::to_string(i), 8, "r" + std::to_string(i));
  Running("r", "r", 2, "team-a", "n0");
  const cache::PodInfo done = Running("d", "d", 2, "team-a", "n1");
  Reconcile();
  const double first_look = model_->last_fault_look;
  EXPECT_EQ(first_look, now_);

  now_ += 1;
  Remove(done);  // Capacity freed, a gang gone.
  ReconcileAsNoted();  // Reconcile() would note the queues changed, a cause to look.
  EXPECT_EQ(model_->last_fault_look, first_look) << "a pod ending is no node's fault";

  now_ += 1;
  model_->NoteNodesChanged();  // A node went, shrank or its fault signals changed.
  ReconcileAsNoted();
  EXPECT_EQ(model_->last_fault_look, now_);

  now_ += kFaultLookSeconds;  // And every gang is looked over at least this often whatever happens.
  ReconcileAsNoted();
  EXPECT_EQ(model_->last_fault_look, now_);
}

TEST(PoolReadyCondition, NoNodesAndOverlapsAreReported) {
  cache::PoolConfig p;
  p.name = "a100";
  p.node_selector = {{"pool", "a100"}};
  EXPECT_EQ(PoolReadyCondition(p, {0, {}}).reason, "NoNodes");
  EXPECT_EQ(PoolReadyCondition(p, {0, {}}).message, "the pool selects no nodes (pool=a100)");
  const ConditionWrite overlap = PoolReadyCondition(p, {4, {{"h100", 2}}});
  EXPECT_EQ(overlap.status, "False");
  EXPECT_EQ(overlap.reason, "OverlappingPools");
  EXPECT_EQ(overlap.message, "2 of its 4 nodes are also selected by h100 (2); shared nodes belong to no pool until the selectors are made disjoint");
  EXPECT_EQ(PoolReadyCondition(p, {4, {}}).status, "True");
}

}  // namespace
}  // namespace gangplank::op
