// Typed requests, errors, retries, paging, patches, status, binding, eviction and events against the real
// kube-apiserver; retries, an expired continue token and a server gone through the fault proxy.
#include <gtest/gtest.h>

#include "real_api_fixture.h"
#include "kube/api_error.h"
#include "kube/conditions.h"
#include "kube/event_recorder.h"
#include "kube/list_watch.h"

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;
using gangplank::testing::ProxyFault;
using testing::pod_json;

using ClientIntegrationTest = testing::RealApiTest;

TEST_F(ClientIntegrationTest, CreateGetUpdateDeleteWithOptimisticConcurrency) {
  const std::string ns = this->ns();
  Json created = client_->Create(resources::Pods(), ns, pod_json(ns, "p1"));
  EXPECT_FALSE(created["metadata"]["resourceVersion"].get<std::string>().empty());
  EXPECT_THROW(client_->Create(resources::Pods(), ns, pod_json(ns, "p1")), AlreadyExistsError);

  Json a = client_->Get(resources::Pods(), ns, "p1");
  Json b = a;
  a["metadata"]["labels"]["x"] = "1";
  client_->Update(resources::Pods(), ns, a);
  b["metadata"]["labels"]["y"] = "2";
  EXPECT_THROW(client_->Update(resources::Pods(), ns, b), ConflictError) << "stale resourceVersion must 409";

  // modify() re-reads and retries on conflict.
  Json modified = client_->Modify(resources::Pods(), ns, "p1", [](Json& pod) {
    pod["metadata"]["labels"]["y"] = "2";
    return true;
  });
  EXPECT_EQ(modified["metadata"]["labels"]["x"], "1");
  EXPECT_EQ(modified["metadata"]["labels"]["y"], "2");

  Pod typed = client_->GetAs<Pod>(resources::Pods(), ns, "p1");
  EXPECT_EQ(typed.meta.name, "p1");
  EXPECT_EQ(FindAmount(typed.requests, "nvidia.com/gpu")->milli, 1000);

  // Grace period 0: a real pod bound to no node is gone at once either way, but say it.
  EXPECT_TRUE(client_->Remove(resources::Pods(), ns, "p1", testing::immediately()));
  EXPECT_FALSE(client_->Remove(resources::Pods(), ns, "p1"));
  EXPECT_THROW(client_->Get(resources::Pods(), ns, "p1"), NotFoundError);
  EXPECT_EQ(client_->TryGet(resources::Pods(), ns, "p1"), std::nullopt);
}

TEST_F(ClientIntegrationTest, PatchesMergeJsonAndServerSideApply) {
  put(resources::Nodes(), {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}},
                           {"spec", {{"taints", {{{"key", "a"}, {"effect", "NoSchedule"}}, {{"key", "b"}, {"effect", "NoSchedule"}}}}}}});
  // Remove one taint with a JSON patch guarded by the resourceVersion. (Before the cordon: on a real
  // cluster the node lifecycle controller then adds its unschedulable taint, moving the resourceVersion.)
  // On a real cluster the node lifecycle controller may add its taint between the read and the patch:
  // the guard then refuses the patch, and a fresh read is patched instead.
  Json before, after, patched;
  for (int attempt = 0; attempt < 5 && patched.is_null(); ++attempt) {
    before = client_->Get(resources::Nodes(), "", "n1");
    after = before;
    Json& taints = after["spec"]["taints"];
    for (size_t i = 0; i < taints.size(); ++i) {
      if (taints[i]["key"] == "a") taints.erase(i);
    }
    try {
      patched = client_->Patch(resources::Nodes(), "", "n1", PatchType::kJson, MakeJsonPatch(before, after));
    } catch (const InvalidError&) {
      if (attempt == 4) throw;
    }
  }
  // A real node lifecycle controller may have added its own node.kubernetes.io/ taint meanwhile (it
  // travels in `before`); only the test's taints are compared.
  std::vector<std::string> keys;
  for (const auto& t : patched["spec"]["taints"]) {
    if (!t["key"].get<std::string>().starts_with("node.kubernetes.io/")) keys.push_back(t["key"]);
  }
  EXPECT_EQ(keys, std::vector<std::string>{"b"}) << patched["spec"]["taints"].dump();
  // The same guarded patch again is stale now and must be refused: a bare 422 naming nothing.
  try {
    client_->Patch(resources::Nodes(), "", "n1", PatchType::kJson, MakeJsonPatch(before, after));
    ADD_FAILURE() << "a stale guarded JSON patch was applied";
  } catch (const InvalidError& e) {
    EXPECT_EQ(e.message(), "the server rejected our request due to an error in our request");
  }

  Json cordoned = client_->Patch(resources::Nodes(), "", "n1", PatchType::kMerge, {{"spec", {{"unschedulable", true}}}});
  EXPECT_EQ(cordoned["spec"]["unschedulable"], true);

  WriteOptions w;
  w.field_manager = "gangplank-test";
  w.force = true;
  Json applied = client_->Apply(resources::Nodes(), "",
                                {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}, {"labels", {{"pool", "a"}}}}}}, w);
  EXPECT_EQ(applied["metadata"]["labels"]["pool"], "a");
  EXPECT_THROW(client_->Apply(resources::Nodes(), "", {{"metadata", {{"name", "n1"}}}}, w), std::invalid_argument);
}

TEST_F(ClientIntegrationTest, PaginatedListLoopsOnContinue) {
  for (int i = 0; i < 23; ++i) put(resources::Pods(), pod_json(ns(), "p" + std::to_string(i)));
  long before = rest_->SentRequests();
  ListOptions o;
  o.limit = 4;
  auto result = ListAll<Pod>(*rest_, resources::Pods(), ns(), o);
  EXPECT_EQ(result.items.size(), 23u);
  EXPECT_EQ(rest_->SentRequests() - before, 6);  // ceil(23 / 4)
  EXPECT_FALSE(result.resource_version.empty());
  Json all = client_->List(resources::Pods(), ns(), o);
  EXPECT_EQ(all["items"].size(), 23u);
}

// An extended resource (nvidia.com/gpu) cannot be overcommitted: a request needs an equal limit, a
// limit alone gives the request, and fractions are refused; the 422 names the field and the rule.
TEST_F(ClientIntegrationTest, GpuRequestsNeedEqualIntegerLimits) {
  auto gpu_pod = [&](const std::string& name, const Json& resources) {
    Json pod = pod_json(ns(), name);
    pod["spec"]["containers"][0]["resources"] = resources;
    return pod;
  };
  auto refusal = [&](const Json& pod) -> std::string {
    try {
      client_->Create(resources::Pods(), ns(), pod);
    } catch (const InvalidError& e) {
      return e.message();
    }
    return "created";
  };
  EXPECT_EQ(refusal(gpu_pod("no-limit", {{"requests", {{"nvidia.com/gpu", "1"}}}})),
            "Pod \"no-limit\" is invalid: spec.containers[0].resources.limits: Required value: Limit must be set for non "
            "overcommitable resources");
  EXPECT_EQ(refusal(gpu_pod("unequal", {{"requests", {{"nvidia.com/gpu", "2"}}}, {"limits", {{"nvidia.com/gpu", "1"}}}})),
            "Pod \"unequal\" is invalid: spec.containers[0].resources.requests: Invalid value: \"2\": must be equal to "
            "nvidia.com/gpu limit of 1");
  EXPECT_EQ(refusal(gpu_pod("half", {{"limits", {{"nvidia.com/gpu", "500m"}}}})),
            "Pod \"half\" is invalid: [spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: \"500m\": must be "
            "an integer, spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: \"500m\": must be an integer]");
  EXPECT_FALSE(client_->TryGet(resources::Pods(), ns(), "no-limit"));
  const Json limited = client_->Create(resources::Pods(), ns(), gpu_pod("limited", {{"limits", {{"nvidia.com/gpu", "2"}}}}));
  EXPECT_EQ(limited["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"], "2");
  // cpu and memory may be overcommitted: a request alone is fine.
  EXPECT_EQ(refusal(gpu_pod("cpu-only", {{"requests", {{"cpu", "250m"}}}})), "created");
}

// The next page's continue token has expired (410, as after etcd compacted its revision): the list starts
// over. (kube-apiserver 1.37 serves continue tokens from its watch cache, so compacting etcd alone does not
// expire one on demand; the proxy answers the 410 the server would.)
TEST_F(ClientIntegrationTest, ExpiredContinueTokenRestartsTheList) {
  for (int i = 0; i < 6; ++i) put(resources::Pods(), pod_json(ns(), "p" + std::to_string(i)));
  proxy().FailNext(ProxyFault::Status(410).OnPath("/pods").OnQuery("continue="));
  auto rest = proxied_rest();
  ListOptions o;
  o.limit = 3;
  ObjectDecoder<Pod> decoder;
  int restarts = 0;
  size_t items = 0;
  std::string rv = ListPages(
      *rest, resources::Pods(), ns(), o,
      [&](std::string_view body) {
        auto page = decoder.DecodeList(body);
        items += page.items.size();
        return ListMetaInfo{page.resource_version, page.continue_token};
      },
      [&] {
        ++restarts;
        items = 0;
      });
  EXPECT_EQ(restarts, 1);
  EXPECT_EQ(items, 6u);
  EXPECT_FALSE(rv.empty());
}

TEST_F(ClientIntegrationTest, RetriesHonourRetryAfterFromTheServer) {
  put(resources::Pods(), pod_json(ns(), "p"));
  Client client(proxied_rest());
  proxy().FailNext(ProxyFault::Status(429).OnPath("/pods/p").RetryAfter(1));
  auto start = std::chrono::steady_clock::now();
  Json pod = client.Get(resources::Pods(), ns(), "p");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 950ms);
  EXPECT_EQ(pod["metadata"]["name"], "p");

  proxy().FailNext(ProxyFault::Status(500).OnPath("/pods/p"));
  EXPECT_THROW(client.Get(resources::Pods(), ns(), "p"), ServerError);
}

TEST_F(ClientIntegrationTest, ClientSideQpsLimiterSpacesRequests) {
  RestOptions limited;
  limited.qps = 20;
  limited.burst = 1;
  auto rest = rest_direct(limited);
  Client client(rest);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i) client.TryGet(resources::Nodes(), "", "none");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 240ms);  // 5 waits of 50 ms
}

TEST_F(ClientIntegrationTest, BindingRules) {
  put(resources::Pods(), pod_json(ns(), "p"));
  std::string uid = client_->Get(resources::Pods(), ns(), "p")["metadata"]["uid"];
  EXPECT_EQ(client_->BindPod(ns(), "p", "n1", uid), BindOutcome::kBound);
  EXPECT_EQ(client_->Get(resources::Pods(), ns(), "p")["spec"]["nodeName"], "n1");
  EXPECT_EQ(client_->BindPod(ns(), "p", "n1", uid), BindOutcome::kAlreadyBoundHere);
  EXPECT_THROW(client_->BindPod(ns(), "p", "n2", uid), ConflictError);
  EXPECT_EQ(client_->BindPod(ns(), "ghost", "n1"), BindOutcome::kPodGone);
}

TEST_F(ClientIntegrationTest, EvictionBlockedByPdbIsADistinctError) {
  for (const char* name : {"a", "b"}) {
    Json pod = pod_json(ns(), name, "n1");
    pod["metadata"]["labels"]["app"] = "guarded";
    pod["status"] = {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}};
    put(resources::Pods(), pod);
  }
  client_->Create(resources::PodDisruptionBudgets(), ns(),
                  {{"apiVersion", "policy/v1"},
                   {"kind", "PodDisruptionBudget"},
                   {"metadata", {{"name", "guard"}, {"namespace", ns()}}},
                   {"spec", {{"minAvailable", 2}, {"selector", {{"matchLabels", {{"app", "guarded"}}}}}}}});
  long before = rest_->SentRequests();
  EXPECT_THROW(client_->EvictPod(ns(), "a", 0), DisruptionBudgetError);
  EXPECT_EQ(rest_->SentRequests() - before, 1) << "a PDB refusal is not throttling: no automatic retry";
  EXPECT_TRUE(client_->TryGet(resources::Pods(), ns(), "a"));
  put(resources::Pods(), pod_json(ns(), "free", "n1"));
  EXPECT_EQ(client_->EvictPod(ns(), "free", 0), EvictOutcome::kEvicted);
  EXPECT_FALSE(client_->TryGet(resources::Pods(), ns(), "free"));
  EXPECT_EQ(client_->EvictPod(ns(), "never-existed"), EvictOutcome::kAlreadyGone);
}

TEST_F(ClientIntegrationTest, CustomResourcesWithStatusSubresourceAndConditions) {
  Json crd = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "gpupools.gangplank.io"}}},
      {"spec",
       {{"group", "gangplank.io"},
        {"scope", "Cluster"},
        {"names", {{"plural", "gpupools"}, {"singular", "gpupool"}, {"kind", "GPUPool"}, {"listKind", "GPUPoolList"}}},
        {"versions",
         {{{"name", "v1alpha1"},
           {"served", true},
           {"storage", true},
           {"subresources", {{"status", Json::object()}}},
           {"schema",
            {{"openAPIV3Schema",
              {{"type", "object"},
               {"properties",
                {{"spec", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
                 {"status", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}}}}}}};
  client_->Create(resources::CustomResourceDefinitions(), "", crd);
  ASSERT_TRUE(testing::eventually([&] {
    const Json got = client_->Get(resources::CustomResourceDefinitions(), "", "gpupools.gangplank.io");
    if (!got.contains("status") || !got["status"].contains("conditions")) return false;
    const Json* c = FindCondition(got["status"]["conditions"], "Established");
    return c != nullptr && c->value("status", "") == "True";
  }));
  ResourceDescriptor pools{"gangplank.io", "v1alpha1", "gpupools", "GPUPool", false};
  // A real server may answer 404 for a moment after Established, until the CRD's handler is in place.
  ASSERT_TRUE(testing::eventually([&] { return client_->List(pools, "")["items"].empty(); }));
  client_->Create(pools, "", {{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"},
                              {"metadata", {{"name", "a"}}}, {"spec", {{"gpus", 8}}}});
  auto write_ready = [&](const std::string& status_value, const std::string& reason) {
    return client_->WriteStatus(pools, "", "a", [&](Json& status, const Json& object) {
      Json conditions = status.value("conditions", Json::array());
      SetCondition(conditions, {"Ready", status_value, reason, "", object["metadata"].value("generation", 0)},
                    std::chrono::system_clock::now());
      status["conditions"] = conditions;
    });
  };
  Json first = write_ready("False", "Pending");
  EXPECT_EQ(first["status"]["observedGeneration"], first["metadata"]["generation"]);
  std::string transition = first["status"]["conditions"][0]["lastTransitionTime"];
  std::string rv = first["metadata"]["resourceVersion"];
  // Same status again: no write at all.
  Json same = write_ready("False", "Pending");
  EXPECT_EQ(same["metadata"]["resourceVersion"], rv);
  // A spec change bumps generation; the status subresource write does not.
  Json spec_changed = client_->Patch(pools, "", "a", PatchType::kMerge, {{"spec", {{"gpus", 16}}}});
  EXPECT_GT(spec_changed["metadata"]["generation"].get<int64_t>(), first["metadata"]["generation"].get<int64_t>());
  Json second = write_ready("False", "StillPending");
  EXPECT_EQ(second["metadata"]["generation"], spec_changed["metadata"]["generation"]);
  EXPECT_EQ(second["status"]["observedGeneration"], spec_changed["metadata"]["generation"]);
  EXPECT_EQ(second["status"]["conditions"][0]["lastTransitionTime"], transition);
  // Status written through the main resource is ignored when /status exists.
  Json via_main = client_->Get(pools, "", "a");
  via_main["status"]["bogus"] = true;
  Json stored = client_->Update(pools, "", via_main);
  EXPECT_FALSE(stored["status"].contains("bogus"));
}

TEST_F(ClientIntegrationTest, EventRecorderFoldsRepeatsIntoACount) {
  put(resources::Pods(), pod_json(ns(), "p"));
  Json pod = client_->Get(resources::Pods(), ns(), "p");
  ObjectReference ref{"v1", "Pod", ns(), "p", pod["metadata"]["uid"], ""};
  EventRecorder recorder(client_, "gangplank-test", "host-1");
  EXPECT_TRUE(recorder.Record(ref, "Warning", "GangIncomplete", "2 of 4 pods"));
  EXPECT_TRUE(recorder.Record(ref, "Warning", "GangIncomplete", "2 of 4 pods"));
  EXPECT_TRUE(recorder.Record(ref, "Normal", "Placed", "on n1"));
  EXPECT_EQ(recorder.count(ref, "Warning", "GangIncomplete", "2 of 4 pods"), 2);
  Json events = client_->List(resources::Events(), ns());
  ASSERT_EQ(events["items"].size(), 2u);
  int max_count = 0;
  for (const auto& e : events["items"]) max_count = std::max(max_count, e.value("count", 0));
  EXPECT_EQ(max_count, 2);
  // An event that disappeared (TTL) is created afresh instead of failing.
  for (const auto& e : events["items"]) Remove(resources::Events(), e["metadata"]["name"]);
  EXPECT_TRUE(recorder.Record(ref, "Warning", "GangIncomplete", "2 of 4 pods"));
  EXPECT_EQ(client_->List(resources::Events(), ns())["items"].size(), 1u);
}

// The server is gone under the client (the proxy stopped: connections refused).
TEST_F(ClientIntegrationTest, TransportErrorsWhenTheServerIsDown) {
  Client client(proxied_rest());
  EXPECT_NO_THROW(client.List(resources::Nodes(), ""));
  proxy().Stop();
  EXPECT_THROW(client.Get(resources::Nodes(), "", "n"), net::TransportError);
}

}  // namespace
}  // namespace gangplank::kube
