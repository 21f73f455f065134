#include "cache/objects/queue_resolver.h"

#include <gtest/gtest.h>

#include "tests/cache/support/state_builders.h"

namespace gangplank::cache {
namespace {

using testing::GpuPod;

TEST(QueueResolver, OwnLabelThenNamespaceThenDefault) {
  const QueueResolver resolver("default");
  EXPECT_EQ(resolver.Resolve("team-a", "team-b"), "team-a");
  EXPECT_EQ(resolver.Resolve(std::nullopt, "team-b"), "team-b");
  EXPECT_EQ(resolver.Resolve(std::nullopt, ""), "default");
  // An empty own label keeps the namespace's from applying; the default still does (as the operator's).
  EXPECT_EQ(resolver.Resolve("", "team-b"), "default");
  EXPECT_EQ(resolver.default_queue(), "default");
}

TEST(QueueResolver, WithoutADefaultAPodNamingNoQueueIsInNone) {
  const QueueResolver resolver;
  EXPECT_EQ(resolver.Resolve(std::nullopt, ""), "");
  EXPECT_EQ(resolver.Resolve("", "team-b"), "");
  EXPECT_EQ(resolver.Resolve(std::nullopt, "team-b"), "team-b");
}

TEST(QueueResolver, ReadsThePodsLabel) {
  const QueueResolver resolver("default");
  EXPECT_EQ(resolver.QueueOf(GpuPod("own", {.queue = "team-a"}), "team-b"), "team-a");
  EXPECT_EQ(resolver.QueueOf(GpuPod("plain"), "team-b"), "team-b");
  EXPECT_EQ(resolver.QueueOf(GpuPod("plain"), ""), "default");
}

}  // namespace
}  // namespace gangplank::cache
