#include <gtest/gtest.h>

#include "cache/objects/conventions.h"
#include "cache/objects/kube_objects.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::cache {
namespace {

using testing::GpuPod;

TEST(PodInfo, LabelsAndAnnotationsReadEmptyWhenAbsent) {
  PodInfo pod = GpuPod("p", {.planned = "n1", .gang = "g"});
  EXPECT_EQ(pod.Label(kGangLabel), "g");
  EXPECT_EQ(pod.Label(kPoolLabel), "");
  EXPECT_EQ(pod.Annotation(kPlannedNodeAnnotation), "n1");
  EXPECT_EQ(pod.Annotation(kAdmissionIdAnnotation), "");
  EXPECT_EQ(pod.PlannedNode(), "n1");
  EXPECT_EQ(GpuPod("unplanned").PlannedNode(), "");
  EXPECT_TRUE(pod.HasAnnotation(kPlannedNodeAnnotation));
  EXPECT_FALSE(pod.HasAnnotation(kAdmissionIdAnnotation));
  pod.annotations[std::string(kCheckpointDoneAnnotation)] = "";
  EXPECT_TRUE(pod.HasAnnotation(kCheckpointDoneAnnotation)) << "present, even empty";
}

TEST(PodInfo, AdmissionGateIsOneSchedulingGateAmongOthers) {
  PodInfo pod = GpuPod("p");
  EXPECT_FALSE(pod.HasAdmissionGate());
  pod.scheduling_gates = {"example.com/other"};
  EXPECT_FALSE(pod.HasAdmissionGate());
  pod.scheduling_gates.push_back(std::string(kAdmissionGate));
  EXPECT_TRUE(pod.HasAdmissionGate());
}

TEST(PodInfo, QueueLabelTellsAnEmptyLabelFromNone) {
  PodInfo pod = GpuPod("p");
  EXPECT_EQ(pod.QueueLabel(), std::nullopt);
  pod.labels[std::string(kQueueLabel)] = "";
  EXPECT_EQ(pod.QueueLabel(), std::optional<std::string>(""));
  pod.labels[std::string(kQueueLabel)] = "team-a";
  EXPECT_EQ(pod.QueueLabel(), std::optional<std::string>("team-a"));
}

TEST(PodInfo, OnlySucceededAndFailedPodsHaveFinished) {
  for (const char* phase : {"Succeeded", "Failed"}) {
    EXPECT_TRUE(GpuPod("p", {.phase = phase}).Finished()) << phase;
    EXPECT_TRUE(IsFinishedPhase(phase)) << phase;
  }
  for (const char* phase : {"", "Pending", "Running", "Unknown"}) {
    EXPECT_FALSE(GpuPod("p", {.node = "n1", .phase = phase}).Finished()) << phase;
    EXPECT_FALSE(IsFinishedPhase(phase)) << phase;
  }
}

}  // namespace
}  // namespace gangplank::cache
