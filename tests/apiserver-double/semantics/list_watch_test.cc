// LIST (snapshot pages, continue expiry, Exact reads) and WATCH (start semantics, bookmarks, selector
// transitions, timeoutSeconds, 410 as HTTP status and as in-stream ERROR).
#include <thread>

#include "tests/apiserver-double/semantics/double_fixture.h"

namespace gangplank::apiserver_double::testing {
namespace {

class ListWatchTest : public DoubleTest {
 protected:
  DoubleOptions options() override {
    DoubleOptions o;
    o.bookmark_interval = std::chrono::milliseconds(100);
    return o;
  }
  void make_pods(int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod("p" + std::to_string(i), {{"idx", std::to_string(i)}})).status, 201);
    }
  }
  void wait_for_watches(std::size_t n) {
    for (int i = 0; i < 500 && server_->OpenWatches() < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(server_->OpenWatches(), n);
  }
  static json event(RawStream& s) {
    auto line = s.next_line(std::chrono::seconds(5));
    if (!line) return nullptr;
    return json::parse(*line);
  }
};

std::vector<std::string> names(const json& list) {
  std::vector<std::string> out;
  for (const auto& i : list["items"]) out.push_back(i["metadata"]["name"]);
  return out;
}

TEST_F(ListWatchTest, PagesComeFromOneSnapshot) {
  make_pods(5);
  auto first = call("GET", "/api/v1/namespaces/default/pods?limit=2");
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(names(first.body), (std::vector<std::string>{"p0", "p1"}));
  EXPECT_EQ(first.body["metadata"]["remainingItemCount"], 3);
  const std::string rv = first.body["metadata"]["resourceVersion"];
  // Changes between pages must not show up in later pages.
  call("DELETE", "/api/v1/namespaces/default/pods/p3");
  call("POST", "/api/v1/namespaces/default/pods", pod("p9"));
  std::vector<std::string> all = names(first.body);
  std::string token = first.body["metadata"]["continue"];
  while (!token.empty()) {
    auto page = call("GET", "/api/v1/namespaces/default/pods?limit=2&continue=" + token);
    ASSERT_EQ(page.status, 200) << page.body.dump();
    EXPECT_EQ(page.body["metadata"]["resourceVersion"], rv);
    for (auto& n : names(page.body)) all.push_back(n);
    token = page.body["metadata"].value("continue", std::string());
  }
  EXPECT_EQ(all, (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4"}));
  // A fresh list sees the new state.
  EXPECT_EQ(names(call("GET", "/api/v1/namespaces/default/pods").body), (std::vector<std::string>{"p0", "p1", "p2", "p4", "p9"}));
}

TEST_F(ListWatchTest, CompactedSnapshotsAndBadParametersAreRejected) {
  make_pods(3);
  auto first = call("GET", "/api/v1/namespaces/default/pods?limit=1");
  const std::string rv = first.body["metadata"]["resourceVersion"];
  call("DELETE", "/api/v1/namespaces/default/pods/p2");
  server_->Compact();
  auto expired = call("GET", "/api/v1/namespaces/default/pods?limit=1&continue=" + first.body["metadata"]["continue"].get<std::string>());
  EXPECT_EQ(expired.status, 410);
  EXPECT_EQ(expired.body["reason"], "Expired");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods?resourceVersion=" + rv + "&resourceVersionMatch=Exact").status, 410);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods?resourceVersionMatch=Exact").status, 400);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods?continue=%%%").status, 400);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods?resourceVersion=abc&limit=1").status, 400);
}

TEST(ListWatchTtl, ContinueTokensExpire) {
  DoubleOptions o;
  o.continue_token_ttl = std::chrono::seconds(-1);
  ApiServerDouble server(o);
  server.Start();
  for (int i = 0; i < 3; ++i) {
    server.put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n" + std::to_string(i)}}}});
  }
  auto first = json::parse(http_request(server.port(), "GET", "/api/v1/nodes?limit=1").body);
  auto next = http_request(server.port(), "GET", "/api/v1/nodes?limit=1&continue=" + first["metadata"]["continue"].get<std::string>());
  EXPECT_EQ(next.status, 410);
  EXPECT_EQ(json::parse(next.body)["reason"], "Expired");
}

TEST_F(ListWatchTest, SelectorsFilterLists) {
  make_pods(4);
  patch("/api/v1/namespaces/default/pods/p1/status", {{"status", {{"phase", "Running"}}}}, "application/merge-patch+json");
  patch("/api/v1/namespaces/default/pods/p2", {{"spec", {{"nodeName", "n1"}}}, {"metadata", {{"labels", {{"gpu", "yes"}}}}}},
        "application/merge-patch+json");
  auto list = [&](const std::string& q) { return names(call("GET", "/api/v1/namespaces/default/pods?" + q).body); };
  using V = std::vector<std::string>;
  EXPECT_EQ(list("labelSelector=idx%3D1"), V{"p1"});
  EXPECT_EQ(list("labelSelector=idx%3D%3D1"), V{"p1"});
  EXPECT_EQ(list("labelSelector=idx!%3D1"), (V{"p0", "p2", "p3"}));
  EXPECT_EQ(list("labelSelector=idx%20in%20(0,3)"), (V{"p0", "p3"}));
  EXPECT_EQ(list("labelSelector=idx%20notin%20(0,3)"), (V{"p1", "p2"}));
  EXPECT_EQ(list("labelSelector=gpu"), V{"p2"});
  EXPECT_EQ(list("labelSelector=!gpu,idx!%3D0"), (V{"p1", "p3"}));
  EXPECT_EQ(list("fieldSelector=spec.nodeName%3Dn1"), V{"p2"});
  EXPECT_EQ(list("fieldSelector=status.phase%3DRunning"), V{"p1"});
  EXPECT_EQ(list("fieldSelector=status.phase!%3DRunning,metadata.name!%3Dp0"), (V{"p2", "p3"}));
  EXPECT_EQ(list("fieldSelector=spec.nodeName%3D"), (V{"p0", "p1", "p3"}));
  EXPECT_EQ(list("labelSelector=idx%20in%20(1,2)&limit=1").size(), 1u);
  auto unsupported = call("GET", "/api/v1/namespaces/default/pods?fieldSelector=spec.priority%3D1");
  EXPECT_EQ(unsupported.status, 400);
  EXPECT_NE(unsupported.body["message"].get<std::string>().find("spec.priority"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods?labelSelector=a%20in%20(x").status, 400);
}

TEST_F(ListWatchTest, WatchWithoutResourceVersionStartsWithCurrentState) {
  make_pods(2);
  RawStream s(server_->port(), "/api/v1/namespaces/default/pods?watch=1");
  ASSERT_EQ(s.status(), 200);
  EXPECT_EQ(s.headers().at("transfer-encoding"), "chunked");
  auto a = event(s), b = event(s);
  EXPECT_EQ(a["type"], "ADDED");
  EXPECT_EQ(b["type"], "ADDED");
  call("DELETE", "/api/v1/namespaces/default/pods/p0");
  auto d = event(s);
  EXPECT_EQ(d["type"], "DELETED");
  EXPECT_EQ(d["object"]["metadata"]["name"], "p0");
  EXPECT_EQ(d["object"]["metadata"]["resourceVersion"], server_->ResourceVersion());
}

TEST_F(ListWatchTest, WatchFromResourceVersionReplaysOnlyLaterChanges) {
  make_pods(2);
  const std::string rv = call("GET", "/api/v1/namespaces/default/pods").body["metadata"]["resourceVersion"];
  patch("/api/v1/namespaces/default/pods/p1", {{"metadata", {{"labels", {{"x", "1"}}}}}}, "application/merge-patch+json");
  RawStream s(server_->port(), "/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + rv);
  auto e = event(s);
  EXPECT_EQ(e["type"], "MODIFIED");
  EXPECT_EQ(e["object"]["metadata"]["name"], "p1");
  EXPECT_FALSE(s.next_line(std::chrono::milliseconds(200)));  // nothing synthetic
}

TEST_F(ListWatchTest, WatchFromFutureVersionWaitsForIt) {
  const uint64_t future = std::stoull(server_->ResourceVersion()) + 2;
  RawStream s(server_->port(), "/api/v1/nodes?watch=1&resourceVersion=" + std::to_string(future));
  wait_for_watches(1);
  server_->put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "a"}}}});  // rv future-1
  server_->put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "b"}}}});  // rv future
  server_->put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "c"}}}});  // rv future+1
  auto e = event(s);
  EXPECT_EQ(e["object"]["metadata"]["name"], "c");
  EXPECT_EQ(e["object"]["metadata"]["resourceVersion"], std::to_string(future + 1));
}

TEST_F(ListWatchTest, BookmarksAndTimeout) {
  RawStream s(server_->port(), "/api/v1/nodes?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=" + server_->ResourceVersion());
  int bookmarks = 0;
  std::string last_rv;
  while (auto line = s.next_line(std::chrono::seconds(3))) {
    auto e = json::parse(*line);
    ASSERT_EQ(e["type"], "BOOKMARK");
    EXPECT_EQ(e["object"]["kind"], "Node");
    last_rv = e["object"]["metadata"]["resourceVersion"];
    ++bookmarks;
  }
  EXPECT_TRUE(s.ended());  // timeoutSeconds ended the stream
  EXPECT_GE(bookmarks, 3);
  EXPECT_EQ(last_rv, server_->ResourceVersion());
}

TEST_F(ListWatchTest, FieldSelectorTransitionsBecomeAddedAndDeleted) {
  make_pods(1);
  RawStream s(server_->port(), "/api/v1/pods?watch=1&fieldSelector=spec.nodeName%3Dn1&resourceVersion=" + server_->ResourceVersion());
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods/p0/binding",
                 {{"apiVersion", "v1"}, {"kind", "Binding"}, {"metadata", {{"name", "p0"}}}, {"target", {{"kind", "Node"}, {"name", "n1"}}}})
                .status,
            201);
  auto added = event(s);
  EXPECT_EQ(added["type"], "ADDED");
  call("DELETE", "/api/v1/namespaces/default/pods/p0");
  EXPECT_EQ(event(s)["type"], "DELETED");
}

TEST_F(ListWatchTest, SendInitialEventsEndsWithMarkedBookmark) {
  make_pods(2);
  RawStream s(server_->port(), "/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan");
  EXPECT_EQ(event(s)["type"], "ADDED");
  EXPECT_EQ(event(s)["type"], "ADDED");
  auto end = event(s);
  EXPECT_EQ(end["type"], "BOOKMARK");
  EXPECT_EQ(end["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true").status, 422);
}

TEST_F(ListWatchTest, WatchFromCompactedVersionIsHttp410) {
  make_pods(1);
  const std::string old_rv = server_->ResourceVersion();
  make_pods(0);
  call("POST", "/api/v1/namespaces/default/pods", pod("later"));
  server_->Compact();
  auto r = call("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + old_rv);
  EXPECT_EQ(r.status, 410);
  EXPECT_EQ(r.body["reason"], "Expired");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=bogus").status, 400);
}

TEST(ListWatchExpired, WatchFromCompactedVersionAsInStreamError) {
  DoubleOptions o;
  o.expired_watch_as_event = true;
  ApiServerDouble server(o);
  server.Start();
  const std::string old_rv = server.ResourceVersion();
  server.put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n"}}}});
  server.Compact();
  RawStream s(server.port(), "/api/v1/nodes?watch=1&resourceVersion=" + old_rv);
  EXPECT_EQ(s.status(), 200);
  auto e = json::parse(s.next_line().value());
  EXPECT_EQ(e["type"], "ERROR");
  EXPECT_EQ(e["object"]["code"], 410);
  EXPECT_EQ(e["object"]["reason"], "Expired");
  s.read_all();
  EXPECT_TRUE(s.ended());
}

TEST_F(ListWatchTest, CompactionEndsOpenWatchesWithError) {
  RawStream s(server_->port(), "/api/v1/nodes?watch=1&resourceVersion=" + server_->ResourceVersion());
  wait_for_watches(1);
  server_->Compact();
  auto e = event(s);
  EXPECT_EQ(e["type"], "ERROR");
  EXPECT_EQ(e["object"]["code"], 410);
}

TEST_F(ListWatchTest, HistoryLimitCompactsOldEvents) {
  DoubleOptions o;
  o.history_limit = 3;
  ApiServerDouble small(o);
  small.Start();
  const std::string start_rv = small.ResourceVersion();
  for (int i = 0; i < 5; ++i) small.put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n" + std::to_string(i)}}}});
  EXPECT_EQ(http_request(small.port(), "GET", "/api/v1/nodes?watch=1&resourceVersion=" + start_rv).status, 410);
}

}  // namespace
}  // namespace gangplank::apiserver_double::testing
