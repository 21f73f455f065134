#include "engine/admission/queue_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/fairshare/fair_share.h"

namespace gangplank::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

AdmissionQueue Q(const std::string& name, const std::string& parent = "", double weight = 1, double guaranteed = 0,
                 double limit = std::numeric_limits<double>::infinity()) {
  AdmissionQueue q;
  q.name = name;
  q.parent = parent;
  q.weight = weight;
  q.guaranteed = guaranteed;
  q.limit = limit;
  return q;
}

std::string ErrorOf(const std::vector<AdmissionQueue>& queues) {
  try {
    QueueTree tree(queues);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(QueueTree, PathsLeavesAndSides) {
  // org -> {ml -> {a, b}, c}, top-level d.
  const QueueTree tree({Q("a", "ml"), Q("org"), Q("ml", "org"), Q("b", "ml"), Q("c", "org"), Q("d")});
  EXPECT_EQ(tree.Find("ml"), 2);
  EXPECT_EQ(tree.Find("nope"), -1);
  EXPECT_THAT(tree.path(0), ElementsAre(0, 2, 1));
  EXPECT_TRUE(tree.leaf(0));
  EXPECT_FALSE(tree.leaf(2));
  EXPECT_TRUE(tree.IsAncestorOrSelf(1, 3));
  EXPECT_FALSE(tree.IsAncestorOrSelf(3, 1));
  EXPECT_EQ(tree.SideOf(0, 3), 0);  // Siblings meet at ml.
  EXPECT_EQ(tree.SideOf(0, 4), 2);  // a meets c at org, on the side of ml.
  EXPECT_EQ(tree.SideOf(4, 0), 4);
  EXPECT_EQ(tree.SideOf(0, 5), 1);  // No common ancestor: the top-level queue.
  EXPECT_THAT(tree.SubtreeTotals({1, 0, 0, 2, 4, 8}), ElementsAre(1, 7, 3, 2, 4, 8));
}

TEST(QueueTree, RefusesUnknownParentsAndCyclesNamingTheQueues) {
  EXPECT_THAT(ErrorOf({Q("a", "ghost")}), HasSubstr("queue a names parent ghost, which the pool does not have"));
  EXPECT_THAT(ErrorOf({Q("a", "a")}), HasSubstr("cycle: a -> a"));
  EXPECT_THAT(ErrorOf({Q("top"), Q("x", "z"), Q("y", "x"), Q("z", "y"), Q("leaf", "x")}),
              HasSubstr("cycle: x -> z -> y -> x"));
  EXPECT_THAT(ErrorOf({Q("a"), Q("a")}), HasSubstr("queue a is listed twice"));
  EXPECT_THAT(ErrorOf({Q("a", "", -1)}), HasSubstr("negative or undefined"));
  // A long chain is fine.
  std::vector<AdmissionQueue> chain{Q("q0")};
  for (int i = 1; i < 200; ++i) chain.push_back(Q("q" + std::to_string(i), "q" + std::to_string(i - 1)));
  EXPECT_EQ(ErrorOf(chain), "");
  EXPECT_EQ(QueueTree(chain).path(199).size(), 200u);
}

TEST(QueueTree, FairSharesGoDownTheTree) {
  // 32 GPUs between org (a1, a2) and b, equal weights, every leaf asking for 16.
  const std::vector<AdmissionQueue> queues{Q("org"), Q("a1", "org"), Q("a2", "org"), Q("b")};
  const std::vector<double> demand{0, 16, 16, 16};
  EXPECT_THAT(QueueTree(queues).FairShares(32, demand), ElementsAre(16, 8, 8, 16));
  // A guarantee below is a floor inside the parent's share; a limit on the parent caps its subtree.
  std::vector<AdmissionQueue> guaranteed = queues;
  guaranteed[2].guaranteed = 12;
  EXPECT_THAT(QueueTree(guaranteed).FairShares(32, demand), ElementsAre(16, 4, 12, 16));
  std::vector<AdmissionQueue> limited = queues;
  limited[0].limit = 10;
  EXPECT_THAT(QueueTree(limited).FairShares(32, demand), ElementsAre(10, 5, 5, 16));
  // Weights count among siblings only.
  std::vector<AdmissionQueue> weighted = queues;
  weighted[1].weight = 3;
  EXPECT_THAT(QueueTree(weighted).FairShares(32, demand), ElementsAre(16, 12, 4, 16));
}

TEST(QueueTree, FlatQueuesGetExactlyTheFlatWaterFill) {
  const std::vector<AdmissionQueue> queues{Q("a", "", 1, 5), Q("b", "", 2, 0, 7), Q("c", "", 0.5), Q("d", "", 0)};
  for (double capacity : {0.0, 3.0, 10.0, 17.5, 40.0, 1000.0}) {
    for (const std::vector<double>& demand :
         {std::vector<double>{4, 9, 30, 2}, std::vector<double>{0, 9, 0, 0}, std::vector<double>{12.5, 1, 3, 50}}) {
      std::vector<ShareInput> flat;
      for (size_t q = 0; q < queues.size(); ++q) {
        flat.push_back(ShareInput{queues[q].weight, queues[q].guaranteed, queues[q].limit, demand[q]});
      }
      EXPECT_EQ(QueueTree(queues).FairShares(capacity, demand), WaterFill(capacity, flat)) << capacity;
    }
  }
}

}  // namespace
}  // namespace gangplank::engine
