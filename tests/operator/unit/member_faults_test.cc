// The member-fault table: only members gangplank admitted are recorded, and one namespace's flood of
// failing gangs pushes out only its own oldest, never another team's (review item L9).
#include "operator/faults/member_faults.h"

#include <gtest/gtest.h>

#include <string>

#include "cache/objects/conventions.h"

namespace gangplank::op {
namespace {

cache::PodInfo FailedMember(const std::string& ns, const std::string& name, bool admitted) {
  cache::PodInfo pod;
  pod.namespace_ = ns;
  pod.name = name;
  pod.uid = ns + "-" + name;
  pod.node_name = "n0";
  pod.phase = "Failed";
  if (admitted) pod.annotations[std::string(cache::kAdmissionIdAnnotation)] = "1700000000-abc";
  return pod;
}

TEST(MemberFaults, OnlyMembersGangplankAdmittedAreRecorded) {
  MemberFaults faults;
  EXPECT_FALSE(faults.Observe("ml/train", FailedMember("ml", "stray", false), false, 10));
  EXPECT_TRUE(faults.Of("ml/train").empty());
  EXPECT_TRUE(faults.Observe("ml/train", FailedMember("ml", "train-0", true), false, 10));
  ASSERT_EQ(faults.Of("ml/train").size(), 1u);
  EXPECT_EQ(faults.Of("ml/train")[0].admission_id, "1700000000-abc");
}

TEST(MemberFaults, ANamespacesFloodDropsOnlyItsOwnOldestGangs) {
  MemberFaults faults;
  ASSERT_TRUE(faults.Observe("victims/train", FailedMember("victims", "train-0", true), false, 1));
  for (std::size_t i = 0; i < kMaxGangsWithMemberFaultsPerNamespace + 10; ++i) {
    const std::string gang = "mallory/g" + std::to_string(i);
    faults.Observe(gang, FailedMember("mallory", "g" + std::to_string(i), true), false, 2.0 + static_cast<double>(i));
  }
  EXPECT_EQ(faults.Of("victims/train").size(), 1u) << "another namespace's flood pushed out the victim's fault";
  EXPECT_EQ(faults.Gangs().size(), kMaxGangsWithMemberFaultsPerNamespace + 1);
  EXPECT_TRUE(faults.Of("mallory/g0").empty()) << "the flooding namespace's oldest goes first";
  EXPECT_EQ(faults.Of("mallory/g" + std::to_string(kMaxGangsWithMemberFaultsPerNamespace + 9)).size(), 1u);
  faults.Clear("victims/train");
  EXPECT_TRUE(faults.Of("victims/train").empty());
}

}  // namespace
}  // namespace gangplank::op
