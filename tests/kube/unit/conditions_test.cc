#include "kube/conditions.h"

#include <gtest/gtest.h>

#include "kube/client.h"

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;

TEST(ConditionsTest, LastTransitionTimeChangesOnlyWhenStatusFlips) {
  nlohmann::json conditions;
  base::SystemTime t0 = *base::ParseTime("2026-01-01T00:00:00Z");
  EXPECT_TRUE(SetCondition(conditions, {"Ready", "False", "Pending", "waiting", 1}, t0));
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0]["lastTransitionTime"], "2026-01-01T00:00:00Z");

  // Same status, new reason/message/generation: fields update, transition time stays.
  EXPECT_TRUE(SetCondition(conditions, {"Ready", "False", "StillPending", "still waiting", 2}, t0 + 60s));
  EXPECT_EQ(conditions[0]["lastTransitionTime"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(conditions[0]["reason"], "StillPending");
  EXPECT_EQ(conditions[0]["observedGeneration"], 2);

  // Nothing new: no change reported.
  EXPECT_FALSE(SetCondition(conditions, {"Ready", "False", "StillPending", "still waiting", 2}, t0 + 90s));

  // Status flips: transition time moves.
  EXPECT_TRUE(SetCondition(conditions, {"Ready", "True", "Placed", "", 2}, t0 + 120s));
  EXPECT_EQ(conditions[0]["lastTransitionTime"], "2026-01-01T00:02:00Z");

  // Other types are kept side by side (list-map keyed by type).
  EXPECT_TRUE(SetCondition(conditions, {"Degraded", "False", "AsExpected", "", 2}, t0 + 130s));
  EXPECT_EQ(conditions.size(), 2u);
  ASSERT_NE(FindCondition(conditions, "Degraded"), nullptr);
  EXPECT_EQ(FindCondition(conditions, "Missing"), nullptr);
}

TEST(ConditionsTest, RejectsInvalidConditions) {
  nlohmann::json conditions;
  base::SystemTime now{};
  EXPECT_THROW(SetCondition(conditions, {"", "True", "Ok", "", 0}, now), std::invalid_argument);
  EXPECT_THROW(SetCondition(conditions, {"Ready", "Yes", "Ok", "", 0}, now), std::invalid_argument);
  EXPECT_THROW(SetCondition(conditions, {"Ready", "True", "", "", 0}, now), std::invalid_argument);
  EXPECT_THROW(SetCondition(conditions, {"Ready", "True", "not camel", "", 0}, now), std::invalid_argument);
  EXPECT_THROW(SetCondition(conditions, {"Ready", "True", "Ends,", "", 0}, now), std::invalid_argument);
  EXPECT_NO_THROW(SetCondition(conditions, {"Ready", "True", "A_b:c,D", "", 0}, now));
}

TEST(ConditionsTest, ObservedGenerationCopiesMetadataGeneration) {
  nlohmann::json status = nlohmann::json::object();
  SetObservedGeneration(status, {{"metadata", {{"generation", 7}}}});
  EXPECT_EQ(status["observedGeneration"], 7);
}

TEST(TimeFormatTest, FormatsAndParsesMetaTimeAndMicroTime) {
  base::SystemTime t = *base::ParseTime("2026-03-04T05:06:07.123456Z");
  EXPECT_EQ(base::FormatMicroTime(t), "2026-03-04T05:06:07.123456Z");
  EXPECT_EQ(base::FormatTime(t), "2026-03-04T05:06:07Z");
  EXPECT_EQ(base::FormatTime(*base::ParseTime("2026-03-04T07:06:07+02:00")), "2026-03-04T05:06:07Z");
  EXPECT_FALSE(base::ParseTime("2026-02-30T00:00:00Z"));
  EXPECT_FALSE(base::ParseTime("yesterday"));
  EXPECT_FALSE(base::ParseTime("2026-03-04T05:06:07"));
  // Seconds since the epoch, both ways.
  EXPECT_EQ(base::ParseEpochSeconds("2027-01-15T08:00:00Z"), 1'800'000'000.0);
  EXPECT_EQ(base::FormatEpochSeconds(*base::ParseEpochSeconds("2027-01-15T08:11:00Z")), "2027-01-15T08:11:00Z");
  EXPECT_FALSE(base::ParseEpochSeconds("soon"));
}

TEST(PatchTest, MergePatchRemovesWithNullAndReplacesArrays) {
  nlohmann::json from = {{"metadata", {{"labels", {{"a", "1"}, {"b", "2"}}}}}, {"spec", {{"taints", {1, 2}}}}};
  nlohmann::json to = {{"metadata", {{"labels", {{"a", "1"}, {"c", "3"}}}}}, {"spec", {{"taints", {1}}}}};
  nlohmann::json patch = MakeMergePatch(from, to);
  EXPECT_EQ(patch, nlohmann::json::parse(R"({"metadata":{"labels":{"b":null,"c":"3"}},"spec":{"taints":[1]}})"));
  nlohmann::json applied = from;
  applied.merge_patch(patch);
  EXPECT_EQ(applied, to);
}

TEST(PatchTest, GuardedJsonPatchStartsWithResourceVersionTest) {
  nlohmann::json from = {{"metadata", {{"resourceVersion", "42"}, {"finalizers", {"a/x", "b/y"}}}}};
  nlohmann::json to = from;
  to["metadata"]["finalizers"] = {"b/y"};
  nlohmann::json ops = MakeJsonPatch(from, to);
  ASSERT_GE(ops.size(), 2u);
  EXPECT_EQ(ops[0], nlohmann::json({{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", "42"}}));
  EXPECT_EQ(from.patch(ops), to);
  EXPECT_THROW(MakeJsonPatch(nlohmann::json::object(), to), std::invalid_argument);
  EXPECT_EQ(ContentType(PatchType::kApply), "application/apply-patch+yaml");
  EXPECT_EQ(ContentType(PatchType::kMerge), "application/merge-patch+json");
}

}  // namespace
}  // namespace gangplank::kube
