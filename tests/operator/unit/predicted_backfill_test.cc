// Runtime prediction in the reconciler: a gang's run that ends is learnt; a gang that declares no
// runtime starts on nodes reserved for another on its predicted one, and is held to it: past it, once the
// reserved gang could otherwise start, it is asked to checkpoint and then ended whole (BackfillOverrun),
// and never backfilled on a prediction again. The predictor's windows and the backfills are in the
// GPUPool's status, and a new model (a new leader) reads them back.
#include <gtest/gtest.h>

#include "operator/model/runtime_book.h"
#include "operator/status/pool_status.h"
#include "tests/operator/support/reconciler_fixture.h"

namespace gangplank::op {
namespace {

using testing::Json;
using testing::kNow;

class BackfillOnPrediction : public testing::ReconcilerTest {
 protected:
  void SetUp() override {
    pool_.admission.reserve_after_seconds = 30;
    pool_.admission.prediction.enabled = true;
    pool_.admission.prediction.min_samples = 1;
    pool_.admission.prediction.checkpoint_grace_seconds = 60;
    pool_.preemption.reclaim = false;
    Remake();
    for (int i = 0; i < 8; ++i) Node("n" + std::to_string(i), 8, i < 4 ? "r0" : "r1");
  }

  // A running pod admitted `ran` seconds before now.
  cache::PodInfo RunningFor(const std::string& name, const std::string& gang, int gpus, const std::string& queue,
                            const std::string& node, double ran) {
    cache::PodInfo p = cache::testing::GpuPod(name, {.node = node, .queue = queue, .gang = gang, .gpus = gpus});
    p.scheduler_name = "gangplank";
    p.resource_version = "1";
    p.creation_timestamp = "2027-01-14T00:00:00Z";
    p.annotations["gangplank.io/admission-id"] = std::to_string(static_cast<long long>(now_ - ran)) + "-00000001";
    p.annotations["gangplank.io/planned-node"] = node;
    Add(p);
    return p;
  }

  // Teaches the predictor that team-b's 4-GPU gangs run ten minutes: one ran that long and ended.
  void LearnShortRuns() {
    const cache::PodInfo done = RunningFor("done-0", "done", 4, "team-b", "n7", 600);
    Reconcile();
    Remove(done);
    Reconcile();
  }
};

TEST_F(BackfillOnPrediction, ARunThatEndsIsLearntAndAPlannedEvictionIsNot) {
  LearnShortRuns();
  ASSERT_TRUE(model_->runtimes.predictor);
  const auto windows = model_->runtimes.predictor->Export();
  ASSERT_FALSE(windows.empty());
  EXPECT_EQ(windows.front().second, std::vector<double>{600});
  EXPECT_NE(metrics_.Scrape().find("gangplank_operator_gang_runtime_seconds_count{pool=\"pool\"} 1"), std::string::npos);
}

TEST_F(BackfillOnPrediction, AGangStartsOnReservedNodesOnItsPredictionAndIsEndedWhenItOverstays) {
  LearnShortRuns();
  // n0-n5 are full for days; n6 and n7 run half a young gang each, so G (two 8-GPU pods) reserves them,
  // expected in an hour (a young gang's floor).
  for (int i = 0; i < 6; ++i) RunningFor("full-" + std::to_string(i), "full", 8, "team-b", "n" + std::to_string(i), 86400);
  const cache::PodInfo young0 = RunningFor("young-0", "young", 4, "team-b", "n6", 60);
  const cache::PodInfo young1 = RunningFor("young-1", "young", 4, "team-b", "n7", 60);
  Waiting("g-0", "g", 8, "team-a", 2);
  Waiting("g-1", "g", 8, "team-a", 2);
  now_ += 100;  // G has waited past reserveAfterSeconds.
  Reconcile();
  ASSERT_EQ(model_->reservations.count("ml/g"), 1u) << Reason("uid-g-0") << ": " << Message("uid-g-0");
  EXPECT_EQ(model_->reservations["ml/g"].nodes, (std::vector<std::string>{"n6", "n7"}));

  // S declares nothing; team-b's 4-GPU gangs ran ten minutes: it may use r1 and leave in time.
  const cache::PodInfo s = Waiting("s-0", "s", 4, "team-b", 1);
  now_ += 1;
  Reconcile();
  EXPECT_FALSE(Gated("uid-s-0")) << Message("uid-s-0");
  ASSERT_EQ(model_->runtimes.backfills.count("ml/s"), 1u);
  EXPECT_EQ(model_->runtimes.backfills["ml/s"].leave_by, now_ + 600);
  EXPECT_TRUE(HasEvent("Admitted", "gangs like it ran at most ~10 m in 90% of cases")) << writer_.log().back();
  EXPECT_NE(metrics_.Scrape().find("gangplank_operator_predicted_backfills_total{pool=\"pool\"} 1"), std::string::npos);

  // The young gang ends; S runs past its ten minutes, and G would start were S gone.
  cache::PodInfo bound = *writer_.Pod("uid-s-0");
  bound.node_name = PlannedNode("uid-s-0");
  bound.scheduling_gates.clear();
  Add(bound);
  Remove(young0);
  Remove(young1);
  now_ += 700;
  Reconcile();
  EXPECT_TRUE(writer_.evicted().empty()) << "asked to checkpoint first";
  const auto asked = writer_.Pod("uid-s-0");
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->annotations.at("gangplank.io/checkpoint-cause"), "BackfillOverrun");
  EXPECT_TRUE(HasEvent("CheckpointRequested", "started on nodes reserved for ml/g"));

  now_ += 61;  // Past the grace.
  Reconcile();
  EXPECT_EQ(writer_.evicted(), (std::vector<std::string>{"s-0"}));
  EXPECT_TRUE(HasEvent("BackfillOverrun", "ending the whole gang to requeue it in its place"));
  EXPECT_TRUE(model_->runtimes.backfills["ml/s"].overran);
  // The overstayed eviction is no victim of the budget, and the gang is never backfilled on a prediction again.
  EXPECT_TRUE(model_->recent_evictions.empty());
}

TEST_F(BackfillOnPrediction, TheStatusCarriesThePredictorAndTheBackfillsToANewLeader) {
  LearnShortRuns();
  model_->runtimes.backfills["ml/s"] = PredictedBackfill{kNow + 600, false, kNow + 660};
  ReconcileContext c;
  c.tree = std::make_shared<QueueTree>(BuildQueueTree(queues_));
  c.pools = {pool_};
  c.namespace_queue = [](const std::string&) { return std::string(); };
  c.now = now_;
  reconciler_->WritePoolStatus(*model_, c, PoolReadyCondition(pool_, PoolHealth{4, {}}), true);
  const auto status = writer_.Status("gpupools/pool");
  ASSERT_TRUE(status);
  ASSERT_TRUE(status->contains("runtimes")) << status->dump();
  EXPECT_EQ((*status)["backfills"][0]["gang"], "ml/s");
  EXPECT_EQ((*status)["backfills"][0]["checkpointBy"], "2027-01-15T08:11:00Z");

  // A new leader: a fresh model reads both back.
  Remake();
  c.pool_object = [&](const std::string&) { return Json{{"status", *status}}.dump(); };
  reconciler_->Reconcile(*model_, c);
  ASSERT_TRUE(model_->runtimes.predictor);
  EXPECT_EQ(model_->runtimes.predictor->Export().front().second, std::vector<double>{600});
  ASSERT_EQ(model_->runtimes.backfills.count("ml/s"), 1u);
  EXPECT_EQ(model_->runtimes.backfills["ml/s"].leave_by, kNow + 600);
  EXPECT_EQ(model_->runtimes.backfills["ml/s"].checkpoint_deadline, kNow + 660);
}

TEST(RuntimeBook, MalformedStatusIsSkippedNotBelieved) {
  engine::RuntimePredictor p(engine::PredictorConfig{1, 8});
  RestoreRuntimes(p, Json::parse(R"({"keys":[{"key":"*","seconds":[10,"x",-5,20]},{"seconds":[1]},"junk"]})"));
  EXPECT_EQ(p.Export(), (std::vector<std::pair<std::string, std::vector<double>>>{{"*", {10, 20}}}));
  RestoreRuntimes(p, Json::parse(R"({"keys":"nope"})"));
  EXPECT_EQ(p.Export().size(), 1u);
  const auto backfills = RestoreBackfills(Json::parse(
      R"([{"gang":"ml/a","leaveBy":"2027-01-15T08:10:00Z","overran":true},{"gang":"ml/b","leaveBy":"soon"},{"leaveBy":"2027-01-15T08:10:00Z"}])"));
  ASSERT_EQ(backfills.size(), 1u);
  EXPECT_EQ(backfills.at("ml/a").leave_by, kNow + 600);
  EXPECT_TRUE(backfills.at("ml/a").overran);
}

TEST(RuntimeBook, AGangIsKnownByItsClassElseItsOwnersNameStem) {
  EXPECT_EQ(NameStem("bert-ft-20261129-x7k2p"), "bert-ft");
  EXPECT_EQ(NameStem("resnet"), "resnet");
  EXPECT_EQ(NameStem("job-1"), "job");
  EXPECT_EQ(NameStem("-7"), "-7");
  Gang gang;
  gang.namespace_ = "ml";
  gang.identity.name = "bert-ft-20261129-1";
  gang.members.push_back(Member{});
  EXPECT_EQ(RuntimeKeyOf(gang, "team-a", 16).job_class, "bert-ft");
  EXPECT_EQ(RuntimeKeyOf(gang, "team-a", 16).gpus, 16);
  gang.members.front().pod.labels["gangplank.io/job-class"] = "eval";
  EXPECT_EQ(RuntimeKeyOf(gang, "team-a", 16).job_class, "eval");
  EXPECT_EQ(RuntimeKeyOf(gang, "team-a", 16).namespace_, "ml");
}

}  // namespace
}  // namespace gangplank::op
