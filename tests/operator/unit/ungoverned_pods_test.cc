// Which pods are charged to their namespace's queue as ungoverned: bound, unfinished GPU pods gangplank
// does not manage, and only those; a pod's going, finishing or being governed takes it off.
#include "operator/gangs/ungoverned_pods.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cache/support/state_builders.h"

namespace gangplank::op {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

cache::PodInfo Foreign(const std::string& name, int gpus, const std::string& node = "n0") {
  cache::PodInfo p = cache::testing::GpuPod(name, {.node = node, .gpus = gpus});
  p.scheduler_name = "default-scheduler";
  return p;
}

TEST(UngovernedPods, OnlyBoundUnfinishedGpuPodsOutsideGangplankAreKept) {
  UngovernedPods pods;
  EXPECT_EQ(pods.Observe(Foreign("gpu", 2), false, false), "ml");
  EXPECT_EQ(pods.Observe(Foreign("gpu", 2), false, false), "") << "nothing changed";
  EXPECT_EQ(pods.Observe(Foreign("cpu", 0), false, false), "") << "no GPU";
  EXPECT_EQ(pods.Observe(Foreign("unbound", 1, ""), false, false), "") << "holds nothing yet";
  EXPECT_EQ(pods.Observe(Foreign("governed", 1), false, true), "") << "the tracker's";
  cache::PodInfo bad = Foreign("bad", 1);
  bad.containers[0].requests = {{"cpu", "lots"}};
  EXPECT_EQ(pods.Observe(bad, false, false), "") << "the cache holds nothing for a pod it cannot read";
  EXPECT_THAT(pods.UidsIn("ml"), ElementsAre("uid-gpu"));
  EXPECT_THAT(pods.Namespaces(), ElementsAre("ml"));

  cache::PodInfo done = Foreign("gpu", 2);
  done.phase = "Succeeded";
  EXPECT_EQ(pods.Observe(done, false, false), "ml");
  EXPECT_THAT(pods.UidsIn("ml"), IsEmpty());
  EXPECT_THAT(pods.Namespaces(), IsEmpty());

  EXPECT_EQ(pods.Observe(Foreign("again", 1), false, false), "ml");
  EXPECT_EQ(pods.Observe(Foreign("again", 1), true, false), "ml") << "deleted";
  EXPECT_THAT(pods.Namespaces(), IsEmpty());
}

TEST(UngovernedPods, KeysNameTheirNamespaceAndNoGang) {
  EXPECT_EQ(UngovernedKey("kube-system"), "kube-system/:ungoverned");
  EXPECT_TRUE(IsUngovernedKey(UngovernedKey("ml")));
  EXPECT_EQ(NamespaceOfUngovernedKey(UngovernedKey("ml")), "ml");
  EXPECT_FALSE(IsUngovernedKey("ml/train"));
  EXPECT_FALSE(IsUngovernedKey("ml/Job/train"));
  EXPECT_EQ(NamespaceOfUngovernedKey("ml/train"), "");
}

}  // namespace
}  // namespace gangplank::op
