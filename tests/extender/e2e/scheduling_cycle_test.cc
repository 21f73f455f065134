// End to end: nodes (kept Ready by KWOK), pods, a GPUPool and a Queue live in the real kube-apiserver
// (tests/support/real_api_test.h); the extender's cache is fed by real informers (cache::SharedInformers
// + cache::ClusterStateFeed) reading through the fault proxy; the test plays kube-scheduler's extender
// calls exactly — filter, then prioritize with the extender's scores multiplied by weight × 10, pick the
// best, POST pods/binding — and checks that pods land where the admission plan and the engine say. With
// the bind verb the binding goes to the extender instead, as kube-scheduler does when its config names a
// bindVerb. (That the real kube-scheduler calls these verbs so is tests/real-cluster.)
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/policies/registry.h"
#include "cache/objects/convert.h"
#include "extender/service/bind_verb.h"
#include "extender/service/informer_pod_lookup.h"
#include "extender/service/kube_binder.h"
#include "cache/feed/cluster_state_feed.h"
#include "cache/feed/shared_informers.h"
#include "kube/config.h"
#include "extender/service/routes.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/support/real_api_test.h"

namespace gangplank::extender {
namespace {

using Json = nlohmann::json;
constexpr int kWeight = 5;

Json NodeObject(const std::string& name, const std::string& rack) {
  return Json{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", name}, {"labels", {{"nvidia.com/gpu.product", "A100"}, {"rack", rack}}},
                            {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
              {"spec", Json::object()},
              {"status",
               {{"capacity", {{"cpu", "64"}, {"memory", "512Gi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}}},
                {"allocatable", {{"cpu", "64"}, {"memory", "512Gi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}}}}}};
}

Json PodObject(const std::string& name, int gpus, const std::string& node = "", const std::string& planned = "",
               const std::string& queue = "") {
  Json pod{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata", {{"name", name}, {"labels", Json::object()}, {"annotations", Json::object()}}},
           {"spec",
            {{"schedulerName", "gangplank"},
             {"containers",
              Json::array({{{"name", "main"},
                            {"image", "trainer"},
                            {"resources",
                             {{"requests", {{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", std::to_string(gpus)}}},
                              {"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}}})}}},
           {"status", {{"phase", node.empty() ? "Pending" : "Running"}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  if (!planned.empty()) pod["metadata"]["annotations"]["gangplank.io/planned-node"] = planned;
  if (!queue.empty()) pod["metadata"]["labels"]["gangplank.io/queue"] = queue;
  return pod;
}

class EndToEnd : public gangplank::testing::RealApiTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(RealApiTest::SetUp());
    if (IsSkipped()) return;
    Put(Json{{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"}, {"metadata", {{"name", "pool"}}}, {"spec", Json::object()}});
    Put(Json{{"apiVersion", "gangplank.io/v1alpha1"},
                  {"kind", "Queue"},
                  {"metadata", {{"name", "team-a"}}},
                  {"spec", {{"namespaces", Json::array({"*"})},
                            {"pools", Json::array({{{"name", "pool"}, {"guaranteedGPUs", 2}, {"limitGPUs", 10}}})}}}});
    for (int i = 0; i < 4; ++i) Put(NodeObject("gpu-" + std::to_string(i), i < 2 ? "r1" : "r2"));
    Put(PodObject("running", 6, "gpu-0"));
    Put(PodObject("planned", 8, "", "gpu-2"));
    dir_ = std::filesystem::temp_directory_path() / ("extender-e2e-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    // The extender reads (and binds) through the proxy, so a test can cut it off.
    informers_ = std::make_unique<cache::SharedInformers>(
        std::make_shared<kube::RestClient>(kube::LoadKubeconfig({ProxyKubeconfig(dir_)})));
    feed_ = std::make_unique<cache::ClusterStateFeed>(*informers_);
    feed_->Attach(&state_);
    informers_->Start();
    feed_->Start();
    handlers_ = std::make_unique<ExtenderHandlers>(state_, metrics_, HandlerOptions{{}, "bestfit", 1000, nullptr});
    binder_ = std::make_unique<KubeBinder>(informers_->client());
    pod_lookup_ = std::make_unique<InformerPodLookup>(informers_->pods());
    bind_ = std::make_unique<BindVerb>(state_, *binder_, metrics_, *pod_lookup_, BindRules{});
    server_ = net::MakeHttpServer({});
    server_->Start(MakeRouter(*handlers_, state_, metrics_,
                              RouteConfig{"/gangplank", "filter", "prioritize", "preempt", "bind"}, bind_.get()));
    ASSERT_TRUE(WaitFor([&] { return state_.synced() && HasQueueLimit(); })) << "cache never synced";
  }

  void TearDown() override {
    if (server_) server_->Stop();
    binder_.reset();
    if (informers_) informers_->Stop();
    feed_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    RealApiTest::TearDown();
  }

  Json StoredPod(const std::string& name) { return Get(kube::resources::Pods(), name).value_or(Json()); }

  bool HasQueueLimit() {
    return state_.Read([](const cache::StateView& v) { return v.FindQueue("team-a") != nullptr && v.FindPool("pool") == 0; });
  }

  template <typename F>
  static bool WaitFor(F&& condition) {
    for (int i = 0; i < 500; ++i) {
      if (condition()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  struct Outcome {
    std::string node;  // Empty when no node passed the filter.
    Json filter_reply;
  };

  int FreeGpus(const std::string& node) {
    return state_.Read([&](const cache::StateView& v) { return v.cluster().state(v.FindNode(node)).FullyFreeGpus(); });
  }

  bool Cached(const std::string& name) {
    const std::string uid = StoredPod(name)["metadata"]["uid"];
    return state_.Read([&](const cache::StateView& v) { return v.FindPod(uid) != nullptr; });
  }

  // kube-scheduler's part: filter → prioritize (score × weight × 10) → highest total → pods/binding,
  // or the extender's bind verb when `through_extender`.
  Outcome Schedule(const std::string& name, bool through_extender = false) {
    Json pod = StoredPod(name);
    Json args{{"Pod", pod}, {"Nodes", nullptr}, {"NodeNames", {"gpu-0", "gpu-1", "gpu-2", "gpu-3"}}};
    testing::LoopbackClient extender(server_->port());
    auto filtered = extender.Post("/gangplank/filter", args.dump());
    EXPECT_EQ(filtered.status, 200) << filtered.body;
    Outcome out{"", Json::parse(filtered.body)};
    const Json& passed = out.filter_reply["NodeNames"];
    if (!passed.is_array() || passed.empty()) return out;
    std::string best = passed[0];
    if (passed.size() > 1) {  // With one feasible node kube-scheduler skips scoring.
      args["NodeNames"] = passed;
      auto scored = extender.Post("/gangplank/prioritize", args.dump());
      EXPECT_EQ(scored.status, 200);
      std::int64_t best_total = -1;
      for (const auto& hp : Json::parse(scored.body)) {
        const std::int64_t total = hp["Score"].get<std::int64_t>() * kWeight * 10;
        if (total > best_total) {
          best_total = total;
          best = hp["Host"];
        }
      }
    }
    const std::string uid = pod["metadata"]["uid"];
    if (through_extender) {
      Json args{{"PodName", name}, {"PodNamespace", ns()}, {"PodUID", uid}, {"Node", best}};
      auto bound = extender.Post("/gangplank/bind", args.dump());
      EXPECT_EQ(bound.status, 200) << bound.body;
      EXPECT_EQ(bound.body, R"({"Error":""})");
      // The extender recorded the binding before answering: no waiting for the informer here.
      EXPECT_TRUE(state_.Read([&](const cache::StateView& v) {
        const cache::PodRecord* p = v.FindPod(uid);
        return p != nullptr && p->node == best && p->allocation.has_value();
      })) << name << " is not held on " << best << " in the cache right after bind answered";
      EXPECT_EQ(StoredPod(name)["spec"]["nodeName"], best);
      out.node = best;
      return out;
    }
    EXPECT_EQ(client().BindPod(ns(), name, best), kube::BindOutcome::kBound);
    EXPECT_TRUE(WaitFor([&] {
      return state_.Read([&](const cache::StateView& v) {
        const cache::PodRecord* p = v.FindPod(uid);
        return p != nullptr && p->node == best;
      });
    })) << "the cache never saw " << name << " bound";
    out.node = best;
    return out;
  }

  // The nodes the engine ranks best for a pod right now (same policy as the extender).
  std::vector<std::string> EngineBest(const std::string& name) {
    const Json pod = StoredPod(name);
    cache::PodInfo info;
    cache::ContainerResources main;
    for (const auto& [resource, quantity] : pod["spec"]["containers"][0]["resources"]["requests"].items()) {
      main.requests.emplace_back(resource, quantity.get<std::string>());
    }
    info.containers.push_back(std::move(main));
    const engine::PodRequest request = cache::ToPodRequest(info);
    auto policy = engine::policies::MakePolicy("bestfit", {});
    return state_.Read([&](const cache::StateView& v) {
      std::vector<std::string> best;
      double top = 0;
      for (engine::NodeId id = 0; id < v.cluster().size(); ++id) {
        if (!v.cluster().Fits(id, request)) continue;
        const double s = policy->Score(v.cluster(), id, request).score;
        if (best.empty() || s > top) {
          best = {v.cluster().spec(id).name};
          top = s;
        } else if (s == top) {
          best.push_back(v.cluster().spec(id).name);
        }
      }
      return best;
    });
  }

  std::filesystem::path dir_;
  cache::ClusterState state_;
  ExtenderMetrics metrics_;
  std::unique_ptr<cache::SharedInformers> informers_;
  std::unique_ptr<cache::ClusterStateFeed> feed_;
  std::unique_ptr<ExtenderHandlers> handlers_;
  std::unique_ptr<KubeBinder> binder_;
  std::unique_ptr<InformerPodLookup> pod_lookup_;
  std::unique_ptr<BindVerb> bind_;
  std::unique_ptr<net::HttpServer> server_;
};

TEST_F(EndToEnd, PodsLandWherePlanAndEngineSay) {
  // An unpinned 8-GPU pod may not take gpu-2: its capacity is reserved for the planned pod.
  Put(PodObject("big", 8));
  const Outcome big = Schedule("big");
  EXPECT_TRUE(big.node == "gpu-1" || big.node == "gpu-3") << big.node;
  EXPECT_EQ(big.filter_reply["FailedAndUnresolvableNodes"]["gpu-2"],
            "needs 8 free GPUs, node has 0 (8 more reserved for planned pods)");

  // The planned pod passes only on its planned node.
  const Outcome planned = Schedule("planned");
  EXPECT_EQ(planned.node, "gpu-2");
  EXPECT_EQ(planned.filter_reply["NodeNames"], Json::array({"gpu-2"}));

  // A 2-GPU pod goes where the engine ranks best (best fit: the nearly full gpu-0).
  Put(PodObject("small", 2));
  const std::vector<std::string> expected = EngineBest("small");
  const Outcome small = Schedule("small");
  EXPECT_NE(std::find(expected.begin(), expected.end(), small.node), expected.end()) << small.node;
  EXPECT_EQ(small.node, "gpu-0");
}

TEST_F(EndToEnd, QueueLimitFromTheQueueResourceIsEnforcedPerPool) {
  Put(PodObject("a-1", 8, "", "", "team-a"));
  EXPECT_FALSE(Schedule("a-1").node.empty());
  Put(PodObject("a-2", 4, "", "", "team-a"));
  const Outcome over = Schedule("a-2");
  EXPECT_TRUE(over.node.empty());
  EXPECT_EQ(over.filter_reply["FailedAndUnresolvableNodes"]["gpu-3"],
            "queue team-a at its limit of 10 GPUs in pool pool (uses 8, pod needs 4)");
}

// Pods without a queue label are charged to their namespace's gangplank.io/queue label, learnt from
// the namespace informer: labelling the test's namespace puts its running and planned pods (14 GPUs)
// into team-a.
TEST_F(EndToEnd, UnlabelledPodsUseTheirNamespacesQueue) {
  Put(PodObject("plain", 1));
  EXPECT_FALSE(Schedule("plain").node.empty());  // No queue yet: not limited.
  client().Patch(kube::resources::Namespaces(), "", ns(), kube::PatchType::kMerge,
                 Json{{"metadata", {{"labels", {{"gangplank.io/queue", "team-a"}}}}}});
  ASSERT_TRUE(WaitFor([&] {
    return state_.Read([&](const cache::StateView& v) { return v.NamespaceQueue(ns()) == "team-a"; });
  })) << "the namespace label never reached the cache";
  Put(PodObject("plain-2", 1));
  const Outcome over = Schedule("plain-2");
  EXPECT_TRUE(over.node.empty());
  EXPECT_EQ(over.filter_reply["FailedAndUnresolvableNodes"]["gpu-3"],
            "queue team-a at its limit of 10 GPUs in pool pool (uses 15, pod needs 1)");
}

TEST_F(EndToEnd, BindVerbBindsThroughTheApiServerAndTheCacheHoldsThePodAtOnce) {
  Put(PodObject("via-bind-a", 6));
  Put(PodObject("via-bind-b", 6));
  ASSERT_TRUE(WaitFor([&] { return Cached("via-bind-a") && Cached("via-bind-b"); }));
  // Cut the pod informer off, so only the bind verb can tell the cache about these bindings.
  proxy().FailNext(gangplank::testing::ProxyFault::Status(503).Times(1000000).OnPath("pods").OnMethod("GET"));
  proxy().DropWatches();
  const std::string first = Schedule("via-bind-a", true).node;
  ASSERT_FALSE(first.empty());
  // The second pod is filtered next: the first one's GPUs must already be taken in the cache.
  const std::string second = Schedule("via-bind-b", true).node;
  EXPECT_NE(second, first) << "both 6-GPU pods were put on the same 8-GPU node";
  // Once the informer is back it reports both bindings, and nothing is charged twice.
  proxy().ClearFaults();
  Put(PodObject("marker", 0));
  ASSERT_TRUE(WaitFor([&] { return Cached("marker"); })) << "the pod informer never recovered";
  EXPECT_EQ(FreeGpus(first), 2);
  EXPECT_EQ(FreeGpus(second), 2);
}

TEST_F(EndToEnd, BindVerbReportsWhatWentWrongAndLeavesTheCacheAlone) {
  const std::string uid = StoredPod("running")["metadata"]["uid"];
  testing::LoopbackClient extender(server_->port());
  // Already bound to gpu-0 by the API server's books: a binding elsewhere is refused (409).
  Json args{{"PodName", "running"}, {"PodNamespace", ns()}, {"PodUID", uid}, {"Node", "gpu-1"}};
  auto refused = extender.Post("/gangplank/bind", args.dump());
  EXPECT_EQ(refused.status, 200);
  const Json reply = Json::parse(refused.body);
  EXPECT_NE(reply["Error"].get<std::string>().find("cannot be bound to gpu-1"), std::string::npos) << refused.body;
  EXPECT_TRUE(state_.Read([&](const cache::StateView& v) { return v.FindPod(uid)->node == "gpu-0"; }));
  // A pod that does not exist.
  args = Json{{"PodName", "ghost"}, {"PodNamespace", ns()}, {"PodUID", "no-such-uid"}, {"Node", "gpu-1"}};
  auto gone = extender.Post("/gangplank/bind", args.dump());
  EXPECT_EQ(gone.status, 200);
  EXPECT_NE(Json::parse(gone.body)["Error"].get<std::string>(), "") << gone.body;
  // Not ExtenderBindingArgs at all, and the wrong method.
  auto bad = extender.Post("/gangplank/bind", R"({"PodName":"running"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("Node: missing"), std::string::npos) << bad.body;
  EXPECT_EQ(extender.Get("/gangplank/bind").status, 405);
}

}  // namespace
}  // namespace gangplank::extender
