// An admission plan's seal (issue 23): only a plan sealed with gangplank's key counts; a plan a tenant
// wrote on its own pod, or one moved to another pod, node or admission, is dropped as the pod is read.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cache/objects/conventions.h"
#include "cache/objects/plan_seal.h"

namespace gangplank::cache {
namespace {

const std::string kKey(64, 'k');

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
  const std::string s = seal.Sign("uid-1", "gpu-3", "1700000000-ab");
  EXPECT_EQ(s.size(), 43u) << "base64url of 32 bytes, unpadded";
  EXPECT_EQ(s, seal.Sign("uid-1", "gpu-3", "1700000000-ab")) << "deterministic";
  EXPECT_TRUE(seal.Verifies(Planned("uid-1", "gpu-3", "1700000000-ab", s)));
  EXPECT_FALSE(seal.Verifies(Planned("uid-2", "gpu-3", "1700000000-ab", s))) << "copied to another pod";
  EXPECT_FALSE(seal.Verifies(Planned("uid-1", "gpu-4", "1700000000-ab", s))) << "moved to another node";
  EXPECT_FALSE(seal.Verifies(Planned("uid-1", "gpu-3", "4102444800-ab", s))) << "admission time rewritten";
  EXPECT_FALSE(PlanSeal(std::string(64, 'x')).Verifies(Planned("uid-1", "gpu-3", "1700000000-ab", s))) << "another key";
  EXPECT_FALSE(seal.Verifies(Planned("", "gpu-3", "1700000000-ab", seal.Sign("", "gpu-3", "1700000000-ab"))))
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
  PodInfo sealed = Planned("uid-1", "gpu-3", "1700000000-ab", seal.Sign("uid-1", "gpu-3", "1700000000-ab"));
  EXPECT_FALSE(DropUnsealedPlan(sealed, &seal));
  EXPECT_EQ(sealed.PlannedNode(), "gpu-3");

  PodInfo unplanned;
  unplanned.uid = "uid-9";
  EXPECT_FALSE(DropUnsealedPlan(unplanned, &seal)) << "no plan, nothing to drop";
  PodInfo trusted = Planned("uid-1", "gpu-3", "1", "");
  EXPECT_FALSE(DropUnsealedPlan(trusted, nullptr)) << "without a key plans are trusted as written";
  EXPECT_EQ(trusted.PlannedNode(), "gpu-3");
}

TEST(PlanSeal, AShortKeyIsRefused) {
  EXPECT_THROW(PlanSeal(std::string(31, 'k')), std::invalid_argument);
  EXPECT_NO_THROW(PlanSeal(std::string(32, 'k')));
}

}  // namespace
}  // namespace gangplank::cache
