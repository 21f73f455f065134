// A replica that lost the lease writes nothing: every write asks the elector first.
#include "operator/writer/leader_gated_writer.h"

#include <gtest/gtest.h>

#include "tests/cache/support/state_builders.h"
#include "tests/operator/support/fake_cluster_writer.h"

namespace gangplank::op {
namespace {

TEST(LeaderGatedWriter, WritesOnlyWhileLeadingAndReadsAlways) {
  testing::FakeClusterWriter fake;
  cache::PodInfo pod = cache::testing::GpuPod("w-0", {.gpus = 8});
  pod.scheduling_gates = {"gangplank.io/admission"};
  pod.resource_version = "1";
  fake.Put(pod);
  bool leading = true;
  LeaderGatedWriter writer(fake, [&] { return leading; });

  const cache::PodInfo planned = writer.PlanPod(pod, "n1", "1799990000-00000001");
  EXPECT_EQ(fake.Pod("uid-w-0")->annotations.at("gangplank.io/planned-node"), "n1");

  leading = false;  // The lease was lost while the elector's renew call still hangs.
  EXPECT_THROW(writer.ReleasePod(planned), NotLeader);
  EXPECT_THROW(writer.UnplanPod(planned), NotLeader);
  EXPECT_THROW(writer.AnnotatePod(planned, {{"gangplank.io/checkpoint-requested", "x"}}), NotLeader);
  EXPECT_THROW(writer.EvictPod(planned, std::nullopt), NotLeader);
  EXPECT_THROW(writer.DeletePod(planned, 0), NotLeader);
  EXPECT_FALSE(fake.Pod("uid-w-0")->scheduling_gates.empty()) << "the gate stays for the next leader";
  EXPECT_FALSE(fake.Pod("uid-w-0")->annotations.contains("gangplank.io/checkpoint-requested"));
  writer.SetPodCondition(planned, {"gangplank.io/GangAdmitted", "True", "Admitted", "admitted"});
  EXPECT_FALSE(fake.ConditionOf("uid-w-0").has_value()) << "best-effort writes are skipped, not thrown";
  EXPECT_FALSE(writer.WriteStatus("queues", "team-a", nlohmann::json::object(), {}));
  ASSERT_TRUE(writer.ReadPod("ml", "w-0").has_value()) << "reads need no lease";

  leading = true;
  writer.ReleasePod(planned);
  EXPECT_TRUE(fake.Pod("uid-w-0")->scheduling_gates.empty());
}

}  // namespace
}  // namespace gangplank::op
