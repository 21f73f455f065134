// The hand-written fast paths for NodeNameToMetaVictims and NodeNames against the general simdjson
// path (RequestDecoder::FastPaths::kOff): same result or the same error text, on fixed and random input.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cache/objects/decode_error.h"
#include "extender/protocol/decode.h"
#include "extender/protocol/json_writer.h"
#include "tests/extender/support/go_fixtures.h"

namespace gangplank::extender {
namespace {

using Mode = RequestDecoder::FastPaths;

// What a decode produced, as text: the map or names with every view's bytes, or the error.
std::string Outcome(Mode mode, const std::string& text, bool preempt) {
  RequestDecoder decoder(mode);
  std::string body = text;
  try {
    if (!preempt) {
      const ExtenderArgs args = decoder.DecodeExtenderArgs(body);
      if (!args.node_names) return "null";
      std::string out = "names:";
      for (std::string_view n : *args.node_names) out += "[" + std::string(n) + "]";
      return out;
    }
    const ExtenderPreemptionArgs args = decoder.DecodePreemptionArgs(body);
    if (!args.node_to_meta_victims) return "null";
    std::string out = "map:";
    for (const auto& [node, victims] : *args.node_to_meta_victims) {
      out += "{" + std::string(node) + "|" + std::to_string(victims.num_pdb_violations);
      for (std::string_view uid : victims.uids) out += "|" + std::string(uid);
      out += "}";
    }
    return out;
  } catch (const cache::DecodeError& e) {
    return std::string("error: ") + e.what();
  }
}

std::string PreemptBody(const std::string& map) {
  return R"({"Pod":{},"NodeNameToVictims":null,"NodeNameToMetaVictims":)" + map + "}";
}
std::string FilterBody(const std::string& names) { return R"({"Pod":{},"Nodes":null,"NodeNames":)" + names + "}"; }

void ExpectSame(const std::string& body, bool preempt) {
  EXPECT_EQ(Outcome(Mode::kOn, body, preempt), Outcome(Mode::kOff, body, preempt)) << body;
}

TEST(FastDecode, GoOutputTakesTheFastPathAndIsMarkedPlain) {
  std::string body = testing::PreemptArgsMeta(testing::GoPod(testing::PodSpecFixture{}),
                                              {{"n1", {"u1", "u2"}}, {"n2", {"u3"}}, {"n3", {}}}, 4);
  ExpectSame(body, true);
  RequestDecoder decoder;
  const ExtenderPreemptionArgs args = decoder.DecodePreemptionArgs(body);
  EXPECT_TRUE(args.node_to_meta_victims->known_plain());  // Only the fast path marks it.
  EXPECT_EQ(args.node_to_meta_victims->at("n1").uids, (std::vector<std::string_view>{"u1", "u2"}));
  EXPECT_EQ(args.node_to_meta_victims->at("n3").num_pdb_violations, 4);
  // Viewed in place: the UID's bytes are the body's.
  const std::string_view uid = args.node_to_meta_victims->at("n2").uids[0];
  EXPECT_TRUE(uid.data() >= body.data() && uid.data() < body.data() + body.size());

  std::string filter = testing::FilterArgsByName(testing::GoPod(testing::PodSpecFixture{}), {"a", "b"});
  ExpectSame(filter, false);
  const ExtenderArgs fargs = decoder.DecodeExtenderArgs(filter);
  EXPECT_TRUE(fargs.names_plain);
  EXPECT_EQ(*fargs.node_names, (std::vector<std::string_view>{"a", "b"}));
}

TEST(FastDecode, PlainFlagFollowsGoEscaping) {
  for (const char* name : {"a<b", "a&b", "x>", "caf\xc3\xa9"}) {
    const std::string json = std::string("[\"ok\",\"") + name + "\"]";
    RequestDecoder decoder;
    std::string body = FilterBody(json);
    const ExtenderArgs args = decoder.DecodeExtenderArgs(body);
    EXPECT_FALSE(args.names_plain) << name;
    EXPECT_EQ(args.node_names->at(1), name);
    std::string pbody = PreemptBody(std::string("{\"n\":{\"Pods\":[{\"UID\":\"") + name + "\"}]}}");
    EXPECT_FALSE(decoder.DecodePreemptionArgs(pbody).node_to_meta_victims->known_plain()) << name;
  }
  RequestDecoder general(Mode::kOff);
  std::string body = FilterBody(R"(["a","b"])");
  EXPECT_FALSE(general.DecodeExtenderArgs(body).names_plain);  // Unknown on the general path.
}

TEST(FastDecode, FixedVictimMapsMatchTheGeneralPath) {
  const char* maps[] = {
      "{}", " { } ", "null", R"({"n1":null})", R"({"n1":{}})", R"({"n1":{"Pods":null,"NumPDBViolations":null}})",
      R"({"n1":{"Pods":[]}})", R"({"n1":{"NumPDBViolations":3,"Pods":[{"UID":"u"}]}})",
      "{\n  \"n1\" : {\t\"Pods\" : [ { \"UID\" : \"u1\" } , {\"UID\":\"u2\"} ] ,\r\n \"NumPDBViolations\" : 0 } ,\"n2\":{} }",
      R"({"n1":{"pods":[{"uid":"u1"}],"numpdbviolations":7}})", R"({"n1":{"PODS":[{"Uid":"u1"}]}})",
      R"({"n\u0031":{"Pods":[{"UID":"u\"1"}]}})", R"({"n1":{"Pods":[{"UID":"\u0075"}]}})",
      R"({"n2":{"Pods":[{"UID":"b"}]},"n1":{"Pods":[{"UID":"a"}]}})",  // Unsorted.
      R"({"n1":{"Pods":[{"UID":"a"}]},"n1":{"Pods":[{"UID":"b"}]}})",  // Repeated node.
      R"({"n1":{"Pods":[{"UID":"a"}],"Pods":[{"UID":"b"}]}})",          // Repeated key.
      R"({"n1":{"Pods":[{"UID":"a","UID":"b"}]}})", R"({"n1":{"Pods":[{"UID":"a","Other":1}]}})",
      R"({"n1":{"Pods":[{"UID":"a"}],"Extra":{"x":[1,2]}}})", R"({"":{"Pods":[{"UID":"a"}]}})",
      R"({"n1":{"Pods":[{}]}})", R"({"n1":{"Pods":[{"UID":""}]}})", R"({"n1":{"Pods":[{"UID":null}]}})",
      R"({"n1":{"Pods":[null]}})", R"({"n1":{"Pods":[1]}})", R"({"n1":{"Pods":{}}})", R"({"n1":[]})", "[]", "\"x\"", "7",
      R"({"n1":{"NumPDBViolations":-1}})", R"({"n1":{"NumPDBViolations":-0}})", R"({"n1":{"NumPDBViolations":01}})",
      R"({"n1":{"NumPDBViolations":1.0}})", R"({"n1":{"NumPDBViolations":1e2}})", R"({"n1":{"NumPDBViolations":"1"}})",
      R"({"n1":{"NumPDBViolations":999999999999999999}})", R"({"n1":{"NumPDBViolations":9223372036854775807}})",
      R"({"n1":{"NumPDBViolations":9223372036854775808}})", R"({"n1":{"NumPDBViolations":true}})",
      R"({"n1":{"Pods":[{"UID":"a"},]}})", R"({"n1":{"Pods":[{"UID":"a"}],}})", R"({"n1" {"Pods":[]}})",
      R"({"n1":{"Pods":[{"UID":"a"}]})", R"({"n1":{"Pods":[{"UID":"a"}]}}})", R"({"n1":nul})", R"({n1:{}})",
      "{\"n1\":{\"Pods\":[{\"UID\":\"a\tb\"}]}}", R"({"n1":{"Pods":[{"UID":"caf\u00e9"}]}})",
  };
  for (const char* map : maps) ExpectSame(PreemptBody(map), true);
  ExpectSame(R"({"Pod":{},"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":"a"}]})", true);  // Truncated body.
  ExpectSame("{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"\xff\"}]}}}", true);  // Bad UTF-8.
}

TEST(FastDecode, FixedNameListsMatchTheGeneralPath) {
  const char* lists[] = {"[]", " [ ] ", "null", R"(["a"])", "[ \"a\" ,\n\"b\"\t]", R"(["a\"b"])", R"(["\u0061"])",
                         R"(["a",1])", R"(["a",null])", R"(["a",])", R"(["a" "b"])", R"({"a":1})", "\"a\"", R"([""])",
                         R"(["a","a"])", "[\"a\x01\"]", R"(["a")"};
  for (const char* list : lists) ExpectSame(FilterBody(list), false);
}

// Random maps in the shapes above: Go's output with random whitespace, key case, nulls, escapes, extra
// keys and numbers, then random byte edits of it.
class RandomJson {
 public:
  explicit RandomJson(std::uint32_t seed) : rng_(seed) {}

  std::string VictimMap() {
    std::string out = "{";
    const int nodes = Pick(5);
    for (int i = 0; i < nodes; ++i) {
      if (i > 0) out += Ws() + ",";
      out += Ws() + Str("n" + std::to_string(Pick(3) == 0 ? Pick(9) : i * 10 + Pick(9))) + Ws() + ":" + Ws();
      out += Pick(12) == 0 ? "null" : Victims();
    }
    return out + Ws() + "}";
  }
  std::string NameList() {
    std::string out = "[";
    const int names = Pick(6);
    for (int i = 0; i < names; ++i) out += (i > 0 ? Ws() + "," : "") + Ws() + Str("node-" + std::to_string(Pick(50)));
    return out + Ws() + "]";
  }
  // One random byte deleted, replaced or inserted.
  std::string Mutate(std::string s) {
    if (s.empty()) return s;
    const size_t at = static_cast<size_t>(Pick(static_cast<int>(s.size())));
    const char bytes[] = "{}[],:\" \\0-1.eEnul\x01\xc3";
    const char c = bytes[Pick(sizeof bytes - 1)];
    switch (Pick(3)) {
      case 0: s.erase(at, 1); break;
      case 1: s[at] = c; break;
      default: s.insert(at, 1, c);
    }
    return s;
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint32_t>(n)); }
  std::string Ws() {
    static const char* kWs[] = {"", "", "", " ", "\n  ", "\t", "\r\n"};
    return kWs[Pick(7)];
  }
  std::string Key(std::string name) {
    for (char& c : name) {
      if (Pick(5) == 0) c = static_cast<char>(c ^ 0x20);  // Other case.
    }
    return Str(name);
  }
  // A string, now and then with something the fast path leaves to the general one.
  std::string Str(const std::string& s) {
    switch (Pick(30)) {
      case 0: return "\"" + s + "\\u0041\"";
      case 1: return "\"" + s + "<&>\"";
      case 2: return "\"" + s + "\xc3\xa9\"";
      case 3: return "\"\"";
      default: return "\"" + s + "\"";
    }
  }
  std::string Victims() {
    std::vector<std::string> fields;
    if (Pick(8) != 0) fields.push_back(Key("Pods") + Ws() + ":" + Ws() + (Pick(10) == 0 ? "null" : Pods()));
    if (Pick(4) != 0) fields.push_back(Key("NumPDBViolations") + Ws() + ":" + Ws() + Number());
    if (Pick(15) == 0) fields.push_back(Key("Other") + ":" + Ws() + "[1]");
    if (Pick(2) == 0) std::reverse(fields.begin(), fields.end());
    std::string out = "{";
    for (size_t i = 0; i < fields.size(); ++i) out += (i > 0 ? "," : "") + Ws() + fields[i];
    return out + Ws() + "}";
  }
  std::string Pods() {
    std::string out = "[";
    const int pods = Pick(4);
    for (int i = 0; i < pods; ++i) {
      if (i > 0) out += Ws() + ",";
      out += Ws() + (Pick(25) == 0 ? "null" : "{" + Ws() + Key("UID") + Ws() + ":" + Ws() + Str("uid-" + std::to_string(Pick(99))) + Ws() + "}");
    }
    return out + Ws() + "]";
  }
  std::string Number() {
    static const char* kRare[] = {"null", "-3", "1.5", "2e1", "007", "99999999999999999999", "\"1\""};
    return Pick(6) == 0 ? kRare[Pick(7)] : std::to_string(Pick(1000));
  }

  std::mt19937 rng_;
};

TEST(FastDecode, RandomInputMatchesTheGeneralPath) {
  RandomJson random(20261124);
  for (int i = 0; i < 3000; ++i) {
    const std::string map = random.VictimMap();
    ExpectSame(PreemptBody(map), true);
    ExpectSame(PreemptBody(random.Mutate(map)), true);
    const std::string names = random.NameList();
    ExpectSame(FilterBody(names), false);
    ExpectSame(FilterBody(random.Mutate(names)), false);
    if (HasFailure()) break;
  }
}

// known_plain and names_plain promise the encoders that nothing needs checking: never wrongly.
TEST(FastDecode, PlainFlagsAreNeverWrong) {
  RandomJson random(7);
  int plain_maps = 0, plain_lists = 0;
  for (int i = 0; i < 2000; ++i) {
    RequestDecoder decoder;
    std::string body = PreemptBody(random.VictimMap());
    std::string filter = FilterBody(random.NameList());
    try {
      const ExtenderPreemptionArgs args = decoder.DecodePreemptionArgs(body);
      if (args.node_to_meta_victims && args.node_to_meta_victims->known_plain()) {
        ++plain_maps;
        for (const auto& [node, victims] : *args.node_to_meta_victims) {
          EXPECT_TRUE(IsPlainJsonString(node)) << body;
          for (std::string_view uid : victims.uids) EXPECT_TRUE(IsPlainJsonString(uid)) << body;
        }
      }
    } catch (const cache::DecodeError&) {
    }
    try {
      const ExtenderArgs args = decoder.DecodeExtenderArgs(filter);
      if (args.names_plain) {
        ++plain_lists;
        for (std::string_view name : *args.node_names) EXPECT_TRUE(IsPlainJsonString(name)) << filter;
      }
    } catch (const cache::DecodeError&) {
    }
  }
  EXPECT_GT(plain_maps, 200);  // The random input does exercise the fast paths.
  EXPECT_GT(plain_lists, 200);
}

}  // namespace
}  // namespace gangplank::extender
