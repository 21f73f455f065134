// RestClient retry/auth behaviour against a scripted net::HttpClient (no network): which responses are
// retried, how long it waits (Retry-After), and what is surfaced.
#include "kube/rest_client.h"

#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>

#include "kube/api_error.h"
#include "kube/client.h"
#include "tests/kube/unit/scripted_http.h"

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;

auto refuse() {
  return [](const net::HttpClientRequest&) -> net::HttpClientResponse {
    throw net::TransportError(net::TransportError::Kind::kConnect, "connection refused");
  };
}

struct Harness {
  std::shared_ptr<ScriptedHttp> http = std::make_shared<ScriptedHttp>();
  std::vector<std::chrono::milliseconds> sleeps;
  std::shared_ptr<RestClient> client;

  explicit Harness(ClusterConfig cfg = {}) {
    RestOptions options;
    options.qps = 0;
    options.sleep = [this](std::chrono::milliseconds d) { sleeps.push_back(d); };
    cfg.server = "http://scripted";
    client = std::make_shared<RestClient>(cfg, options, http);
  }
};

RestRequest get_request() {
  RestRequest r;
  r.path = "/api/v1/pods";
  return r;
}

TEST(RestClientTest, Retries429HonouringRetryAfter) {
  Harness h;
  h.http->script = {reply(429, R"({"reason":"TooManyRequests","code":429})", {{"Retry-After", "3"}}),
                    reply(429, R"({"reason":"TooManyRequests","code":429})", {{"Retry-After", "1"}}), reply(200, "ok")};
  EXPECT_EQ(h.client->Execute(get_request()).body, "ok");
  EXPECT_EQ(h.sleeps, (std::vector<std::chrono::milliseconds>{3000ms, 1000ms}));
}

TEST(RestClientTest, Retries5xxWithRetryAfterOnlyForIdempotentRequests) {
  Harness h;
  h.http->script = {reply(503, "{}", {{"Retry-After", "2"}}), reply(200, "ok")};
  EXPECT_EQ(h.client->Execute(get_request()).body, "ok");
  EXPECT_EQ(h.sleeps, std::vector<std::chrono::milliseconds>{2000ms});

  Harness post;
  post.http->script = {reply(500, R"({"reason":"InternalError","code":500})", {{"Retry-After", "1"}})};
  RestRequest create;
  create.method = "POST";
  create.path = "/api/v1/namespaces/d/pods";
  create.body = "{}";
  EXPECT_THROW(post.client->Execute(create), ServerError);
  EXPECT_EQ(post.http->seen.size(), 1u) << "a POST that may have been processed is not repeated";

  Harness no_hint;  // 5xx without Retry-After: surfaced, the caller decides
  no_hint.http->script = {reply(500, "{}")};
  EXPECT_THROW(no_hint.client->Execute(get_request()), ServerError);
}

TEST(RestClientTest, PostIsRetriedOn429BecauseTheServerDidNotProcessIt) {
  Harness h;
  h.http->script = {reply(429, "{}", {{"Retry-After", "1"}}), reply(201, "{}")};
  RestRequest create;
  create.method = "POST";
  create.path = "/api/v1/namespaces/d/pods";
  EXPECT_EQ(h.client->Execute(create).status, 201);
  EXPECT_EQ(h.http->seen.size(), 2u);
}

TEST(RestClientTest, GivesUpAfterMaxRetries) {
  Harness h;
  for (int i = 0; i < 11; ++i) h.http->script.push_back(reply(429, "{}", {{"Retry-After", "0"}}));
  EXPECT_THROW(h.client->Execute(get_request()), TooManyRequestsError);
  EXPECT_EQ(h.http->seen.size(), 11u);  // 1 + 10 retries
}

TEST(RestClientTest, HugeRetryAfterIsCapped) {
  Harness h;
  h.http->script = {reply(429, "{}", {{"Retry-After", "86400"}}), reply(200)};
  h.client->Execute(get_request());
  EXPECT_EQ(h.sleeps, std::vector<std::chrono::milliseconds>{60000ms});
}

TEST(RestClientTest, EvictionBlockedByPdbIsNotRetried) {
  Harness h;
  h.http->script = {reply(429,
                          R"({"kind":"Status","reason":"TooManyRequests","code":429,"message":"Cannot evict pod as it would violate the pod's disruption budget.","details":{"causes":[{"reason":"DisruptionBudget"}]}})")};
  Client client(h.client);
  EXPECT_THROW(client.EvictPod("d", "p"), DisruptionBudgetError);
  EXPECT_EQ(h.http->seen.size(), 1u);
  EXPECT_NE(h.http->seen[0].target.find("/api/v1/namespaces/d/pods/p/eviction"), std::string::npos);

  Harness apf;  // throttling on the eviction endpoint is retried
  apf.http->script = {reply(429, R"({"reason":"TooManyRequests","code":429})", {{"Retry-After", "1"}}), reply(201)};
  Client apf_client(apf.client);
  EXPECT_EQ(apf_client.EvictPod("d", "p"), EvictOutcome::kEvicted);

  Harness gone;
  gone.http->script = {reply(404, R"({"reason":"NotFound","code":404})")};
  EXPECT_EQ(Client(gone.client).EvictPod("d", "p"), EvictOutcome::kAlreadyGone);
}

TEST(RestClientTest, ConnectionErrorsRetriedWithBackoffForReads) {
  Harness h;
  h.http->script = {refuse(), refuse(), reply(200, "ok")};
  EXPECT_EQ(h.client->Execute(get_request()).body, "ok");
  ASSERT_EQ(h.sleeps.size(), 2u);
  EXPECT_GT(h.sleeps[1], 0ms);

  Harness down;
  for (int i = 0; i < 4; ++i) down.http->script.push_back(refuse());
  EXPECT_THROW(down.client->Execute(get_request()), net::TransportError);
}

TEST(RestClientTest, SendsBearerTokenAndRereadsTokenFileOn401) {
  auto dir = std::filesystem::temp_directory_path() / ("gangplank-rest-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto token_file = (dir / "token").string();
  std::ofstream(token_file) << "old";
  ClusterConfig cfg;
  cfg.token_file = token_file;
  Harness h(cfg);
  h.http->script = {reply(200), [&](const net::HttpClientRequest&) {
                      std::ofstream(token_file) << "new";  // the kubelet rotated the token
                      net::HttpClientResponse r;
                      r.status = 401;
                      r.body = R"({"reason":"Unauthorized","code":401})";
                      return r;
                    },
                    reply(200)};
  h.client->Execute(get_request());
  h.client->Execute(get_request());
  ASSERT_EQ(h.http->seen.size(), 3u);
  EXPECT_EQ(net::FindHeader(h.http->seen[0].headers, "authorization"), "Bearer old");
  EXPECT_EQ(net::FindHeader(h.http->seen[2].headers, "Authorization"), "Bearer new");
  std::filesystem::remove_all(dir);
}

TEST(RestClientTest, BindingTreatsAlreadyBoundToSameNodeAsSuccess) {
  Harness h;
  h.http->script = {reply(409, R"({"reason":"Conflict","code":409,"message":"pod p is already assigned to node \"n1\""})"),
                    reply(200, R"({"metadata":{"name":"p","uid":"u"},"spec":{"nodeName":"n1"}})")};
  Client client(h.client);
  EXPECT_EQ(client.BindPod("d", "p", "n1", "u"), BindOutcome::kAlreadyBoundHere);

  Harness elsewhere;
  elsewhere.http->script = {reply(409, R"({"reason":"Conflict","code":409})"),
                            reply(200, R"({"metadata":{"name":"p"},"spec":{"nodeName":"n2"}})")};
  EXPECT_THROW(Client(elsewhere.client).BindPod("d", "p", "n1"), ConflictError);

  Harness flaky;  // a binding POST is never blindly repeated after a 500: the pod is re-read instead
  flaky.http->script = {reply(500, "{}", {{"Retry-After", "1"}}),
                        reply(200, R"({"metadata":{"name":"p"},"spec":{"nodeName":"n1"}})")};
  EXPECT_EQ(Client(flaky.client).BindPod("d", "p", "n1"), BindOutcome::kBound);
  EXPECT_EQ(flaky.http->seen[1].method, "GET");
}

TEST(RestClientTest, UpdateRequiresResourceVersion) {
  Harness h;
  Client client(h.client);
  EXPECT_THROW(client.Update(resources::Nodes(), "", {{"metadata", {{"name", "n"}}}}), std::invalid_argument);
  EXPECT_TRUE(h.http->seen.empty());
}

TEST(ResourceTest, PathsForCoreGroupedClusterScopedAndSubresources) {
  EXPECT_EQ(resources::Pods().CollectionPath(), "/api/v1/pods");
  EXPECT_EQ(resources::Pods().CollectionPath("ml"), "/api/v1/namespaces/ml/pods");
  EXPECT_EQ(resources::Pods().ObjectPath("ml", "p", "binding"), "/api/v1/namespaces/ml/pods/p/binding");
  EXPECT_EQ(resources::Nodes().ObjectPath("", "n1"), "/api/v1/nodes/n1");
  EXPECT_EQ(resources::Leases().ObjectPath("kube-system", "l"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l");
  ResourceDescriptor pools{"gangplank.io", "v1alpha1", "gpupools", "GPUPool", false};
  EXPECT_EQ(pools.ObjectPath("", "a", "status"), "/apis/gangplank.io/v1alpha1/gpupools/a/status");
  EXPECT_THROW(resources::Pods().ObjectPath("", "p"), std::invalid_argument);
  EXPECT_EQ(BuildTarget("/x", {{"labelSelector", "gang=a,b in [c]"}}), "/x?labelSelector=gang%3Da%2Cb%20in%20%5Bc%5D");
  ListOptions o;
  o.watch = true;
  o.resource_version = "0";
  o.allow_watch_bookmarks = true;
  o.timeout_seconds = 300;
  EXPECT_EQ(BuildTarget("/p", o.ToQuery()), "/p?watch=1&resourceVersion=0&timeoutSeconds=300&allowWatchBookmarks=true");
}

}  // namespace
}  // namespace gangplank::kube
