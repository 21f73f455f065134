// pods/binding and PDB-aware pods/eviction.
#include "tests/apiserver-double/semantics/double_fixture.h"

namespace gangplank::apiserver_double::testing {
namespace {

using PodsTest = DoubleTest;

json binding(const std::string& pod_name, const std::string& node) {
  return {{"apiVersion", "v1"}, {"kind", "Binding"}, {"metadata", {{"name", pod_name}}}, {"target", {{"kind", "Node"}, {"name", node}}}};
}

json eviction(const std::string& pod_name) {
  return {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", {{"name", pod_name}, {"namespace", "default"}}}};
}

TEST_F(PodsTest, BindingSetsNodeAndRefusesSecondBinding) {
  call("POST", "/api/v1/namespaces/default/pods", pod("a"));
  auto bound = call("POST", "/api/v1/namespaces/default/pods/a/binding", binding("a", "gpu-1"));
  ASSERT_EQ(bound.status, 201);
  EXPECT_EQ(bound.body["status"], "Success");
  auto stored = *server_->Get("pods", "default", "a");
  EXPECT_EQ(stored["spec"]["nodeName"], "gpu-1");
  EXPECT_EQ(stored["status"]["conditions"][0]["type"], "PodScheduled");
  EXPECT_EQ(stored["status"]["conditions"][0]["status"], "True");

  auto twice = call("POST", "/api/v1/namespaces/default/pods/a/binding", binding("a", "gpu-2"));
  EXPECT_EQ(twice.status, 409);
  EXPECT_EQ(twice.body["reason"], "Conflict");
  EXPECT_NE(twice.body["message"].get<std::string>().find("already assigned to node \"gpu-1\""), std::string::npos);
  EXPECT_EQ(server_->Get("pods", "default", "a")->at("spec").at("nodeName"), "gpu-1");

  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/ghost/binding", binding("ghost", "n")).status, 404);
  json no_target = binding("a", "");
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/a/binding", no_target).status, 422);
  call("POST", "/api/v1/namespaces/default/pods", pod("b"));
  json wrong_uid = binding("b", "n");
  wrong_uid["metadata"]["uid"] = "not-the-uid";
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/b/binding", wrong_uid).status, 409);
}

class EvictionTest : public DoubleTest {
 protected:
  void SetUp() override {
    DoubleTest::SetUp();
    for (const char* n : {"w0", "w1", "w2"}) {
      server_->put(pod(n, {{"app", "trainer"}}, "Running"));
    }
  }
  void make_pdb(const std::string& name, json spec_extra) {
    json pdb = {{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"}, {"metadata", {{"name", name}}},
                {"spec", {{"selector", {{"matchLabels", {{"app", "trainer"}}}}}}}};
    pdb["spec"].update(spec_extra);
    ASSERT_EQ(call("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", pdb).status, 201);
  }
};

TEST_F(EvictionTest, BudgetBlocksEvictionWith429DisruptionBudget) {
  make_pdb("keep-two", {{"minAvailable", 2}});
  auto pdb = *server_->Get("poddisruptionbudgets.policy", "default", "keep-two");
  EXPECT_EQ(pdb["status"]["disruptionsAllowed"], 1);
  EXPECT_EQ(pdb["status"]["currentHealthy"], 3);

  auto first = call("POST", "/api/v1/namespaces/default/pods/w0/eviction", eviction("w0"));
  EXPECT_EQ(first.status, 201);
  EXPECT_FALSE(server_->Get("pods", "default", "w0"));
  EXPECT_EQ(server_->Get("poddisruptionbudgets.policy", "default", "keep-two")->at("status").at("disruptionsAllowed"), 0);

  auto blocked = call("POST", "/api/v1/namespaces/default/pods/w1/eviction", eviction("w1"));
  EXPECT_EQ(blocked.status, 429);
  EXPECT_EQ(blocked.body["reason"], "TooManyRequests");
  EXPECT_EQ(blocked.body["details"]["causes"][0]["reason"], "DisruptionBudget");
  EXPECT_FALSE(blocked.headers.count("retry-after"));  // not throttling
  EXPECT_TRUE(server_->Get("pods", "default", "w1"));
}

TEST_F(EvictionTest, MaxUnavailablePercentAndUnhealthyPods) {
  make_pdb("pct", {{"maxUnavailable", "34%"}});  // ceil(0.34*3)=2 may be unavailable
  EXPECT_EQ(server_->Get("poddisruptionbudgets.policy", "default", "pct")->at("status").at("disruptionsAllowed"), 2);
  // A pod that is not Running is evictable regardless of the budget.
  server_->put(pod("pending", {{"app", "trainer"}}, "Pending"));
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/pending/eviction", eviction("pending")).status, 201);
}

TEST_F(EvictionTest, TwoBudgetsForOnePodIs500AndUncoveredPodsAreFree) {
  make_pdb("a", {{"minAvailable", 1}});
  make_pdb("b", {{"minAvailable", 1}});
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/w0/eviction", eviction("w0")).status, 500);
  server_->put(pod("loner", {{"app", "other"}}, "Running"));
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/loner/eviction", eviction("loner")).status, 201);
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/loner/eviction", eviction("loner")).status, 404);
}

}  // namespace
}  // namespace gangplank::apiserver_double::testing
