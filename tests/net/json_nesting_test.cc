// net/json_nesting.h: the depth found by the 64-byte block scanner is the depth a byte-by-byte reading of
// the JSON finds, for brackets, strings, escapes and blocks cut anywhere.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "net/json_nesting.h"

namespace gangplank::net {
namespace {

// The reference: one byte at a time. A backslash escapes the byte after it wherever it stands (valid JSON
// has none outside strings, and a body that has one is the parser's to refuse), and an escaped quote
// neither opens nor closes a string.
std::size_t DeepestByBytes(const std::string& text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    const bool this_escaped = escaped;
    escaped = false;
    if (c == '\\' && !this_escaped) {
      escaped = true;
      continue;
    }
    if (c == '"' && !this_escaped) {
      in_string = !in_string;
      continue;
    }
    if (in_string) continue;
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest;
}

// The deepest level JsonNestsDeeperThan finds, by asking it.
std::size_t DeepestByBlocks(const std::string& text) {
  std::size_t depth = 0;
  while (JsonNestsDeeperThan(text, depth)) ++depth;
  return depth;
}

TEST(JsonNesting, CountsBracketsOutsideStrings) {
  EXPECT_EQ(DeepestByBlocks("1"), 0u);
  EXPECT_EQ(DeepestByBlocks("[]"), 1u);
  EXPECT_EQ(DeepestByBlocks(R"({"a":[{"b":[1,2]}],"c":{}})"), 4u);
  EXPECT_EQ(DeepestByBlocks(R"({"a":"[[[[{{{{"})"), 1u) << "brackets in a string";
  EXPECT_EQ(DeepestByBlocks(R"({"a":"\"[[[[","b":[[]]})"), 3u) << "an escaped quote does not end the string";
  EXPECT_EQ(DeepestByBlocks(R"({"a":"\\","b":[[]]})"), 3u) << "an escaped backslash does";
  EXPECT_EQ(DeepestByBlocks("]]]]][[["), 3u) << "a stray close does not go below 0";
}

TEST(JsonNesting, AThousandLevelsAreFoundWhereverTheyStart) {
  for (std::size_t offset : {0u, 1u, 63u, 64u, 65u, 127u}) {
    const std::string text = std::string(offset, ' ') + std::string(1000, '[') + std::string(1000, ']');
    EXPECT_TRUE(JsonNestsDeeperThan(text, 64)) << offset;
    EXPECT_FALSE(JsonNestsDeeperThan(text, 1000)) << offset;
    EXPECT_TRUE(JsonNestsDeeperThan(text, 999)) << offset;
  }
}

TEST(JsonNesting, AgreesWithAByteByByteReadingOnRandomText) {
  std::mt19937 random(31);
  const std::string alphabet = "[]{}\"\\\\a ,:";
  for (int round = 0; round < 20000; ++round) {
    std::string text(std::uniform_int_distribution<std::size_t>(0, 300)(random), ' ');
    for (char& c : text) c = alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(random)];
    ASSERT_EQ(DeepestByBlocks(text), DeepestByBytes(text)) << text;
  }
}

TEST(JsonNesting, BackslashRunsAcrossBlockBoundaries) {
  for (std::size_t run = 0; run < 6; ++run) {
    for (std::size_t at = 55; at < 70; ++at) {
      std::string text = "\"" + std::string(at, 'x');
      text += std::string(run, '\\') + "\"[[[\"]]]";
      ASSERT_EQ(DeepestByBlocks(text), DeepestByBytes(text)) << "run " << run << " at " << at << ": " << text;
    }
  }
}

}  // namespace
}  // namespace gangplank::net
