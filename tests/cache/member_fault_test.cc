// A gang member's own fault (cache/objects/member_fault.h), read from Pod objects as kube-apiserver
// returns them: containers that exited non-zero, the kubelet's eviction, activeDeadlineSeconds, a deletion.
#include "cache/objects/member_fault.h"

#include <gtest/gtest.h>

#include "tests/cache/support/object_json.h"

namespace gangplank::cache {
namespace {

using testing::PodFromJson;

// A PyTorchJob worker on gpu-17 with this metadata tail (after uid) and status.
std::string PodJson(const std::string& metadata_tail, const std::string& status) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"llama-ft-worker-3","namespace":"team-llm",
    "uid":"0b9f3a52-1c7e-4d8e-b6a1-2f4c9e8d7a63","resourceVersion":"48290114","creationTimestamp":"2026-03-02T07:58:02Z",
    "labels":{"training.kubeflow.org/job-name":"llama-ft","training.kubeflow.org/replica-type":"worker",
      "training.kubeflow.org/replica-index":"3","gangplank.io/queue":"team-llm"})" +
         metadata_tail + R"(},
  "spec":{"nodeName":"gpu-17","schedulerName":"gangplank","restartPolicy":"Never",
    "containers":[{"name":"pytorch","image":"nvcr.io/nvidia/pytorch:25.01-py3","resources":{"limits":{"nvidia.com/gpu":"8"}}}]},
  "status":)" + status + "}";
}

const std::string kOomKilled = R"({"phase":"Failed","hostIP":"10.0.17.12","podIP":"10.244.17.31","startTime":"2026-03-02T07:58:10Z",
  "conditions":[{"type":"Ready","status":"False","lastProbeTime":null,"lastTransitionTime":"2026-03-02T10:02:44Z","reason":"PodFailed"}],
  "containerStatuses":[{"name":"pytorch","ready":false,"restartCount":0,"image":"nvcr.io/nvidia/pytorch:25.01-py3",
    "imageID":"nvcr.io/nvidia/pytorch@sha256:4c1e8d9f","containerID":"containerd://9a8b7c6d",
    "state":{"terminated":{"exitCode":137,"reason":"OOMKilled","startedAt":"2026-03-02T07:58:31Z","finishedAt":"2026-03-02T10:02:43Z",
      "containerID":"containerd://9a8b7c6d"}},"lastState":{}}]})";

TEST(MemberFault, AContainerThatExitedNonZeroFailsTheMember) {
  const auto fault = ReadMemberFault(PodFromJson(PodJson("", kOomKilled)));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->cause, MemberFaultCause::kMemberFailed);
  EXPECT_EQ(fault->pod, "team-llm/llama-ft-worker-3");
  EXPECT_EQ(fault->node, "gpu-17");
  EXPECT_EQ(fault->signal, "Failed: container pytorch exited 137 (OOMKilled)");
  EXPECT_EQ(fault->since, 1772445763);  // finishedAt
}

TEST(MemberFault, TheKubeletsEvictionSaysWhy) {
  const auto fault = ReadMemberFault(PodFromJson(PodJson("", R"({"phase":"Failed","reason":"Evicted",
    "message":"The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 8452Mi. ",
    "startTime":"2026-03-02T07:58:10Z",
    "containerStatuses":[{"name":"pytorch","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":137,
      "reason":"ContainerStatusUnknown","message":"The container could not be located when the pod was terminated",
      "startedAt":null,"finishedAt":null}}}]})")));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->signal,
            "Failed (Evicted: The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 8452Mi. ): "
            "container pytorch exited 137 (ContainerStatusUnknown)");
  EXPECT_FALSE(fault->since);  // No finishedAt: from the operator's first sighting.
}

TEST(MemberFault, APastActiveDeadlineFailsThePodAsAWhole) {
  const auto fault = ReadMemberFault(PodFromJson(PodJson("", R"({"phase":"Failed","reason":"DeadlineExceeded",
    "message":"Pod was active on the node longer than the specified deadline","startTime":"2026-03-02T07:58:10Z"})")));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->signal, "Failed (DeadlineExceeded: Pod was active on the node longer than the specified deadline)");
  EXPECT_FALSE(fault->since);
}

TEST(MemberFault, AnInitContainerThatFailedFailsTheMember) {
  const auto fault = ReadMemberFault(PodFromJson(PodJson("", R"({"phase":"Failed",
    "initContainerStatuses":[{"name":"fetch-checkpoint","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":1,
      "reason":"Error","startedAt":"2026-03-02T07:58:12Z","finishedAt":"2026-03-02T07:59:40Z"}}}],
    "containerStatuses":[{"name":"pytorch","ready":false,"restartCount":0,"state":{"waiting":{"reason":"PodInitializing"}}}]})")));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->signal, "Failed: container fetch-checkpoint exited 1 (Error)");
  EXPECT_EQ(fault->since, 1772438380);
}

TEST(MemberFault, ARunningMemberBeingDeletedIsLost) {
  const auto fault = ReadMemberFault(PodFromJson(PodJson(
      R"(,"deletionTimestamp":"2026-03-02T10:31:00Z","deletionGracePeriodSeconds":30)", R"({"phase":"Running"})")));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->cause, MemberFaultCause::kMemberDeleted);
  EXPECT_EQ(fault->signal, "deleted while Running");
  EXPECT_FALSE(fault->since);  // deletionTimestamp is when the grace period ends, not when it began.
}

TEST(MemberFault, RunningWaitingSucceededOrCleanedUpMembersHaveNone) {
  EXPECT_FALSE(ReadMemberFault(PodFromJson(PodJson("", R"({"phase":"Running"})"))));
  EXPECT_FALSE(ReadMemberFault(PodFromJson(PodJson("", R"({"phase":"Pending"})"))));
  EXPECT_FALSE(ReadMemberFault(PodFromJson(PodJson("", R"({"phase":"Succeeded"})"))));
  EXPECT_FALSE(ReadMemberFault(PodFromJson(PodJson(R"(,"deletionTimestamp":"2026-03-02T10:31:00Z")", R"({"phase":"Succeeded"})"))));
}

TEST(MemberFault, CauseNames) {
  EXPECT_EQ(MemberFaultCauseName(MemberFaultCause::kMemberFailed), "MemberFailed");
  EXPECT_EQ(MemberFaultCauseName(MemberFaultCause::kMemberDeleted), "MemberDeleted");
}

}  // namespace
}  // namespace gangplank::cache
