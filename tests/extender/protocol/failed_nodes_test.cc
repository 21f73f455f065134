#include "extender/protocol/failed_nodes.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "extender/protocol/encode.h"

namespace gangplank::extender {
namespace {

std::vector<std::string> SortedNames(const FailedNodesMap& map) {
  std::vector<std::string> names;
  for (const auto* entry : map.Sorted()) names.emplace_back(entry->first);
  return names;
}

TEST(FailedNodesMap, SortsByNameAsGoWritesMapKeys) {
  FailedNodesMap map;
  map.insert_or_assign("n10", "a");
  map.insert_or_assign("n2", "b");
  map.insert_or_assign("N1", "c");
  EXPECT_EQ(SortedNames(map), (std::vector<std::string>{"N1", "n10", "n2"}));  // Byte order, as Go sorts.
}

TEST(FailedNodesMap, LaterReasonForTheSameNodeWins) {
  FailedNodesMap map{{"n1", "first"}, {"n2", "other"}};
  map.insert_or_assign("n1", "second");
  ASSERT_EQ(map.Sorted().size(), 2u);
  EXPECT_EQ(map.Sorted()[0]->second, "second");
  EXPECT_EQ(map.at("n1"), "second");
  ExtenderFilterResult r;
  r.failed_nodes = map;
  EXPECT_NE(EncodeFilterResult(r).find(R"js("FailedNodes":{"n1":"second","n2":"other"})js"), std::string::npos);
}

TEST(FailedNodesMap, LookupOfAnAcceptedNodeFails) {
  FailedNodesMap map{{"n1", "why"}};
  EXPECT_EQ(map.Find("n2"), nullptr);
  EXPECT_THROW(map.at("n2"), std::out_of_range);
  EXPECT_TRUE(FailedNodesMap{}.empty());
  ExtenderFilterResult r;
  r.failed_nodes.emplace();
  EXPECT_NE(EncodeFilterResult(r).find(R"js("FailedNodes":{})js"), std::string::npos);
}

}  // namespace
}  // namespace gangplank::extender
