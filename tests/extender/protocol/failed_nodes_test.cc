#include "extender/protocol/failed_nodes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

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

// Sorted orders by an eight-byte prefix first: names sharing it, shorter than it, with NUL or high
// bytes in it must still come out in plain byte order.
TEST(FailedNodesMap, SortsLikeBytewiseComparisonOnTrickyNames) {
  std::mt19937 rng(7);
  const std::string alphabet("a\0\xff\x80z-", 6);
  std::vector<std::string> names;
  for (int i = 0; i < 2000; ++i) {
    std::string name = i % 3 == 0 ? "gpu-node-" : "";
    const size_t extra = rng() % 12;
    for (size_t k = 0; k < extra; ++k) name += alphabet[rng() % alphabet.size()];
    names.push_back(name);
  }
  FailedNodesMap map;
  for (const std::string& n : names) map.insert_or_assign(n, n);
  std::vector<std::string> expected = names;
  std::sort(expected.begin(), expected.end());
  expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
  EXPECT_EQ(SortedNames(map), expected);
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

TEST(FailedNodesMap, NodesShareOneCopyOfARepeatedReason) {
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back("n" + std::to_string(i));
  FailedNodesMap map;
  for (int i = 0; i < 300; ++i) {
    map.insert_or_assign(names[i], i % 2 ? "needs 4 free GPUs, node has 2" : "needs 4 free GPUs, node has 3");
  }
  EXPECT_EQ(map.size(), 300u);
  EXPECT_EQ(map.reasons().size(), 2u);
  EXPECT_EQ(map.at("n7"), "needs 4 free GPUs, node has 2");
  EXPECT_EQ(map.at("n8"), "needs 4 free GPUs, node has 3");
}

TEST(FailedNodesMap, ACopyOutlivesTheOriginal) {
  std::optional<FailedNodesMap> original(FailedNodesMap{{"n1", "a reason longer than the small-string buffer"}});
  original->insert_or_assign("n2", "short");
  const FailedNodesMap copy = *original;
  FailedNodesMap assigned;
  assigned = *original;
  original.reset();
  for (const FailedNodesMap* map : {&copy, static_cast<const FailedNodesMap*>(&assigned)}) {
    EXPECT_EQ(map->at("n1"), "a reason longer than the small-string buffer");
    ASSERT_EQ(map->Sorted().size(), 2u);
    EXPECT_EQ(map->Sorted()[1]->second, "short");
  }
}

// Reasons are escaped once per distinct text, names per entry: both still come out as Go writes them.
TEST(FailedNodesMap, EncodesEscapedNamesAndReasonsAsGo) {
  ExtenderFilterResult r;
  r.failed_nodes = FailedNodesMap{{"b<1>", "needs <4> GPUs & more"}, {"a", "needs <4> GPUs & more"}, {"c\"x", "ok"}};
  const std::string expected =
      R"js("FailedNodes":{"a":"needs \u003c4\u003e GPUs \u0026 more","b\u003c1\u003e":"needs \u003c4\u003e GPUs \u0026 more","c\"x":"ok"})js";
  EXPECT_NE(EncodeFilterResult(r).find(expected), std::string::npos) << EncodeFilterResult(r);
}
}  // namespace
}  // namespace gangplank::extender
