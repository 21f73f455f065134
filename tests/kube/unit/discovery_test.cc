// Whether a kind is served (kube/discovery.h): a gated kind is watched only where its group version
// lists it; a group version that is not served, or served without the kind, is a clear no; an answer the
// server cannot give now is an error to ask again about, never a no.
#include "kube/discovery.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/kube/unit/scripted_http.h"

namespace gangplank::kube {
namespace {

struct Discovery {
  std::shared_ptr<ScriptedHttp> http = std::make_shared<ScriptedHttp>();
  RestClient rest;
  Discovery() : rest(Config(), Options(), http) {}
  static ClusterConfig Config() {
    ClusterConfig cfg;
    cfg.server = "http://scripted";
    return cfg;
  }
  static RestOptions Options() {
    RestOptions options;
    options.qps = 0;
    options.max_retries = 0;
    options.sleep = [](std::chrono::milliseconds) {};
    return options;
  }
  bool Serves(const ResourceDescriptor& r) { return ServesResource(rest, r); }
};

const char* kSchedulingList = R"({"kind":"APIResourceList","groupVersion":"scheduling.k8s.io/v1beta1",
  "resources":[{"name":"podgroups","namespaced":true,"kind":"PodGroup"},
               {"name":"podgroups/status","namespaced":true,"kind":"PodGroup"}]})";

TEST(Discovery, AKindListedByItsGroupVersionIsServed) {
  Discovery d;
  d.http->script.push_back(reply(200, kSchedulingList));
  EXPECT_TRUE(d.Serves(resources::PodGroups()));
  ASSERT_EQ(d.http->seen.size(), 1u);
  EXPECT_EQ(d.http->seen[0].method, "GET");
  EXPECT_EQ(d.http->seen[0].target, "/apis/scheduling.k8s.io/v1beta1");
}

TEST(Discovery, TheCoreGroupIsAskedAtApiV1) {
  Discovery d;
  d.http->script.push_back(reply(200, R"({"resources":[{"name":"pods"},{"name":"nodes"}]})"));
  EXPECT_TRUE(d.Serves(resources::Pods()));
  EXPECT_EQ(d.http->seen[0].target, "/api/v1");
}

// The group version is served with its other kinds, but not this one (its feature gate is off): a no.
TEST(Discovery, AServedGroupVersionWithoutTheKindDoesNotServeIt) {
  Discovery d;
  d.http->script.push_back(reply(200, R"({"resources":[{"name":"workloads"},{"name":"podgroups/status"}]})"));
  EXPECT_FALSE(d.Serves(resources::PodGroups()));
}

TEST(Discovery, AGroupVersionNotServedAtAllIsANo) {
  Discovery d;
  d.http->script.push_back(reply(404, R"({"kind":"Status","code":404,"reason":"NotFound"})"));
  EXPECT_FALSE(d.Serves(resources::ResourceSlices()));
}

// Unreachable, failing or garbled: not a no, which would leave the kind unwatched for good.
TEST(Discovery, AnAnswerThatCannotTellThrowsToBeAskedAgain) {
  for (const auto& step : {reply(500, R"({"kind":"Status","code":500})"), reply(403, R"({"kind":"Status","code":403})"),
                           reply(200, "not json"), reply(200, R"({"kind":"APIResourceList"})")}) {
    Discovery d;
    d.http->script.push_back(step);
    EXPECT_THROW(d.Serves(resources::PodGroups()), std::exception);
  }
}

// Asked again until the server can tell: each error is said, and the answer that comes is the answer.
TEST(Discovery, AskUntilToldRetriesWhatCannotTellAndStopsWhenTold) {
  Discovery d;
  d.http->script.push_back(reply(500, R"({"kind":"Status","code":500})"));
  d.http->script.push_back(reply(200, kSchedulingList));
  std::atomic<bool> stopping{false};
  std::vector<std::string> errors;
  EXPECT_EQ(AskUntilTold(d.rest, resources::PodGroups(), stopping, [&](const std::string& e) { errors.push_back(e); }),
            std::optional<bool>(true));
  EXPECT_EQ(errors.size(), 1u);
  EXPECT_EQ(d.http->seen.size(), 2u);
  // Stopping first: nothing asked, no answer.
  stopping = true;
  EXPECT_EQ(AskUntilTold(d.rest, resources::PodGroups(), stopping, [](const std::string&) {}), std::nullopt);
  EXPECT_EQ(d.http->seen.size(), 2u);
}

}  // namespace
}  // namespace gangplank::kube
