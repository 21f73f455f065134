// Idle GPUs and GPU-seconds in the reconcile loop (operator/utilization/), against the in-memory API
// server: each read of utilization adds a sample per running gang; a gang idle past its queue's limit is
// reported once (condition, Event, metric), made the round's first victim, or asked to checkpoint and
// reclaimed and then held; missing data, an opt-out and youth protect a gang; GPU-seconds are counted.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "base/time_format.h"
#include "operator/reasons.h"
#include "tests/operator/support/reconciler_fixture.h"
#include "tests/support/prometheus_text.h"

namespace gangplank::op {
namespace {

using testing::kNow;

class IdleGangsTest : public testing::ReconcilerTest {
 protected:
  void Policy(cache::IdleAction action, int idle_seconds = 60) {
    pool_.idle.action = action;
    pool_.idle.idle_seconds = idle_seconds;
    pool_.idle.min_age_seconds = 0;
    Remake();
  }
  // Two 8-GPU members of "train" (team-a) on n0, n1 and a lone busy pod of team-b on n2.
  void Cluster() {
    for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i), 8, "r1");
    train0_ = Running("train-0", "train", 8, "team-a", "n0");
    train1_ = Running("train-1", "train", 8, "team-a", "n1");
    busy_ = Running("busy-0", "busy", 8, "team-b", "n2");
  }
  // One read of utilization at now_: each pod's percent (absent: no series); ok false: the read failed.
  void Read(const std::map<std::string, double>& percent, bool ok = true) {
    auto snapshot = std::make_shared<PodUtilizationSnapshot>();
    snapshot->at = now_;
    snapshot->ok = ok;
    if (!ok) snapshot->reason = "unreachable";
    for (const auto& [pod, p] : percent) snapshot->percent[{"ml", pod}] = p;
    auto all = std::make_shared<UtilizationSnapshots>();
    (*all)["pool"] = snapshot;
    utilization_ = all;
  }
  // Reads (train idle at `train`%, busy at 90%) and reconciles every 20 s for `seconds`.
  void RunFor(double seconds, double train = 0.5, bool ok = true) {
    for (double t = 0; t <= seconds; t += 20) {
      Read({{"train-0", train}, {"train-1", train}, {"busy-0", 90}}, ok);
      Reconcile();
      now_ += 20;
    }
  }
  std::optional<ConditionWrite> Idle(const cache::PodInfo& pod) {
    return writer_.ConditionOf(pod.uid, reasons::kGpusIdleCondition);
  }
  int Said(const std::string& reason) {
    int n = 0;
    for (const EventWrite& e : writer_.events()) n += e.reason == reason;
    return n;
  }
  double Metric(const std::string& name, const std::vector<std::string>& labels = {}) {
    return gangplank::testing::SumOfMetric(metrics_.Scrape(), name, labels);
  }
  cache::PodInfo train0_, train1_, busy_;
};

TEST_F(IdleGangsTest, ReportSaysIdleOnceAndTakesItBackWhenTheGpusWorkAgain) {
  Policy(cache::IdleAction::kReport);
  Cluster();
  RunFor(100);
  ASSERT_TRUE(Idle(train0_));
  EXPECT_EQ(Idle(train0_)->status, "True");
  EXPECT_EQ(Idle(train0_)->reason, reasons::kIdleGpus);
  EXPECT_NE(Idle(train0_)->message.find("below 5%"), std::string::npos) << Idle(train0_)->message;
  EXPECT_FALSE(Idle(busy_));
  EXPECT_EQ(Said(reasons::kGangIdle), 1);
  EXPECT_EQ(Metric("gangplank_operator_idle_gangs", {"queue=\"team-a\"", "policy=\"Report\""}), 1);
  EXPECT_EQ(Metric("gangplank_operator_idle_gang_actions_total", {"action=\"report\""}), 1);
  EXPECT_TRUE(writer_.evicted().empty());

  RunFor(0, 80);
  EXPECT_EQ(Idle(train0_)->status, "False");
  EXPECT_EQ(Idle(train0_)->reason, reasons::kGpusBusy);
  EXPECT_EQ(Metric("gangplank_operator_idle_gangs", {"queue=\"team-a\""}), 0);
  EXPECT_EQ(Said(reasons::kGangIdle), 1);
}

TEST_F(IdleGangsTest, MissingDataNeverMakesAGangIdle) {
  Policy(cache::IdleAction::kReclaim);
  Cluster();
  RunFor(200, 0.5, /*ok=*/false);
  EXPECT_FALSE(Idle(train0_));
  EXPECT_TRUE(writer_.evicted().empty());
  // One member without a series: the gang's figure would be a guess, so no sample counts.
  for (int i = 0; i < 10; ++i) {
    Read({{"train-0", 0}, {"busy-0", 90}});
    Reconcile();
    now_ += 20;
  }
  EXPECT_FALSE(Idle(train0_));
  EXPECT_TRUE(writer_.evicted().empty());
  EXPECT_EQ(Said(reasons::kCheckpointRequested), 0);
}

TEST_F(IdleGangsTest, AnOptedOutGangAndAYoungGangAreLeftAlone) {
  Policy(cache::IdleAction::kReclaim);
  Cluster();
  train0_.annotations["gangplank.io/idle-exempt"] = "true";
  train0_.resource_version = "2";
  Add(train0_);
  RunFor(200);
  EXPECT_FALSE(Idle(train0_));
  EXPECT_TRUE(writer_.evicted().empty());

  pool_.idle.min_age_seconds = 100000;  // Admitted 10,000 s before kNow.
  pool_.idle.allow_opt_out = false;
  Remake();
  RunFor(200);
  EXPECT_FALSE(Idle(train0_));
  EXPECT_TRUE(writer_.evicted().empty());
}

TEST_F(IdleGangsTest, ReclaimAsksForACheckpointThenEvictsTheGangWholeAndHoldsItsPods) {
  Policy(cache::IdleAction::kReclaim);
  pool_.fault_recovery.checkpoint_grace_seconds = 30;
  Remake();
  Cluster();
  RunFor(60);
  EXPECT_FALSE(writer_.Pod(train0_.uid)->annotations["gangplank.io/checkpoint-requested"].empty());
  EXPECT_FALSE(writer_.Pod(train1_.uid)->annotations["gangplank.io/checkpoint-requested"].empty());
  EXPECT_TRUE(writer_.evicted().empty());
  RunFor(40);  // Past the deadline.
  EXPECT_EQ(writer_.evicted(), (std::vector<std::string>{"train-0", "train-1"}));
  EXPECT_EQ(Said(reasons::kIdleReclaimed), 1);
  EXPECT_EQ(Metric("gangplank_operator_idle_gang_actions_total", {"action=\"reclaim\""}), 1);
  const RestartRecord* record = model_->restarts.Find(cache::GangIdentityOf(train0_).key);
  ASSERT_NE(record, nullptr);
  EXPECT_TRUE(record->failed);
  EXPECT_EQ(record->cause, kIdleReclaimCause);

  // Its owner makes the pods again: they wait, saying why.
  tracker_.Remove(train0_.uid);
  tracker_.Remove(train1_.uid);
  model_->state().DeletePod(train0_.uid);
  model_->state().DeletePod(train1_.uid);
  const cache::PodInfo again = Waiting("train-0b", "train", 8, "team-a", 2);
  Waiting("train-1b", "train", 8, "team-a", 2);
  Reconcile();
  EXPECT_EQ(Reason(again.uid), reasons::kIdleReclaimed);
  EXPECT_TRUE(Gated(again.uid));
}

// team-a (guarantee 8) holds 16 of 16 GPUs; its fair share is 12, so taking its 16-GPU gang for team-b
// would take it below its share: a busy gang is no victim, an idle one is.
TEST_F(IdleGangsTest, AnIdlePreemptibleGangIsTakenWhereABusyOneWouldLeaveItsQueueBelowItsShare) {
  queues_ = {cache::UniformQueue("team-a", 8), cache::UniformQueue("team-b", 0)};
  Policy(cache::IdleAction::kPreemptible);
  for (int i = 0; i < 2; ++i) Node("n" + std::to_string(i), 8, "r1");
  train0_ = Running("train-0", "train", 8, "team-a", "n0");
  train1_ = Running("train-1", "train", 8, "team-a", "n1");
  const cache::PodInfo waiting = Waiting("urgent-0", "urgent", 8, "team-b", 1);
  // Busy: nothing is taken.
  for (int i = 0; i < 5; ++i) {
    Read({{"train-0", 60}, {"train-1", 60}});
    Reconcile();
    now_ += 20;
  }
  EXPECT_TRUE(writer_.evicted().empty());
  // Idle past the limit: the first victim, whatever its queue's share.
  for (int i = 0; i < 5 && writer_.evicted().empty(); ++i) {
    Read({{"train-0", 0}, {"train-1", 0}});
    Reconcile();
    now_ += 20;
  }
  EXPECT_EQ(writer_.evicted(), (std::vector<std::string>{"train-0", "train-1"}));
  EXPECT_EQ(Metric("gangplank_operator_idle_gang_actions_total", {"action=\"preemptible\""}), 1);
}

TEST_F(IdleGangsTest, GpuSecondsAreCountedPerQueueAndNamespaceBusyOnesByUtilization) {
  pool_.fair_share.usage_half_life_seconds = 3600;
  Remake();
  Cluster();
  RunFor(100, 50);  // 6 counted stretches of 20 s... the first read only starts the count.
  const double train = Metric("gangplank_operator_gpu_seconds_total", {"queue=\"team-a\"", "namespace=\"ml\""});
  EXPECT_NEAR(train, 16 * 100, 1e-6);
  EXPECT_NEAR(Metric("gangplank_operator_busy_gpu_seconds_total", {"queue=\"team-a\""}), 16 * 100 * 0.5, 1e-6);
  EXPECT_NEAR(Metric("gangplank_operator_busy_gpu_seconds_total", {"queue=\"team-b\""}), 8 * 100 * 0.9, 1e-6);
  EXPECT_NEAR(model_->queue_figures["team-a"].used_gpu_hours, 16 * 100 / 3600.0, 1e-9);
  EXPECT_GT(model_->queue_figures["team-a"].decayed_usage, 0);
  for (const engine::AdmissionQueue& q : model_->book.input().queues) EXPECT_GT(q.past_usage, 0) << q.name;
}

TEST_F(IdleGangsTest, WithoutUtilizationGpuSecondsAreStillCountedAndNoPastUsageWithoutOptIn) {
  Cluster();
  for (int i = 0; i < 4; ++i) {
    Reconcile();
    now_ += 30;
  }
  EXPECT_NEAR(Metric("gangplank_operator_gpu_seconds_total", {"queue=\"team-b\""}), 8 * 90, 1e-6);
  EXPECT_EQ(Metric("gangplank_operator_busy_gpu_seconds_total"), -1);
  EXPECT_LT(model_->queue_figures["team-a"].decayed_usage, 0);
  for (const engine::AdmissionQueue& q : model_->book.input().queues) EXPECT_EQ(q.past_usage, 0) << q.name;
}

}  // namespace
}  // namespace gangplank::op
