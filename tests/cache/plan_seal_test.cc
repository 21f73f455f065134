// An admission plan's seal (issue 23): only a plan sealed with gangplank's key counts; a plan a tenant
// wrote on its own pod, or one moved to another pod, node or admission, is dropped as the pod is read.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>

#include "cache/objects/conventions.h"
#include "cache/objects/plan_seal.h"

namespace gangplank::cache {
namespace {

const std::string kKey(64, 'k');

// An admission id made `ago` seconds before now ("<unix seconds>-<random>").
std::string IdFrom(double ago) {
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return std::to_string(static_cast<long long>(now - ago)) + "-ab";
}
const std::string kFresh = IdFrom(60);

PodInfo Planned(const std::string& uid, const std::string& node, const std::string& id, const std::string& seal) {
  PodInfo pod;
  pod.name = "w-0";
  pod.namespace_ = "ml";
  pod.uid = uid;
  pod.annotations[std::string(kPlannedNodeAnnotation)] = node;
  pod.annotations[std::string(kAdmissionIdAnnotation)] = id;
  if (!seal.empty()) pod.annotations[std::string(kPlanSealAnnotation)] = seal;
  pod.annotations["gangplank.io/gang-size"] = "2";
  return pod;
}

TEST(PlanSeal, ASealVerifiesOnlyItsOwnPodNodeAndAdmission) {
  const PlanSeal seal(kKey);
  const std::string s = seal.Sign("uid-1", "gpu-3", kFresh);
  EXPECT_EQ(s.size(), 43u) << "base64url of 32 bytes, unpadded";
  EXPECT_EQ(s, seal.Sign("uid-1", "gpu-3", kFresh)) << "deterministic";
  EXPECT_TRUE(seal.Verifies(Planned("uid-1", "gpu-3", kFresh, s)));
  EXPECT_FALSE(seal.Verifies(Planned("uid-2", "gpu-3", kFresh, s))) << "copied to another pod";
  EXPECT_FALSE(seal.Verifies(Planned("uid-1", "gpu-4", kFresh, s))) << "moved to another node";
  EXPECT_FALSE(seal.Verifies(Planned("uid-1", "gpu-3", "4102444800-ab", s))) << "admission time rewritten";
  EXPECT_FALSE(PlanSeal(std::string(64, 'x')).Verifies(Planned("uid-1", "gpu-3", kFresh, s))) << "another key";
  EXPECT_FALSE(seal.Verifies(Planned("", "gpu-3", kFresh, seal.Sign("", "gpu-3", kFresh))))
      << "a pod without a UID has no plan";
}

TEST(PlanSeal, AForgedOrUnsealedPlanIsDroppedAndNothingElse) {
  const PlanSeal seal(kKey);
  for (const std::string& forged : {std::string(), std::string("forged"), std::string(43, 'A')}) {
    PodInfo pod = Planned("uid-1", "gpu-3", "4102444800-0badf00d", forged);
    EXPECT_TRUE(DropUnsealedPlan(pod, &seal)) << forged;
    EXPECT_EQ(pod.PlannedNode(), "");
    EXPECT_FALSE(pod.HasAnnotation(kAdmissionIdAnnotation));
    EXPECT_FALSE(pod.HasAnnotation(kPlanSealAnnotation));
    EXPECT_EQ(pod.Annotation("gangplank.io/gang-size"), "2") << "the tenant's own annotations stay";
  }
  PodInfo sealed = Planned("uid-1", "gpu-3", kFresh, seal.Sign("uid-1", "gpu-3", kFresh));
  EXPECT_FALSE(DropUnsealedPlan(sealed, &seal));
  EXPECT_EQ(sealed.PlannedNode(), "gpu-3");

  PodInfo unplanned;
  unplanned.uid = "uid-9";
  EXPECT_FALSE(DropUnsealedPlan(unplanned, &seal)) << "no plan, nothing to drop";
  PodInfo trusted = Planned("uid-1", "gpu-3", "1", "");
  EXPECT_FALSE(DropUnsealedPlan(trusted, nullptr)) << "without a key plans are trusted as written";
  EXPECT_EQ(trusted.PlannedNode(), "gpu-3");
}

// Review (issue 31, L11): a plan taken back by a rollback could be written back onto the same pod by its
// owner where no policy stops it, and be believed. On a pod not yet bound a plan now holds for an hour
// after its admission; on a bound pod for good.
TEST(PlanSeal, AnOldPlanOnAnUnboundPodIsNoPlan) {
  const PlanSeal seal(kKey);
  const std::string old = IdFrom(PlanSeal::kUnboundPlanSeconds + 60);
  PodInfo replayed = Planned("uid-1", "gpu-3", old, seal.Sign("uid-1", "gpu-3", old));
  EXPECT_FALSE(seal.Verifies(replayed));
  PodInfo bound = replayed;
  bound.node_name = "gpu-3";
  EXPECT_TRUE(seal.Verifies(bound)) << "where a running pod was admitted stays known";
  EXPECT_TRUE(DropUnsealedPlan(replayed, &seal));
  EXPECT_EQ(replayed.PlannedNode(), "");
  const std::string timeless = "ab";
  EXPECT_FALSE(seal.Verifies(Planned("uid-1", "gpu-3", timeless, seal.Sign("uid-1", "gpu-3", timeless))));
}

TEST(PlanSeal, AShortKeyIsRefused) {
  EXPECT_THROW(PlanSeal(std::string(31, 'k')), std::invalid_argument);
  EXPECT_NO_THROW(PlanSeal(std::string(32, 'k')));
}

}  // namespace
}  // namespace gangplank::cache
