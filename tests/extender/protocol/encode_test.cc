#include "extender/protocol/encode.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "extender/protocol/json_writer.h"

namespace gangplank::extender {
namespace {

TEST(EncodeFilterResult, NodeCacheCapableReplyHasGoFieldsAndNulls) {
  ExtenderFilterResult r;
  r.node_names = std::vector<std::string_view>{"n1", "n3"};
  r.failed_nodes = FailedNodesMap{{"n2", "needs 4 free GPUs, node has 3"}};
  r.failed_and_unresolvable_nodes = FailedNodesMap{{"n4", "node is cordoned (unschedulable)"}};
  EXPECT_EQ(EncodeFilterResult(r),
            R"js({"Nodes":null,"NodeNames":["n1","n3"],"FailedNodes":{"n2":"needs 4 free GPUs, node has 3"},)js"
            R"js("FailedAndUnresolvableNodes":{"n4":"node is cordoned (unschedulable)"},"Error":""})js");
}

TEST(EncodeFilterResult, NodeListReplyEchoesNodeObjects) {
  ExtenderFilterResult r;
  r.nodes = std::vector<std::string_view>{R"js({"metadata":{"name":"n1"}})js"};
  r.failed_nodes.emplace();
  r.failed_and_unresolvable_nodes.emplace();
  EXPECT_EQ(EncodeFilterResult(r),
            R"js({"Nodes":{"metadata":{},"items":[{"metadata":{"name":"n1"}}]},"NodeNames":null,"FailedNodes":{},)js"
            R"js("FailedAndUnresolvableNodes":{},"Error":""})js");
}

TEST(EncodeFilterResult, ErrorReplyLeavesEverythingElseNull) {
  ExtenderFilterResult r;
  r.error = "pod a/b: bad";
  EXPECT_EQ(EncodeFilterResult(r),
            R"js({"Nodes":null,"NodeNames":null,"FailedNodes":null,"FailedAndUnresolvableNodes":null,"Error":"pod a/b: bad"})js");
}

TEST(EncodeFilterResult, FailedNodesSortedByNameAsGoSortsMapKeys) {
  ExtenderFilterResult r;
  r.failed_nodes = FailedNodesMap{{"b", "x"}, {"a", "y"}, {"C", "z"}};
  const std::string out = EncodeFilterResult(r);
  EXPECT_NE(out.find(R"js("FailedNodes":{"C":"z","a":"y","b":"x"})js"), std::string::npos) << out;
}

TEST(EncodeHostPriorityList, BareArray) {
  EXPECT_EQ(EncodeHostPriorityList({{"n1", 7}, {"n2", 0}}), R"js([{"Host":"n1","Score":7},{"Host":"n2","Score":0}])js");
  EXPECT_EQ(EncodeHostPriorityList({}), "[]");
}

TEST(EncodePreemptionResult, MatchesKubeSchedulerTypesTest) {
  ExtenderPreemptionResult r;
  r.node_to_meta_victims.insert_or_assign("foo", MetaVictims{{"myuid"}, 1});
  EXPECT_EQ(EncodePreemptionResult(r), R"js({"NodeNameToMetaVictims":{"foo":{"Pods":[{"UID":"myuid"}],"NumPDBViolations":1}}})js");
  EXPECT_EQ(EncodePreemptionResult({}), R"js({"NodeNameToMetaVictims":{}})js");
}

// The flat replies are appended directly (not through JsonWriter): commas, escapes and the order of
// several entries must still be exactly Go's.
TEST(EncodeDirectPaths, SeveralEntriesWithEscapesAreGoBytes) {
  EXPECT_EQ(EncodeHostPriorityList({{"a<b", 10}, {"n\"2", -1}, {"n3", 0}}),
            R"js([{"Host":"a\u003cb","Score":10},{"Host":"n\"2","Score":-1},{"Host":"n3","Score":0}])js");
  ExtenderPreemptionResult r;
  r.node_to_meta_victims.insert_or_assign("n&1", MetaVictims{{"u1", "u<2"}, 0});
  r.node_to_meta_victims.insert_or_assign("n2", MetaVictims{{}, 3});
  EXPECT_EQ(EncodePreemptionResult(r),
            R"js({"NodeNameToMetaVictims":{"n\u00261":{"Pods":[{"UID":"u1"},{"UID":"u\u003c2"}],"NumPDBViolations":0},)js"
            R"js("n2":{"Pods":[],"NumPDBViolations":3}}})js");
  ExtenderFilterResult f;
  f.node_names = std::vector<std::string_view>{"ok"};
  f.failed_nodes = FailedNodesMap{{"x", "needs <4> GPUs"}, {"y", "z"}};
  f.failed_and_unresolvable_nodes = FailedNodesMap{};
  EXPECT_EQ(EncodeFilterResult(f),
            R"js({"Nodes":null,"NodeNames":["ok"],"FailedNodes":{"x":"needs \u003c4\u003e GPUs","y":"z"},)js"
            R"js("FailedAndUnresolvableNodes":{},"Error":""})js");
  EXPECT_TRUE(IsPlainJsonString("gpu-17.rack-3"));
  EXPECT_FALSE(IsPlainJsonString("a&b"));
  EXPECT_FALSE(IsPlainJsonString("caf\xc3\xa9"));
}

// IsPlainJsonString tests eight bytes at a time: every byte value, at every position of a word and of
// the tail, must be judged as the byte-by-byte definition judges it.
TEST(EncodeDirectPaths, PlainStringCheckAgreesWithTheDefinitionForEveryByteAndPosition) {
  const auto plain = [](unsigned char c) {
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&';
  };
  for (int c = 0; c < 256; ++c) {
    for (size_t pos = 0; pos < 19; ++pos) {
      std::string s(19, 'a');
      s[pos] = static_cast<char>(c);
      EXPECT_EQ(IsPlainJsonString(s), plain(static_cast<unsigned char>(c))) << "byte " << c << " at " << pos;
      EXPECT_EQ(IsPlainJsonString(std::string_view(s).substr(pos)), plain(static_cast<unsigned char>(c)));
    }
  }
  EXPECT_TRUE(IsPlainJsonString(""));
}

TEST(EncodeBindingResult, ErrorOnly) {
  EXPECT_EQ(EncodeBindingResult({}), R"js({"Error":""})js");
  EXPECT_EQ(EncodeErrorBody("bad \"x\""), R"js({"Error":"bad \"x\""})js");
}

TEST(GoStringEscaping, HtmlSafeControlAndInvalidUtf8) {
  std::string out;
  AppendGoJsonString(out, "a<b>&c\n\t\x01\"\\");
  EXPECT_EQ(out, R"js("a\u003cb\u003e\u0026c\n\t\u0001\"\\")js");
  out.clear();
  AppendGoJsonString(out, "\xe2\x80\xa8|\xe2\x80\xa9|\xc3\xa9|\xff|\xc3");
  EXPECT_EQ(out, "\"\\u2028|\\u2029|\xc3\xa9|\\ufffd|\\ufffd\"");
  // Whatever the input, the output is valid JSON that decodes back (modulo replaced bytes).
  out.clear();
  AppendGoJsonString(out, "queue <team-a> & \xf0\x9f\x9a\x80");
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), "queue <team-a> & \xf0\x9f\x9a\x80");
}

}  // namespace
}  // namespace gangplank::extender
