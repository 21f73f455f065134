// What the operator remembers about gangs that went: owner sizes cached by the resolver and the places
// of evicted gangs are both bounded, so a cluster that churns through gangs for months does not grow
// the operator's memory.
#include <gtest/gtest.h>

#include <chrono>

#include "operator/gangs/gang_size_resolver.h"
#include "operator/model/pool_model.h"

namespace gangplank::op {
namespace {

class JobsOfTwo : public ObjectReader {
 public:
  std::optional<nlohmann::json> Get(const std::string&, const std::string&, const std::string&, const std::string&) override {
    return nlohmann::json{{"spec", {{"parallelism", 2}, {"completions", 2}}}};
  }
};

Gang JobGang(int i) {
  Gang gang;
  gang.namespace_ = "ml";
  gang.identity.source = cache::GangSource::kOwner;
  gang.identity.api_version = "batch/v1";
  gang.identity.kind = "Job";
  gang.identity.name = "job-" + std::to_string(i);
  gang.key = "ml/Job/" + gang.identity.name;
  return gang;
}

TEST(GangSizeResolverCache, EntriesOfGangsThatWentAreSweptAsTheCacheGrows) {
  JobsOfTwo reader;
  auto now = std::chrono::steady_clock::time_point{};
  GangSizeResolver sizes(reader, std::chrono::seconds(30), [&] { return now; });
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(sizes.SizeOf(JobGang(i)).size) << i;
    ASSERT_EQ(sizes.SizeOf(JobGang(i)).size->min_members, 2);
    now += std::chrono::seconds(1);  // Each gang is asked about once, then never again.
  }
  // Only the last ttl's worth (30 gangs), plus at most what arrived since the last sweep, stay.
  EXPECT_LE(sizes.cached(), 64u + 30u);
}

// A native PodGroup's minCount is mutable: its size is read again after five seconds, an owner's and the
// wording of the Workload it was made from after the resolver's ttl; its UID is kept for Events.
class GroupsAndJobs : public ObjectReader {
 public:
  int min_count = 4;
  int reads = 0;
  std::optional<nlohmann::json> Get(const std::string&, const std::string& kind, const std::string&, const std::string&) override {
    ++reads;
    if (kind == "Workload") {
      return nlohmann::json::parse(R"({"metadata":{"name":"train"},"spec":{"controllerRef":{"kind":"Job","name":"train"},
                                      "podGroupTemplates":[{"name":"workers"}]}})");
    }
    if (kind == "Job") return nlohmann::json{{"spec", {{"parallelism", 2}}}};
    return nlohmann::json{{"metadata", {{"uid", "pg-uid"}}},
                          {"spec", {{"schedulingPolicy", {{"gang", {{"minCount", min_count}}}}},
                                    {"workloadRef", {{"workloadName", "train"}, {"templateName", "workers"}}}}}};
  }
};

TEST(GangSizeResolverCache, ANativePodGroupIsReadAgainAfterFiveSeconds) {
  GroupsAndJobs reader;
  auto now = std::chrono::steady_clock::time_point{};
  GangSizeResolver sizes(reader, std::chrono::seconds(30), [&] { return now; });
  Gang group;
  group.namespace_ = "ml";
  group.identity.source = cache::GangSource::kNativePodGroup;
  group.identity.api_version = "scheduling.k8s.io/v1beta1";
  group.identity.kind = "PodGroup";
  group.identity.name = "train-workers";
  group.key = "ml/PodGroup.scheduling.k8s.io/train-workers";
  ASSERT_TRUE(sizes.SizeOf(group).size);
  EXPECT_EQ(sizes.SizeOf(group).size->min_members, 4);
  EXPECT_EQ(sizes.SizeOf(group).size->source,
            "PodGroup ml/train-workers spec.schedulingPolicy.gang.minCount, template workers of Workload ml/train "
            "(Pod Group Templates: workers; Controlled By: Job/train)");
  EXPECT_EQ(sizes.UidOf(group.key), "pg-uid");
  ASSERT_TRUE(sizes.SizeOf(JobGang(1)).size);
  const int reads = reader.reads;
  reader.min_count = 2;
  now += std::chrono::seconds(4);
  EXPECT_EQ(sizes.SizeOf(group).size->min_members, 4);
  now += std::chrono::seconds(2);
  EXPECT_EQ(sizes.SizeOf(group).size->min_members, 2);
  EXPECT_EQ(reader.reads, reads + 1);  // The PodGroup only: its Workload's wording and the Job's size are still cached.
  EXPECT_EQ(sizes.SizeOf(group).size->source,
            "PodGroup ml/train-workers spec.schedulingPolicy.gang.minCount, template workers of Workload ml/train "
            "(Pod Group Templates: workers; Controlled By: Job/train)");
  EXPECT_EQ(sizes.SizeOf(JobGang(1)).size->min_members, 2);
  EXPECT_EQ(reader.reads, reads + 1);
  now += std::chrono::seconds(30);  // Past the resolver's ttl: the Workload is read again with its PodGroup.
  ASSERT_TRUE(sizes.SizeOf(group).size);
  EXPECT_EQ(reader.reads, reads + 3);
}

TEST(RequeuedPlaces, AGangThatNeverCameBackIsForgottenAfterAnHour) {
  PoolModel model(cache::PoolConfig{}, [](const engine::NodeSpec&) { return true; });
  model.requeued_arrivals["ml/Job/gone"] = {100, 1000};
  model.requeued_arrivals["ml/Job/back"] = {200, 1000};
  model.requeued_arrivals["ml/Job/recent"] = {300, 1000 + kRequeuedPlaceSeconds};
  auto exists = [](const std::string& key) { return key == "ml/Job/back"; };
  model.ForgetStalePlaces(1000 + kRequeuedPlaceSeconds / 2, exists);
  EXPECT_EQ(model.requeued_arrivals.size(), 3u);  // Within the hour: all kept.
  model.ForgetStalePlaces(1001 + kRequeuedPlaceSeconds, exists);
  EXPECT_EQ(model.requeued_arrivals.count("ml/Job/gone"), 0u);
  EXPECT_EQ(model.requeued_arrivals.count("ml/Job/back"), 1u);    // Its pods are back: it keeps its place.
  EXPECT_EQ(model.requeued_arrivals.count("ml/Job/recent"), 1u);  // Evicted later: its hour is not up.
}

}  // namespace
}  // namespace gangplank::op
