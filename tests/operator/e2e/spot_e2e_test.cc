// End to end, real processes on loopback: spot reclaim at gang level. A termination notice on one node
// of a running gang asks all its members to checkpoint; the gang is evicted whole on acknowledgement or
// at the deadline, requeued, and re-admitted whole on nodes that are not going; other gangs are left
// alone; a malformed terminate-at is reported and ignored.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "base/time_format.h"
#include "tests/operator/e2e/support/operator_cluster.h"

namespace gangplank::op::testing {
namespace {

class SpotEndToEnd : public OperatorCluster {
 protected:
  void EditNode(const std::string& name, const std::function<void(Json&)>& edit) {
    auto node = api_->Get("nodes", "", name);
    ASSERT_TRUE(node);
    edit(*node);
    api_->put(*node);
  }
  // What the AWS Node Termination Handler does on a spot interruption notice (with TAINT_NODE=true).
  void InterruptionNotice(const std::string& node) {
    EditNode(node, [](Json& n) {
      n["spec"]["taints"] = Json::array({{{"key", "aws-node-termination-handler/spot-itn"}, {"effect", "NoSchedule"}}});
    });
  }
  std::string AnnotationOf(const std::string& pod, const std::string& key) const {
    auto p = Pod(pod);
    return p ? p->value("/metadata/annotations"_json_pointer, Json::object()).value(key, "") : "";
  }
  // What a job does when its checkpoint is saved: acknowledges on one member.
  void Acknowledge(const std::string& pod) {
    client_->Patch(kube::resources::Pods(), "ml", pod, kube::PatchType::kMerge,
                   Json{{"metadata", {{"annotations", {{"gangplank.io/checkpoint-done", base::FormatTime(std::chrono::system_clock::now())}}}}}});
  }
  bool Said(const std::string& ns, const std::string& reason, const std::string& part = "") const {
    for (const Json& e : api_->List("events", ns)) {
      if (e.value("reason", "") == reason && e.value("message", "").find(part) != std::string::npos) return true;
    }
    return false;
  }
  // The gang's owner recreating its pods after an eviction (the double runs no Job controller).
  void Recreate(const std::string& gang, int size) { SubmitGang(gang, size, options_); }

  // Records, while running, whether any member of `gang` was ever bound while another was gone: the
  // gang was taken partly and a member kept running.
  void WatchGang(const std::string& gang, int size) {
    watching_ = true;
    watcher_ = std::thread([this, gang, size] {
      int gone_rounds = 0;
      while (watching_) {
        const auto members = Members(gang);
        const bool partial = !members.empty() && static_cast<int>(members.size()) < size;
        // Evictions go one pod at a time over HTTP: allow one poll in between, never a lasting state.
        gone_rounds = partial ? gone_rounds + 1 : 0;
        if (gone_rounds > 20) broken_ = true;  // Over a second with part of the gang running.
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  void TearDown() override {
    watching_ = false;
    if (watcher_.joinable()) watcher_.join();
    OperatorCluster::TearDown();
  }

  PodOptions options_ = [] {
    PodOptions o;
    o.queue = "team-a";
    return o;
  }();
  std::atomic<bool> watching_{false};
  std::atomic<bool> broken_{false};
  std::thread watcher_;
};

TEST_F(SpotEndToEnd, ANoticeCheckpointsTheWholeGangAndAnAcknowledgementRequeuesItWholeElsewhere) {
  for (int i = 0; i < 8; ++i) Node("n" + std::to_string(i));
  Pool("pool", Json::parse(R"({"capacityType":"Spot","spot":{"checkpointGraceSeconds":600}})"));
  Queue("team-a");
  StartAll();
  SubmitGang("train", 4, options_);
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
  const std::string doomed = NodeOf("train-2");
  std::set<std::string> before;
  for (const std::string& pod : Names("train", 4)) before.insert(NodeOf(pod));

  WatchGang("train", 4);
  InterruptionNotice(doomed);
  // Every member, not only the one on the doomed node, is asked, with the same deadline.
  ASSERT_TRUE(WaitFor([&] {
    for (const std::string& pod : Names("train", 4)) {
      if (AnnotationOf(pod, "gangplank.io/checkpoint-requested").empty()) return false;
    }
    return true;
  })) << Logs();
  const std::string deadline = AnnotationOf("train-0", "gangplank.io/checkpoint-requested");
  for (const std::string& pod : Names("train", 4)) EXPECT_EQ(AnnotationOf(pod, "gangplank.io/checkpoint-requested"), deadline);
  EXPECT_TRUE(WaitFor([&] { return Said("ml", "CheckpointRequested", "checkpoint by " + deadline); })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("default", "TerminationNotice"); })) << Logs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(Members("train").size(), 4u) << "nothing is evicted before the acknowledgement or the deadline";

  Acknowledge("train-3");
  ASSERT_TRUE(WaitFor([&] { return Members("train").empty(); })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("ml", "SpotReclaimed", "checkpoint done"); })) << Logs();

  Recreate("train", 4);
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
  for (const std::string& pod : Names("train", 4)) EXPECT_NE(NodeOf(pod), doomed) << pod;
  EXPECT_FALSE(broken_) << "part of the gang kept running while the rest was evicted";
  EXPECT_EQ(HalfAdmittedGang(), "");
  EXPECT_EQ(OperatorMetric("gangplank_operator_spot_notices_total"), 1);
  EXPECT_EQ(OperatorMetric("gangplank_operator_spot_checkpoint_requests_total"), 1);
  EXPECT_EQ(OperatorMetric("gangplank_operator_spot_reclaims_total"), 1);
  EXPECT_TRUE(WaitFor([&] {
    auto pool = api_->Get("gpupools.gangplank.io", "", "pool");
    return pool && pool->value("/status/nodesUnderNotice"_json_pointer, -1) == 1;
  })) << Logs();
}

TEST_F(SpotEndToEnd, WithoutAnAcknowledgementTheGangIsEvictedWholeAtTheDeadline) {
  for (int i = 0; i < 6; ++i) Node("n" + std::to_string(i));
  Pool("pool", Json::parse(R"({"spot":{"checkpointGraceSeconds":3}})"));
  Queue("team-a");
  StartAll();
  SubmitGang("train", 4, options_);
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
  WatchGang("train", 4);
  InterruptionNotice(NodeOf("train-0"));
  ASSERT_TRUE(WaitFor([&] { return !AnnotationOf("train-1", "gangplank.io/checkpoint-requested").empty(); })) << Logs();
  EXPECT_EQ(Members("train").size(), 4u);
  ASSERT_TRUE(WaitFor([&] { return Members("train").empty(); }, std::chrono::seconds(20))) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("ml", "SpotReclaimed", "deadline passed"); })) << Logs();
  EXPECT_FALSE(broken_);
  EXPECT_EQ(OperatorMetric("gangplank_operator_spot_reclaims_total"), 1);
}

TEST_F(SpotEndToEnd, ANoticeOnANodeWithoutGangMembersDrainsOnlyThatNodesPods) {
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i));
  Pool("pool", Json::parse(R"({"spot":{"reclaimPolicy":"Evict"}})"));
  Queue("team-a");
  StartAll();
  SubmitGang("pair", 2, options_);
  Submit(PodObject("solo", options_));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"pair-0", "pair-1", "solo"}); })) << Logs();
  InterruptionNotice(NodeOf("solo"));
  ASSERT_TRUE(WaitFor([&] { return !Pod("solo"); })) << Logs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_TRUE(AllBound({"pair-0", "pair-1"}));
  EXPECT_EQ(AnnotationOf("pair-0", "gangplank.io/checkpoint-requested"), "");
  EXPECT_TRUE(Said("ml", "SpotReclaimed", "evict on notice"));
}

TEST_F(SpotEndToEnd, AMalformedTerminateAtIsReportedAndIgnoredAndAValidOneActs) {
  Node("n0");
  Pool("pool");
  Queue("team-a");
  StartAll();
  EditNode("n0", [](Json& n) { n["metadata"]["annotations"]["gangplank.io/terminate-at"] = "next tuesday"; });
  ASSERT_TRUE(WaitFor([&] { return Said("default", "InvalidTerminateAt", "next tuesday"); })) << Logs();
  // Ignored: the node still takes gangs, and the loop is alive.
  SubmitGang("train", 1, options_);
  ASSERT_TRUE(WaitFor([&] { return AllBound({"train-0"}); })) << Logs();
  EXPECT_TRUE(AnnotationOf("train-0", "gangplank.io/checkpoint-requested").empty());

  const std::string at = base::FormatTime(std::chrono::system_clock::now() + std::chrono::hours(1));
  EditNode("n0", [&](Json& n) { n["metadata"]["annotations"]["gangplank.io/terminate-at"] = at; });
  ASSERT_TRUE(WaitFor([&] { return !AnnotationOf("train-0", "gangplank.io/checkpoint-requested").empty(); })) << Logs();
  EXPECT_EQ(OperatorMetric("gangplank_operator_spot_notices_total"), 1);
}

}  // namespace
}  // namespace gangplank::op::testing
