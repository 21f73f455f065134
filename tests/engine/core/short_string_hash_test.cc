#include "engine/short_string_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace gangplank::engine {
namespace {

TEST(ShortStringHash, EqualStringsHashEqualWhereverTheyLive) {
  const std::string a = "gpu-node-4711";
  const std::string b = std::string("xx") + a;  // Same text at a different address and alignment.
  EXPECT_EQ(ShortStringHash(a), ShortStringHash(std::string_view(b).substr(2)));
}

TEST(ShortStringHash, EveryByteAndTheLengthCount) {
  // Lengths around the word size, a change in each position; and a trailing NUL is not "no byte".
  for (size_t length : {1u, 7u, 8u, 9u, 16u, 17u, 36u}) {
    const std::string a(length, 'n');
    for (size_t at = 0; at < length; ++at) {
      std::string b = a;
      b[at] = 'm';
      EXPECT_NE(ShortStringHash(a), ShortStringHash(b)) << "length " << length << ", differs at " << at;
    }
    EXPECT_NE(ShortStringHash(a), ShortStringHash(a + std::string(1, '\0'))) << length;
  }
  EXPECT_NE(ShortStringHash(""), ShortStringHash(std::string(1, '\0')));
}

// The tables index by the low bits: node names that differ only in a digit must spread over them.
TEST(ShortStringHash, SequentialNamesSpreadOverTheLowBits) {
  constexpr int kNames = 5000;
  constexpr std::uint64_t kBuckets = 1024;
  std::vector<int> load(kBuckets, 0);
  std::set<std::uint64_t> distinct;
  for (int i = 0; i < kNames; ++i) {
    const std::uint64_t h = ShortStringHash("gpu-" + std::to_string(i));
    distinct.insert(h);
    ++load[h % kBuckets];
  }
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kNames));
  int fullest = 0;
  for (int n : load) fullest = std::max(fullest, n);
  EXPECT_LE(fullest, 20);  // ~4.9 per bucket on average; a poor mix piles dozens into a few.
}

}  // namespace
}  // namespace gangplank::engine
