// The gang's condition and its Events: what the reconciler decides reaches the lead pod, with numbers-
// only rewrites held back, and a new reason or status never held back behind them.
#include "operator/status/gang_conditions.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "operator/reasons.h"
#include "tests/operator/support/fake_cluster_writer.h"

namespace gangplank::op::testing {
namespace {

using namespace std::chrono_literals;

Gang FourPodGang() {
  Gang gang;
  gang.key = "team/Job/train";
  gang.namespace_ = "team";
  Member lead;
  lead.pod.name = "train-0";
  lead.pod.namespace_ = "team";
  lead.pod.uid = "uid-0";
  gang.members.push_back(lead);
  return gang;
}

class GangConditionsTest : public ::testing::Test {
 protected:
  std::atomic<double> now_{1000};
  FakeClusterWriter writer_;
  GangConditions conditions_{writer_, [this] { return now_.load(); }, 30};

  std::optional<ConditionWrite> Written() { return writer_.ConditionOf("uid-0"); }
  int EventsWithReason(const std::string& reason) {
    int n = 0;
    for (const EventWrite& e : writer_.events()) n += e.reason == reason;
    return n;
  }
};

TEST_F(GangConditionsTest, NumbersOnlyChangesWaitOutTheRewriteInterval) {
  const Gang gang = FourPodGang();
  conditions_.Blocked(gang, reasons::kGangIncomplete, "1 of 4 pods exist");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  ASSERT_TRUE(Written());
  EXPECT_EQ(Written()->message, "1 of 4 pods exist");

  conditions_.Blocked(gang, reasons::kGangIncomplete, "2 of 4 pods exist");
  EXPECT_FALSE(conditions_.WaitIdle(300ms));  // Held back: same reason, 30 s not passed.
  EXPECT_EQ(Written()->message, "1 of 4 pods exist");
  EXPECT_EQ(EventsWithReason(reasons::kGangIncomplete), 1);
}

// A native PodGroup's gang: the condition goes to the PodGroup's status too, and its Events name the
// PodGroup (kubectl describe podgroup shows them); another gang's conditions stay on its pods.
TEST_F(GangConditionsTest, ANativePodGroupGetsTheConditionAndTheEvents) {
  Gang gang = FourPodGang();
  gang.key = "team/PodGroup.scheduling.k8s.io/train";
  gang.members.front().pod.pod_group_name = "train";
  gang.identity = cache::GangIdentityOf(gang.members.front().pod);
  conditions_.Blocked(gang, reasons::kGangIncomplete, "1 of 4 pods exist");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  const auto on_group = writer_.PodGroupCondition("team/train", kGangConditionType);
  ASSERT_TRUE(on_group);
  EXPECT_EQ(on_group->status, "False");
  EXPECT_EQ(on_group->reason, reasons::kGangIncomplete);
  EXPECT_EQ(on_group->message, "1 of 4 pods exist");
  ASSERT_TRUE(Written());
  ASSERT_EQ(writer_.events().size(), 1u);
  EXPECT_EQ(writer_.events().front().object.api_version, "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(writer_.events().front().object.kind, "PodGroup");
  EXPECT_EQ(writer_.events().front().object.name, "train");
  EXPECT_EQ(writer_.events().front().object.uid, "");  // Nobody told this GangConditions the PodGroup's UID.
  GangConditions told{writer_, [this] { return now_.load(); }, 30, [](const std::string& key) {
                        return key == "team/PodGroup.scheduling.k8s.io/train" ? std::string("pg-uid") : std::string();
                      }};
  told.Event(gang, "Normal", "Probe", "m");
  EXPECT_EQ(writer_.events().back().object.uid, "pg-uid");

  const Gang job = FourPodGang();
  conditions_.Admitted(job, "admitted");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  EXPECT_FALSE(writer_.PodGroupCondition("team/train", kGangConditionType)->status == "True");
}

TEST_F(GangConditionsTest, AdmissionIsWrittenAtOnceEvenBehindAHeldBackMessage) {
  const Gang gang = FourPodGang();
  conditions_.Blocked(gang, reasons::kGangIncomplete, "1 of 4 pods exist");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  conditions_.Blocked(gang, reasons::kGangIncomplete, "3 of 4 pods exist");
  std::this_thread::sleep_for(100ms);  // Now waiting on the 30 s timer.
  conditions_.Admitted(gang, "placed on gpu-1 and gpu-2");

  ASSERT_TRUE(conditions_.WaitIdle(5s));  // Before the fix this took the whole interval.
  ASSERT_TRUE(Written());
  EXPECT_EQ(Written()->status, "True");
  EXPECT_EQ(Written()->reason, reasons::kAdmitted);
  EXPECT_EQ(Written()->message, "placed on gpu-1 and gpu-2");
  EXPECT_EQ(EventsWithReason(reasons::kAdmitted), 1);
}

// A lone pod admitted before anything was said about it: no condition and no Event of gangplank's
// (kube-scheduler's PodScheduled and Scheduled on the same pod follow). Seen waiting first, admitted with
// something to say, a gang of several pods, or a PodGroup of one: the admission is written and announced.
TEST_F(GangConditionsTest, ALonePodAdmittedAtOnceGetsNoConditionAndNoEvent) {
  Gang lone = FourPodGang();
  lone.key = "team/Pod/solo";
  conditions_.Admitted(lone, "admitted into rack=r1");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  EXPECT_FALSE(Written());
  EXPECT_EQ(conditions_.ReasonOf(lone.key), reasons::kAdmitted);  // Decided all the same (the dry run reads it).
  EXPECT_TRUE(writer_.events().empty());

  Gang waited = lone;
  waited.key = "team/Pod/waited";
  waited.members.front().pod.uid = "uid-w";
  conditions_.Blocked(waited, "InsufficientGPUs", "needs 8 GPUs");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  conditions_.Admitted(waited, "admitted");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  ASSERT_TRUE(writer_.ConditionOf("uid-w"));
  EXPECT_EQ(writer_.ConditionOf("uid-w")->reason, reasons::kAdmitted);
  EXPECT_EQ(EventsWithReason("InsufficientGPUs"), 1);
  EXPECT_EQ(EventsWithReason(reasons::kAdmitted), 1);

  Gang backfill = lone;
  backfill.key = "team/Pod/backfill";
  backfill.members.front().pod.uid = "uid-b";
  conditions_.Admitted(backfill, "admitted; ended if it still runs at 12:00", true);
  Gang pair = lone;
  pair.key = "team/Job/pair";
  pair.members.push_back(pair.members.front());
  pair.members.back().pod.uid = "uid-p1";
  pair.members.front().pod.uid = "uid-p0";
  conditions_.Admitted(pair, "admitted");
  Gang group = lone;
  group.key = "team/PodGroup/one";
  group.identity.source = cache::GangSource::kPodGroup;
  group.members.front().pod.uid = "uid-g";
  conditions_.Admitted(group, "admitted");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  EXPECT_TRUE(writer_.ConditionOf("uid-b"));
  EXPECT_TRUE(writer_.ConditionOf("uid-p0"));
  EXPECT_TRUE(writer_.ConditionOf("uid-g"));
  EXPECT_EQ(EventsWithReason(reasons::kAdmitted), 4);
}

// The first word that a gang waits waits itself: a gang admitted within the delay was never said to wait
// (a lone pod: nothing written at all), and one still waiting past it is told, Event and all.
TEST_F(GangConditionsTest, TheFirstWordThatAGangWaitsComesOnlyOnceItHasWaitedTheDelay) {
  GangConditions delayed{writer_, [this] { return now_.load(); }, 30, {}, 5};
  Gang lone = FourPodGang();
  delayed.Blocked(lone, "InsufficientGPUs", "needs 8 GPUs");
  EXPECT_FALSE(delayed.WaitIdle(300ms));  // Held: it has waited no time yet.
  delayed.Admitted(lone, "admitted into rack=r1");
  ASSERT_TRUE(delayed.WaitIdle(5s));
  EXPECT_FALSE(Written());
  EXPECT_TRUE(writer_.events().empty());

  Gang pair = FourPodGang();
  pair.key = "team/Job/pair";
  pair.members.front().pod.uid = "uid-p0";
  pair.members.push_back(pair.members.front());
  pair.members.back().pod.uid = "uid-p1";
  delayed.Blocked(pair, reasons::kGangIncomplete, "1 of 2 pods exist");
  EXPECT_FALSE(delayed.WaitIdle(300ms));
  EXPECT_FALSE(writer_.ConditionOf("uid-p0"));
  now_ = now_ + 4.5;
  delayed.Blocked(pair, "InsufficientGPUs", "needs 16 GPUs");  // A new reason: its timer is set again, 0.5 s.
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(writer_.ConditionOf("uid-p0"));
  now_ = now_ + 1;  // The delay has passed when the timer fires.
  ASSERT_TRUE(delayed.WaitIdle(5s));
  ASSERT_TRUE(writer_.ConditionOf("uid-p0"));
  EXPECT_EQ(writer_.ConditionOf("uid-p0")->reason, "InsufficientGPUs");
  EXPECT_EQ(EventsWithReason("InsufficientGPUs"), 1);
  EXPECT_EQ(EventsWithReason(reasons::kGangIncomplete), 0);  // Never written: it had moved on.
}

TEST_F(GangConditionsTest, ANewBlockReasonIsNotHeldBackEither) {
  const Gang gang = FourPodGang();
  conditions_.Blocked(gang, reasons::kGangIncomplete, "3 of 4 pods exist");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  conditions_.Blocked(gang, reasons::kGangIncomplete, "2 of 4 pods exist");
  std::this_thread::sleep_for(100ms);
  conditions_.Blocked(gang, "InsufficientCapacity", "needs 32 GPUs in one clique; 16 free");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  EXPECT_EQ(Written()->reason, "InsufficientCapacity");
}

TEST_F(GangConditionsTest, TheHeldBackMessageIsWrittenOnceTheIntervalPasses) {
  const Gang gang = FourPodGang();
  conditions_.Blocked(gang, reasons::kGangIncomplete, "1 of 4 pods exist");
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  now_ = now_ + 29.5;
  conditions_.Blocked(gang, reasons::kGangIncomplete, "2 of 4 pods exist");  // Half a second left: a timer.
  std::this_thread::sleep_for(100ms);
  now_ = now_ + 1;  // The interval has passed when the timer fires.
  ASSERT_TRUE(conditions_.WaitIdle(5s));
  EXPECT_EQ(Written()->message, "2 of 4 pods exist");
}

}  // namespace
}  // namespace gangplank::op::testing
