#include "engine/short_string_equal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gangplank::engine {
namespace {

TEST(ShortStringEqual, AgreesWithStringEqualityAcrossWordBoundaries) {
  // Lengths around the 8-byte word size, with the difference in each possible position.
  for (size_t length : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 40u}) {
    const std::string a(length, 'n');
    EXPECT_TRUE(ShortStringEqual(a, std::string(length, 'n'))) << length;
    for (size_t at = 0; at < length; ++at) {
      std::string b = a;
      b[at] = 'm';
      EXPECT_FALSE(ShortStringEqual(a, b)) << "length " << length << ", differs at " << at;
    }
    EXPECT_FALSE(ShortStringEqual(a, a + "x")) << length;  // Prefixes are not equal.
  }
}

TEST(ShortStringEqual, ComparesBytesNotTerminators) {
  const std::string with_nul("gpu\0a", 5);
  EXPECT_FALSE(ShortStringEqual(with_nul, std::string("gpu\0b", 5)));
  EXPECT_TRUE(ShortStringEqual(with_nul, std::string("gpu\0a", 5)));
  EXPECT_FALSE(ShortStringEqual("A100", "a100"));
}

TEST(ShortStringLess, OrdersAsStringViewDoes) {
  // Word-sized and longer prefixes, differences before, at and after a word boundary, high bytes, NUL.
  const std::vector<std::string> names = {"",         "a",         "gpu-1",      "gpu-10",     "gpu-2",
                                          "gpu-node-1", "gpu-node-10", "gpu-node-2", "gpu-nodf",   "zz",
                                          std::string("a\0b", 3), std::string("a\xff", 2), "ip-10-0-1-23.ec2.internal",
                                          "ip-10-0-1-3.ec2.internal", "ip-10-0-11-3.ec2.internal"};
  for (const std::string& a : names) {
    for (const std::string& b : names) {
      EXPECT_EQ(ShortStringLess(a, b), std::string_view(a) < std::string_view(b)) << "'" << a << "' < '" << b << "'";
    }
  }
}

}  // namespace
}  // namespace gangplank::engine
