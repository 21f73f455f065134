// Typed requests, errors, retries, paging, patches, status, binding, eviction and events against the
// API-server double over loopback HTTP.
#include <gtest/gtest.h>

#include "double_fixture.h"
#include "kube/api_error.h"
#include "kube/conditions.h"
#include "kube/event_recorder.h"
#include "kube/list_watch.h"

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;
using apiserver_double::ApiServerDouble;
using apiserver_double::DoubleOptions;
using apiserver_double::FaultRule;
using testing::pod_json;
using testing::rest_for;

class ClientIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.start();
    rest_ = rest_for(server_);
    client_ = std::make_shared<Client>(rest_);
  }
  ApiServerDouble server_;
  std::shared_ptr<RestClient> rest_;
  std::shared_ptr<Client> client_;
};

TEST_F(ClientIntegrationTest, CreateGetUpdateDeleteWithOptimisticConcurrency) {
  Json created = client_->create(resources::pods(), "default", pod_json("default", "p1"));
  EXPECT_FALSE(created["metadata"]["resourceVersion"].get<std::string>().empty());
  EXPECT_THROW(client_->create(resources::pods(), "default", pod_json("default", "p1")), AlreadyExistsError);

  Json a = client_->get(resources::pods(), "default", "p1");
  Json b = a;
  a["metadata"]["labels"]["x"] = "1";
  client_->update(resources::pods(), "default", a);
  b["metadata"]["labels"]["y"] = "2";
  EXPECT_THROW(client_->update(resources::pods(), "default", b), ConflictError) << "stale resourceVersion must 409";

  // modify() re-reads and retries on conflict.
  Json modified = client_->modify(resources::pods(), "default", "p1", [](Json& pod) {
    pod["metadata"]["labels"]["y"] = "2";
    return true;
  });
  EXPECT_EQ(modified["metadata"]["labels"]["x"], "1");
  EXPECT_EQ(modified["metadata"]["labels"]["y"], "2");

  Pod typed = client_->get_as<Pod>(resources::pods(), "default", "p1");
  EXPECT_EQ(typed.meta.name, "p1");
  EXPECT_EQ(find_amount(typed.requests, "nvidia.com/gpu")->milli, 1000);

  EXPECT_TRUE(client_->remove(resources::pods(), "default", "p1"));
  EXPECT_FALSE(client_->remove(resources::pods(), "default", "p1"));
  EXPECT_THROW(client_->get(resources::pods(), "default", "p1"), NotFoundError);
  EXPECT_EQ(client_->try_get(resources::pods(), "default", "p1"), std::nullopt);
}

TEST_F(ClientIntegrationTest, PatchesMergeJsonAndServerSideApply) {
  server_.put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}},
               {"spec", {{"taints", {{{"key", "a"}, {"effect", "NoSchedule"}}, {{"key", "b"}, {"effect", "NoSchedule"}}}}}}});
  Json cordoned = client_->patch(resources::nodes(), "", "n1", PatchType::kMerge, {{"spec", {{"unschedulable", true}}}});
  EXPECT_EQ(cordoned["spec"]["unschedulable"], true);

  // Remove one taint with a JSON patch guarded by the resourceVersion.
  Json before = client_->get(resources::nodes(), "", "n1");
  Json after = before;
  after["spec"]["taints"].erase(0);
  Json patched = client_->patch(resources::nodes(), "", "n1", PatchType::kJson, make_json_patch(before, after));
  ASSERT_EQ(patched["spec"]["taints"].size(), 1u);
  EXPECT_EQ(patched["spec"]["taints"][0]["key"], "b");
  // The same guarded patch again is stale now and must be refused.
  EXPECT_THROW(client_->patch(resources::nodes(), "", "n1", PatchType::kJson, make_json_patch(before, after)), ApiError);

  WriteOptions w;
  w.field_manager = "gangplank-test";
  w.force = true;
  Json applied = client_->apply(resources::nodes(), "",
                                {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}, {"labels", {{"pool", "a"}}}}}}, w);
  EXPECT_EQ(applied["metadata"]["labels"]["pool"], "a");
  EXPECT_THROW(client_->apply(resources::nodes(), "", {{"metadata", {{"name", "n1"}}}}, w), std::invalid_argument);
}

TEST_F(ClientIntegrationTest, PaginatedListLoopsOnContinue) {
  for (int i = 0; i < 23; ++i) server_.put(pod_json("default", "p" + std::to_string(i)));
  long before = rest_->sent_requests();
  ListOptions o;
  o.limit = 4;
  auto result = list_all<Pod>(*rest_, resources::pods(), "default", o);
  EXPECT_EQ(result.items.size(), 23u);
  EXPECT_EQ(rest_->sent_requests() - before, 6);  // ceil(23 / 4)
  EXPECT_FALSE(result.resource_version.empty());
  Json all = client_->list(resources::pods(), "default", o);
  EXPECT_EQ(all["items"].size(), 23u);
}

TEST(ClientIntegration, ExpiredContinueTokenRestartsTheList) {
  DoubleOptions options;
  options.continue_token_ttl = 1s;
  ApiServerDouble server(options);
  server.start();
  for (int i = 0; i < 6; ++i) server.put(pod_json("default", "p" + std::to_string(i)));
  auto rest = rest_for(server);
  ListOptions o;
  o.limit = 3;
  ObjectDecoder<Pod> decoder;
  int pages = 0;
  int restarts = 0;
  size_t items = 0;
  std::string rv = list_pages(
      *rest, resources::pods(), "default", o,
      [&](std::string_view body) {
        auto page = decoder.decode_list(body);
        if (pages++ == 0) std::this_thread::sleep_for(2100ms);  // let the token expire
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
  server_.put(pod_json("default", "p"));
  FaultRule rule;
  rule.status = 429;
  rule.count = 1;
  rule.retry_after_seconds = 1;
  rule.path_contains = "/pods/p";
  server_.fail_next(rule);
  auto start = std::chrono::steady_clock::now();
  Json pod = client_->get(resources::pods(), "default", "p");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 950ms);
  EXPECT_EQ(pod["metadata"]["name"], "p");

  rule.status = 500;
  rule.retry_after_seconds.reset();
  server_.fail_next(rule);
  EXPECT_THROW(client_->get(resources::pods(), "default", "p"), ServerError);
}

TEST_F(ClientIntegrationTest, ClientSideQpsLimiterSpacesRequests) {
  RestOptions limited;
  limited.qps = 20;
  limited.burst = 1;
  auto rest = rest_for(server_, limited);
  Client client(rest);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i) client.try_get(resources::nodes(), "", "none");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 240ms);  // 5 waits of 50 ms
}

TEST_F(ClientIntegrationTest, BindingRules) {
  server_.put(pod_json("default", "p"));
  std::string uid = client_->get(resources::pods(), "default", "p")["metadata"]["uid"];
  EXPECT_EQ(client_->bind_pod("default", "p", "n1", uid), BindOutcome::kBound);
  EXPECT_EQ(client_->get(resources::pods(), "default", "p")["spec"]["nodeName"], "n1");
  EXPECT_EQ(client_->bind_pod("default", "p", "n1", uid), BindOutcome::kAlreadyBoundHere);
  EXPECT_THROW(client_->bind_pod("default", "p", "n2", uid), ConflictError);
  EXPECT_EQ(client_->bind_pod("default", "ghost", "n1"), BindOutcome::kPodGone);
}

TEST_F(ClientIntegrationTest, EvictionBlockedByPdbIsADistinctError) {
  for (const char* name : {"a", "b"}) {
    Json pod = pod_json("default", name, "n1");
    pod["metadata"]["labels"]["app"] = "guarded";
    pod["status"] = {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}};
    server_.put(pod);
  }
  client_->create(resources::pod_disruption_budgets(), "default",
                  {{"apiVersion", "policy/v1"},
                   {"kind", "PodDisruptionBudget"},
                   {"metadata", {{"name", "guard"}, {"namespace", "default"}}},
                   {"spec", {{"minAvailable", 2}, {"selector", {{"matchLabels", {{"app", "guarded"}}}}}}}});
  long before = rest_->sent_requests();
  EXPECT_THROW(client_->evict_pod("default", "a", 0), DisruptionBudgetError);
  EXPECT_EQ(rest_->sent_requests() - before, 1) << "a PDB refusal is not throttling: no automatic retry";
  server_.put(pod_json("default", "free", "n1"));
  EXPECT_EQ(client_->evict_pod("default", "free", 0), EvictOutcome::kEvicted);
  EXPECT_EQ(client_->evict_pod("default", "never-existed"), EvictOutcome::kAlreadyGone);
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
  client_->create(resources::custom_resource_definitions(), "", crd);
  ASSERT_TRUE(testing::eventually([&] {
    const Json got = client_->get(resources::custom_resource_definitions(), "", "gpupools.gangplank.io");
    if (!got.contains("status") || !got["status"].contains("conditions")) return false;
    const Json* c = find_condition(got["status"]["conditions"], "Established");
    return c != nullptr && c->value("status", "") == "True";
  }));
  ResourceDescriptor pools{"gangplank.io", "v1alpha1", "gpupools", "GPUPool", false};
  client_->create(pools, "", {{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"},
                              {"metadata", {{"name", "a"}}}, {"spec", {{"gpus", 8}}}});
  auto write_ready = [&](const std::string& status_value, const std::string& reason) {
    return client_->write_status(pools, "", "a", [&](Json& status, const Json& object) {
      Json conditions = status.value("conditions", Json::array());
      set_condition(conditions, {"Ready", status_value, reason, "", object["metadata"].value("generation", 0)},
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
  Json spec_changed = client_->patch(pools, "", "a", PatchType::kMerge, {{"spec", {{"gpus", 16}}}});
  EXPECT_GT(spec_changed["metadata"]["generation"].get<int64_t>(), first["metadata"]["generation"].get<int64_t>());
  Json second = write_ready("False", "StillPending");
  EXPECT_EQ(second["metadata"]["generation"], spec_changed["metadata"]["generation"]);
  EXPECT_EQ(second["status"]["observedGeneration"], spec_changed["metadata"]["generation"]);
  EXPECT_EQ(second["status"]["conditions"][0]["lastTransitionTime"], transition);
  // Status written through the main resource is ignored when /status exists.
  Json via_main = client_->get(pools, "", "a");
  via_main["status"]["bogus"] = true;
  Json stored = client_->update(pools, "", via_main);
  EXPECT_FALSE(stored["status"].contains("bogus"));
}

TEST_F(ClientIntegrationTest, EventRecorderFoldsRepeatsIntoACount) {
  server_.put(pod_json("default", "p"));
  Json pod = client_->get(resources::pods(), "default", "p");
  ObjectReference ref{"v1", "Pod", "default", "p", pod["metadata"]["uid"], ""};
  EventRecorder recorder(client_, "gangplank-test", "host-1");
  EXPECT_TRUE(recorder.record(ref, "Warning", "GangIncomplete", "2 of 4 pods"));
  EXPECT_TRUE(recorder.record(ref, "Warning", "GangIncomplete", "2 of 4 pods"));
  EXPECT_TRUE(recorder.record(ref, "Normal", "Placed", "on n1"));
  EXPECT_EQ(recorder.count(ref, "Warning", "GangIncomplete", "2 of 4 pods"), 2);
  Json events = client_->list(resources::events(), "default");
  ASSERT_EQ(events["items"].size(), 2u);
  int max_count = 0;
  for (const auto& e : events["items"]) max_count = std::max(max_count, e.value("count", 0));
  EXPECT_EQ(max_count, 2);
  // An event that disappeared (TTL) is created afresh instead of failing.
  for (const auto& e : events["items"]) server_.remove("events", "default", e["metadata"]["name"]);
  EXPECT_TRUE(recorder.record(ref, "Warning", "GangIncomplete", "2 of 4 pods"));
  EXPECT_EQ(client_->list(resources::events(), "default")["items"].size(), 1u);
}

TEST(ClientIntegration, TransportErrorsWhenTheServerIsDown) {
  ApiServerDouble server;
  server.start();
  auto rest = rest_for(server);
  server.stop();
  Client client(rest);
  EXPECT_THROW(client.get(resources::nodes(), "", "n"), net::TransportError);
}

}  // namespace
}  // namespace gangplank::kube
