// The queue tree the operator admits against, and which pool a waiting gang goes to.
#include "operator/model/queue_tree.h"

#include <gtest/gtest.h>

#include <cmath>

#include "operator/model/pool_routing.h"

namespace gangplank::op {
namespace {

cache::QueueConfig Queue(const std::string& name, const std::string& parent = "",
                         std::map<std::string, cache::PoolQuota, std::less<>> pools = {}) {
  cache::QueueConfig q = cache::UniformQueue(name, 0);
  q.parent = parent;
  if (!pools.empty()) {
    q.pools = std::move(pools);
    q.any_pool.reset();
  }
  return q;
}

cache::PoolConfig Pool(const std::string& name, std::map<std::string, std::string> selector = {}) {
  cache::PoolConfig p;
  p.name = name;
  p.node_selector = std::move(selector);
  return p;
}

TEST(QueueTree, CyclesAndMissingParentsAreLeftOutWithWhy) {
  const QueueTree tree = BuildQueueTree({Queue("org"), Queue("team-a", "org"), Queue("team-b", "ghost"),
                                         Queue("x", "y"), Queue("y", "x"), Queue("under-x", "x")});
  EXPECT_TRUE(tree.queues.count("org"));
  EXPECT_TRUE(tree.queues.count("team-a"));
  EXPECT_EQ(tree.inner, (std::set<std::string>{"org"}));
  EXPECT_EQ(tree.problems.at("team-b").reason, "ParentNotFound");
  EXPECT_EQ(tree.problems.at("team-b").message, "parent queue ghost does not exist");
  EXPECT_EQ(tree.problems.at("x").reason, "ParentCycle");
  EXPECT_EQ(tree.problems.at("under-x").reason, "ParentCycle");
  EXPECT_EQ(tree.PathOf("team-a").size(), 2u);
}

TEST(QueueTree, EngineQueuesOfAPoolCarryItsQuotas) {
  cache::QueueConfig a = Queue("team-a", "org", {{"a100", cache::PoolQuota{16, 64}}});
  a.weight = 2;
  a.preempt_lower_priority = true;
  a.min_runtime_seconds = 120;
  const QueueTree tree = BuildQueueTree({Queue("org"), a, Queue("team-b", "org", {{"h100", cache::PoolQuota{}}})});
  const auto queues = QueuesForPool(tree, "a100");
  ASSERT_EQ(queues.size(), 2u);  // org (every pool) and team-a; team-b lists only h100.
  const engine::AdmissionQueue& q = queues[1];
  EXPECT_EQ(q.name, "team-a");
  EXPECT_EQ(q.parent, "org");
  EXPECT_EQ(q.weight, 2);
  EXPECT_EQ(q.guaranteed, 16);
  EXPECT_EQ(q.limit, 64);
  EXPECT_TRUE(q.preempt_lower_priority);
  EXPECT_EQ(q.min_runtime_seconds, 120);
  EXPECT_TRUE(std::isinf(queues[0].limit));
}

// Every queue-level reason a waiting gang's condition can carry.
TEST(QueueTree, CheckQueueSaysWhyAGangCannotUseAQueue) {
  const QueueTree tree = BuildQueueTree({Queue("org", "", {{"a100", {}}}), Queue("team-a", "org"), Queue("lost", "ghost"),
                                         Queue("solo", "", {{"h100", {}}})});
  EXPECT_EQ(CheckQueue(tree, "team-a", "a100").reason, "");
  EXPECT_EQ(CheckQueue(tree, "", "a100").reason, "NoQueue");
  EXPECT_EQ(CheckQueue(tree, "nope", "a100").reason, "QueueNotFound");
  EXPECT_EQ(CheckQueue(tree, "nope", "a100").message, "queue nope does not exist");
  EXPECT_EQ(CheckQueue(tree, "lost", "a100").reason, "QueueInvalid");
  EXPECT_EQ(CheckQueue(tree, "org", "a100").reason, "QueueNotLeaf");
  EXPECT_EQ(CheckQueue(tree, "solo", "a100").reason, "PoolNotAllowed");
  const QueueVerdict inherited = CheckQueue(tree, "team-a", "h100");
  EXPECT_EQ(inherited.reason, "PoolNotAllowed");
  EXPECT_EQ(inherited.message, "queue team-a may not use GPU pool h100 (its ancestor org does not list it)");
}

TEST(PoolRouting, LabelQueueAndSelectorChooseThePool) {
  const std::vector<cache::PoolConfig> pools{Pool("a100", {{"gpu", "a100"}}), Pool("h100", {{"gpu", "h100"}})};
  const QueueTree tree = BuildQueueTree({Queue("any"), Queue("only-h", "", {{"h100", {}}})});
  EXPECT_EQ(ChoosePool(pools, tree, "any", "a100", {}).pool, "a100");
  EXPECT_EQ(ChoosePool(pools, tree, "any", "t4", {}).reason, "PoolNotFound");
  EXPECT_EQ(ChoosePool(pools, tree, "only-h", "", {}).pool, "h100");
  EXPECT_EQ(ChoosePool(pools, tree, "any", "", {{"gpu", "h100"}}).pool, "h100");
  const PoolChoice ambiguous = ChoosePool(pools, tree, "any", "", {});
  EXPECT_EQ(ambiguous.reason, "AmbiguousPool");
  EXPECT_EQ(ambiguous.message, "GPU pools a100, h100 could all take it; choose one with the label gangplank.io/pool");
  EXPECT_EQ(ChoosePool(pools, tree, "only-h", "", {{"gpu", "a100"}}).reason, "NoPool");
  EXPECT_EQ(ChoosePool({}, tree, "any", "", {}).reason, "NoPool");
  EXPECT_EQ(ChoosePool({Pool("only")}, tree, "", "", {}).pool, "only");
}

}  // namespace
}  // namespace gangplank::op
