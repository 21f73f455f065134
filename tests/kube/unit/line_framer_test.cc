#include "kube/line_framer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gangplank::kube {
namespace {

const std::string kStream =
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"b\\nwith escaped newline\"}}}\n"
    "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"9\"}}}\n";

std::vector<std::string> expected_lines() {
  return {"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"}}}",
          "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"b\\nwith escaped newline\"}}}",
          "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"9\"}}}"};
}

TEST(LineFramerTest, EverySplitIntoTwoChunksGivesTheSameEvents) {
  for (size_t cut = 0; cut <= kStream.size(); ++cut) {
    LineFramer framer;
    std::vector<std::string> lines;
    auto sink = [&](std::string_view l) { lines.emplace_back(l); };
    framer.feed(std::string_view(kStream).substr(0, cut), sink);
    framer.feed(std::string_view(kStream).substr(cut), sink);
    ASSERT_EQ(lines, expected_lines()) << "cut at " << cut;
    EXPECT_EQ(framer.pending(), 0u);
  }
}

TEST(LineFramerTest, ByteByByteAndAllInOneChunk) {
  LineFramer framer;
  std::vector<std::string> lines;
  auto sink = [&](std::string_view l) { lines.emplace_back(l); };
  for (char c : kStream) framer.feed(std::string_view(&c, 1), sink);
  EXPECT_EQ(lines, expected_lines());
  lines.clear();
  framer.feed(kStream, sink);
  EXPECT_EQ(lines, expected_lines());
}

TEST(LineFramerTest, PartialLineIsHeldBackUntilItsNewline) {
  LineFramer framer;
  std::vector<std::string> lines;
  auto sink = [&](std::string_view l) { lines.emplace_back(l); };
  framer.feed("{\"a\":1}\r\n\n{\"b\":", sink);
  ASSERT_EQ(lines, std::vector<std::string>{"{\"a\":1}"});  // CR stripped, blank line skipped
  EXPECT_EQ(framer.pending(), 5u);
  framer.feed("2}", sink);
  EXPECT_EQ(lines.size(), 1u);
  framer.feed("\n", sink);
  EXPECT_EQ(lines.back(), "{\"b\":2}");
}

TEST(LineFramerTest, OverlongLineIsAnErrorNotUnboundedMemory) {
  LineFramer framer(16);
  auto sink = [](std::string_view) {};
  EXPECT_THROW(framer.feed(std::string(17, 'x'), sink), std::length_error);
  EXPECT_EQ(framer.pending(), 0u);
}

}  // namespace
}  // namespace gangplank::kube
