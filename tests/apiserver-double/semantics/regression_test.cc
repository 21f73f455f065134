// Regressions reported by the client library's author: a watch from an old resourceVersion must
// deliver the whole backlog in order and then go live, and seed files accept every List shape.
#include <fstream>
#include <thread>

#include "tests/apiserver-double/semantics/double_fixture.h"

namespace gangplank::apiserver_double::testing {
namespace {

class RegressionTest : public DoubleTest {
 public:
  static json node(int i, const std::string& label = "a") {
    return {{"apiVersion", "v1"}, {"kind", "Node"},
            {"metadata", {{"name", "n" + std::to_string(i)}, {"labels", {{"l", label}}}}}};
  }
 protected:
  std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string seed_error(const std::string& path) {
    try {
      server_->SeedFile(path);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(RegressionTest, WatchFromOldVersionDeliversTenThousandEventsInOrderThenLiveOnes) {
  constexpr int kBacklog = 10000;
  const std::string start_rv = server_->ResourceVersion();
  for (int i = 0; i < kBacklog; ++i) server_->put(node(i));
  RawStream s(server_->port(), "/api/v1/nodes?watch=1&resourceVersion=" + start_rv);
  ASSERT_EQ(s.status(), 200);
  uint64_t last_rv = std::stoull(start_rv);
  for (int i = 0; i < kBacklog; ++i) {
    auto line = s.next_line(std::chrono::seconds(10));
    ASSERT_TRUE(line) << "stream stalled after " << i << " backlog events";
    const json e = json::parse(*line);
    ASSERT_EQ(e["type"], "ADDED") << i;
    ASSERT_EQ(e["object"]["metadata"]["name"], "n" + std::to_string(i));
    const uint64_t rv = std::stoull(e["object"]["metadata"]["resourceVersion"].get<std::string>());
    ASSERT_GT(rv, last_rv);
    last_rv = rv;
  }
  server_->put(node(0, "b"));
  auto live = s.next_line(std::chrono::seconds(5));
  ASSERT_TRUE(live) << "no live event after the backlog";
  const json e = json::parse(*live);
  EXPECT_EQ(e["type"], "MODIFIED");
  EXPECT_EQ(e["object"]["metadata"]["labels"]["l"], "b");
  EXPECT_EQ(std::stoull(e["object"]["metadata"]["resourceVersion"].get<std::string>()), last_rv + 1);
}

// A client that does not read holds the replay back (the backlog is not queued all at once); if the
// history limit then drops events it has not received, it gets an in-stream 410, never a stall.
TEST(RegressionPacing, ReplayOverrunByTheHistoryLimitEndsWithExpired) {
  DoubleOptions o;
  o.history_limit = 700;
  ApiServerDouble server(o);
  server.Start();
  const std::string start_rv = server.ResourceVersion();
  const std::string padding(50000, 'x');  // 600 x 50 KB: more than socket buffers and one replay slice hold
  for (int i = 0; i < 600; ++i) {
    server.put({{"apiVersion", "v1"}, {"kind", "Node"},
                {"metadata", {{"name", "n" + std::to_string(i)}, {"annotations", {{"pad", padding}}}}}});
  }
  RawStream s(server.port(), "/api/v1/nodes?watch=1&resourceVersion=" + start_rv);
  ASSERT_EQ(s.status(), 200);
  for (int i = 0; i < 100 && server.OpenWatches() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // replay runs into the unread buffer
  for (int i = 0; i < 700; ++i) server.put(RegressionTest::node(i, "moved"));
  int added = 0;
  json last;
  while (auto line = s.next_line(std::chrono::seconds(10))) {
    last = json::parse(*line);
    if (last["type"] != "ADDED") break;
    ASSERT_EQ(last["object"]["metadata"]["name"], "n" + std::to_string(added));
    ++added;
  }
  EXPECT_GT(added, 0);
  EXPECT_LT(added, 600);
  EXPECT_EQ(last["type"], "ERROR") << last.dump().substr(0, 200);
  EXPECT_EQ(last["object"]["code"], 410);
  EXPECT_FALSE(s.next_line(std::chrono::seconds(2)));
}

// The 2,000-event "stall" was a benchmark re-putting identical pods: a no-op write emits nothing and
// keeps the resourceVersion, as in the apiserver, so a watcher waiting for it waits forever.
TEST_F(RegressionTest, IdenticalPutIsNoEventAndKeepsResourceVersion) {
  server_->put(node(1));
  const std::string rv = server_->ResourceVersion();
  server_->put(node(1));
  EXPECT_EQ(server_->ResourceVersion(), rv);
  RawStream s(server_->port(), "/api/v1/nodes?watch=1&resourceVersion=" + rv);
  EXPECT_FALSE(s.next_line(std::chrono::milliseconds(200)));
}

TEST_F(RegressionTest, SeedAcceptsKindListInYaml) {
  const auto path = write_file("list.yaml",
                               "apiVersion: v1\nkind: List\nitems:\n"
                               "- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n"
                               "- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\n"
                               "- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: default}\n");
  EXPECT_EQ(server_->SeedFile(path), 3u);
  EXPECT_TRUE(server_->Get("nodes", "", "a"));
  EXPECT_TRUE(server_->Get("nodes", "", "b"));
  EXPECT_TRUE(server_->Get("pods", "default", "p"));
}

TEST_F(RegressionTest, SeedAcceptsJsonListTypedListArrayAndMultiDocumentYaml) {
  const auto list = write_file("list.json", R"({"apiVersion":"v1","kind":"List","metadata":{},"items":[
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"j1"}},{"apiVersion":"v1","kind":"Node","metadata":{"name":"j2"}}]})");
  EXPECT_EQ(server_->SeedFile(list), 2u);
  // An API list response: items carry no apiVersion/kind; they come from the list.
  const auto typed = write_file("podlist.json", R"({"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"7"},
      "items":[{"metadata":{"name":"t1","namespace":"default","resourceVersion":"5"}}]})");
  EXPECT_EQ(server_->SeedFile(typed), 1u);
  const auto array = write_file("array.json", R"([{"apiVersion":"v1","kind":"Node","metadata":{"name":"arr"}}])");
  EXPECT_EQ(server_->SeedFile(array), 1u);
  const auto multi = write_file("multi.yaml",
                                "apiVersion: v1\nkind: Node\nmetadata: {name: m1}\n---\n"
                                "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: m2}}\n---\n"
                                "- {apiVersion: v1, kind: Node, metadata: {name: m3}}\n");
  EXPECT_EQ(server_->SeedFile(multi), 3u);
  for (const char* name : {"j1", "j2", "arr", "m1", "m2", "m3"}) EXPECT_TRUE(server_->Get("nodes", "", name)) << name;
  EXPECT_TRUE(server_->Get("pods", "default", "t1"));
}

TEST_F(RegressionTest, SeedErrorsNameTheFileAndTheProblem) {
  const std::string scalar = seed_error(write_file("scalar.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: ok}\n---\njust text\n"));
  EXPECT_NE(scalar.find("scalar.yaml"), std::string::npos) << scalar;
  EXPECT_NE(scalar.find("document 2"), std::string::npos) << scalar;
  const std::string item = seed_error(write_file("item.json", R"({"apiVersion":"v1","kind":"List","items":[42]})"));
  EXPECT_NE(item.find("item.json"), std::string::npos) << item;
  EXPECT_NE(item.find("List item 1"), std::string::npos) << item;
  const std::string items = seed_error(write_file("items.json", R"({"apiVersion":"v1","kind":"List","items":{"a":1}})"));
  EXPECT_NE(items.find("items must be an array"), std::string::npos) << items;
  const std::string kindless = seed_error(write_file("kindless.json", R"({"kind":"List","items":[{"metadata":{"name":"x"}}]})"));
  EXPECT_NE(kindless.find("kindless.json"), std::string::npos) << kindless;
  EXPECT_NE(kindless.find("object 1"), std::string::npos) << kindless;
  const std::string broken = seed_error(write_file("broken.json", R"({"kind": "List", "items": [)"));
  EXPECT_NE(broken.find("broken.json"), std::string::npos) << broken;
  EXPECT_FALSE(server_->Get("nodes", "", "x"));
}

}  // namespace
}  // namespace gangplank::apiserver_double::testing
