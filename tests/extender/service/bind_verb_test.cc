// The bind verb with the filter's copies of pods the cache has not seen: a pod created and bound within
// the pod informer's lag is held in the cache as soon as its binding is accepted, so the next filter
// call cannot hand its GPUs out again; if the informer never reports it, the assumption expires.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>

#include "extender/service/bind_verb.h"
#include "extender/service/routes.h"
#include "tests/cache/support/state_builders.h"
#include "tests/extender/support/go_fixtures.h"
#include "tests/extender/support/loopback_client.h"

namespace gangplank::extender {
namespace {

using testing::Json;

// Accepts every binding at once, as an API server that knows the pod would.
class AcceptingBinder : public PodBinder {
 public:
  void Bind(ExtenderBindingArgs args, std::function<void(std::string)> done) override {
    bound.push_back(args.pod_uid + "@" + args.node);
    done("");
  }
  std::vector<std::string> bound;
};

// The pods the API server (and so the pod informer) knows, by namespace/name.
class FakePodLookup : public PodLookup {
 public:
  std::optional<KnownPod> Find(std::string_view namespace_, std::string_view name) const override {
    const auto it = pods.find(std::string(namespace_) + "/" + std::string(name));
    return it == pods.end() ? std::nullopt : std::optional<KnownPod>(it->second);
  }
  std::map<std::string, KnownPod> pods;
};

class BindVerbTest : public ::testing::Test {
 protected:
  BindVerbTest()
      : handlers_(state_, metrics_, {}, &unseen_),
        bind_(state_, binder_, metrics_, lookup_, BindRules{"gangplank", {"nvidia.com/gpu", "gangplank.io/gpu-milli"}},
              &unseen_) {
    // Known to the API server: the cache has not caught up with either.
    lookup_.pods["ml/fresh"] = {"uid-fresh", "gangplank", {"cpu", "nvidia.com/gpu"}};
    lookup_.pods["ml/unknown"] = {"uid-unknown", "gangplank", {"nvidia.com/gpu"}};
    state_.SetAssumedPodTtl(std::chrono::seconds(60));
    state_.UpsertNode(cache::testing::GpuNode("n1", 8));
    state_.MarkSynced();
    server_ = net::MakeHttpServer(net::HttpServerOptions{});
    server_->Start(MakeRouter(handlers_, state_, metrics_, RouteConfig{"/gp", "filter", "prioritize", "preempt", "bind"},
                              &bind_));
  }
  ~BindVerbTest() override { server_->Stop(); }

  static Json FreshPod() {
    testing::PodSpecFixture p;
    p.name = "fresh";
    p.namespace_ = "ml";
    p.uid = "uid-fresh";
    p.containers = {{{{"cpu", "1"}, {"nvidia.com/gpu", "6"}}, {{"nvidia.com/gpu", "6"}}}};
    return testing::GoPod(p);
  }
  static std::string BindArgs(const std::string& uid, const std::string& name = "fresh") {
    return Json{{"PodName", name}, {"PodNamespace", "ml"}, {"PodUID", uid}, {"Node", "n1"}}.dump();
  }
  int FreeGpus() {
    return state_.Read([](const cache::StateView& v) { return v.cluster().state(v.FindNode("n1")).FullyFreeGpus(); });
  }

  cache::ClusterState state_;
  ExtenderMetrics metrics_;
  UnseenPods unseen_;
  AcceptingBinder binder_;
  FakePodLookup lookup_;
  ExtenderHandlers handlers_;
  BindVerb bind_;
  std::unique_ptr<net::HttpServer> server_;
};

TEST_F(BindVerbTest, PodCreatedAndBoundWithinTheInformersLagIsAssumed) {
  testing::LoopbackClient client(server_->port());
  auto filtered = client.Post("/gp/filter", testing::FilterArgsByName(FreshPod(), {"n1"}));
  ASSERT_EQ(filtered.status, 200) << filtered.body;
  EXPECT_EQ(unseen_.size(), 1u) << "filter remembers the pod the cache does not know";
  auto bound = client.Post("/gp/bind", BindArgs("uid-fresh"));
  ASSERT_EQ(bound.status, 200);
  EXPECT_EQ(bound.body, R"({"Error":""})");
  EXPECT_EQ(binder_.bound, (std::vector<std::string>{"uid-fresh@n1"}));
  EXPECT_EQ(FreeGpus(), 2) << "held at once, before any informer event";
  EXPECT_EQ(unseen_.size(), 0u);
  // A second pod of the same size no longer fits n1.
  auto again = client.Post("/gp/filter", testing::FilterArgsByName(FreshPod(), {"n1"}));
  EXPECT_NE(again.body.find("needs 6 free GPUs, node has 2"), std::string::npos) << again.body;
  // Never confirmed by the informer: undone when the TTL has passed.
  const auto expired = state_.ExpireAssumed(std::chrono::steady_clock::now() + std::chrono::seconds(61));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].pod, "ml/fresh");
  EXPECT_EQ(FreeGpus(), 8);
}

TEST_F(BindVerbTest, PodNeitherCachedNorFilteredIsBoundButNotAssumed) {
  testing::LoopbackClient client(server_->port());
  auto bound = client.Post("/gp/bind", BindArgs("uid-unknown", "unknown"));
  ASSERT_EQ(bound.status, 200);
  EXPECT_EQ(bound.body, R"({"Error":""})");
  EXPECT_EQ(FreeGpus(), 8);
  state_.Read([](const cache::StateView& v) { EXPECT_EQ(v.assumed_count(), 0u); });
}

// Issue 23: an anonymous POST to the bind path bound another namespace's default-scheduler pod. Every
// such request is now answered with the reason and never reaches the API server.
TEST_F(BindVerbTest, RefusesBindingsKubeSchedulerWouldNeverSend) {
  lookup_.pods["ml/web"] = {"uid-web", "default-scheduler", {"cpu"}};
  lookup_.pods["ml/cpu-only"] = {"uid-cpu", "gangplank", {"cpu", "memory"}};
  testing::LoopbackClient client(server_->port());
  struct Case {
    std::string body;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {Json{{"PodName", "fresh"}, {"PodNamespace", "ml"}, {"Node", "n1"}}.dump(), "names no PodUID"},
      {BindArgs(""), "names no PodUID"},
      {BindArgs("uid-made-up"), "PodUID uid-made-up is not the UID of the pod of that name (uid-fresh)"},
      {BindArgs("uid-x", "nobody"), "its pod informer does not know the pod"},
      {BindArgs("uid-web", "web"), "it names schedulerName \"default-scheduler\", not gangplank's \"gangplank\""},
      {BindArgs("uid-cpu", "cpu-only"), "it uses none of the managed resources"},
  };
  for (const Case& c : cases) {
    auto reply = client.Post("/gp/bind", c.body);
    ASSERT_EQ(reply.status, 200) << c.body;
    const Json result = Json::parse(reply.body);
    EXPECT_NE(result.value("Error", "").find("gangplank-extender refuses to bind"), std::string::npos) << reply.body;
    EXPECT_NE(result.value("Error", "").find(c.reason), std::string::npos) << reply.body;
  }
  EXPECT_TRUE(binder_.bound.empty()) << "no refused binding reaches the API server";
  EXPECT_EQ(FreeGpus(), 8);
  // The one kube-scheduler sends still binds.
  EXPECT_EQ(client.Post("/gp/bind", BindArgs("uid-fresh")).body, R"({"Error":""})");
  EXPECT_EQ(binder_.bound, (std::vector<std::string>{"uid-fresh@n1"}));
}

TEST(BindRefusal, AnySchedulerNameAndEveryPodWhenNotConfigured) {
  const ExtenderBindingArgs args{"p", "ns", "uid-1", "n1"};
  EXPECT_EQ(BindRefusal(args, KnownPod{"uid-1", "other", {}}, BindRules{"", {}}), "");
  EXPECT_NE(BindRefusal(args, KnownPod{"uid-2", "other", {}}, BindRules{"", {}}), "");
}

TEST(UnseenPods, KeepsTheNewestCopiesUpToItsCapacity) {
  UnseenPods memo(2);
  for (const char* uid : {"a", "b", "c"}) {
    cache::PodInfo p;
    p.uid = uid;
    memo.Remember(p);
  }
  EXPECT_EQ(memo.size(), 2u);
  EXPECT_FALSE(memo.Take("a").has_value());
  ASSERT_TRUE(memo.Take("c").has_value());
  EXPECT_FALSE(memo.Take("c").has_value()) << "taken once";
  cache::PodInfo no_uid;
  memo.Remember(no_uid);
  EXPECT_EQ(memo.size(), 1u);
}

}  // namespace
}  // namespace gangplank::extender
