// Bad input end to end: invalid GPUPools and Queues through the real kubectl get kube-apiserver's
// message, a queue tree the schema cannot judge (a cycle, a missing parent) and a pool selecting no nodes
// are reported as Ready=False, and the operator keeps serving through all of it.
#include <gtest/gtest.h>

#include <string>

#include "cache/feed/gangplank_resources.h"
#include "tests/operator/e2e/support/operator_cluster.h"

namespace gangplank::op::testing {
namespace {

class OperatorBadInput : public OperatorCluster {
 protected:
  void TearDown() override {
    if (!IsSkipped()) Kubectl({"delete", "queues,gpupools", "cyc-a", "cyc-b", "orphan", "empty", "--ignore-not-found"}, "");
    OperatorCluster::TearDown();
  }
  real_cluster::KubectlResult Kubectl(const std::vector<std::string>& args, const std::string& input) {
    return real_cluster::Kubectl(cluster().kubeconfig(), args, input);
  }
  // Applies YAML and expects kubectl to refuse it with `message` on stderr.
  void ExpectRefused(const std::string& yaml, const std::string& message) {
    const auto r = Kubectl({"apply", "-f", "-"}, yaml);
    EXPECT_NE(r.exit_code, 0) << yaml;
    EXPECT_NE(r.err.find(message), std::string::npos) << "kubectl said: " << r.err;
  }
  std::optional<Json> Condition(const kube::ResourceDescriptor& resource, const std::string& name, const std::string& type) {
    const auto object = client().TryGet(resource, "", name);
    if (!object) return std::nullopt;
    for (const auto& c : object->value("/status/conditions"_json_pointer, Json::array())) {
      if (c.value("type", "") == type) return c;
    }
    return std::nullopt;
  }
};

TEST_F(OperatorBadInput, InvalidPoolsAndQueuesGetTheSchemasMessageAndTheOperatorKeepsServing) {
  Node("n0", {8, {{"pool", "a"}}});
  Pool("a", Json::parse(R"({"nodeSelector":{"pool":"a"}})"));
  Queue("team-a");
  StartOperator();
  ExpectRefused("apiVersion: gangplank.io/v1alpha1\nkind: Queue\nmetadata: {name: bad-weight}\nspec: {weight: -1}\n",
                "The Queue \"bad-weight\" is invalid: spec.weight: Invalid value: -1: spec.weight in body should be "
                "greater than or equal to 0");
  ExpectRefused("apiVersion: gangplank.io/v1alpha1\nkind: Queue\nmetadata: {name: bad-limit}\n"
                "spec: {pools: [{name: a, guaranteedGPUs: 8, limitGPUs: 4}]}\n",
                "spec.pools[0]: Invalid value: limitGPUs must not be below guaranteedGPUs");
  ExpectRefused("apiVersion: gangplank.io/v1alpha1\nkind: Queue\nmetadata: {name: self}\nspec: {parent: self}\n",
                "a queue cannot be its own parent");
  ExpectRefused("apiVersion: gangplank.io/v1alpha1\nkind: GPUPool\nmetadata: {name: bad-type}\nspec: {capacityType: Cheap}\n",
                "spec.capacityType: Unsupported value: \"Cheap\": supported values: \"OnDemand\", \"Spot\"");
  ExpectRefused("apiVersion: gangplank.io/v1alpha1\nkind: GPUPool\nmetadata: {name: bad-field}\nspec: {nodeSelectr: {a: b}}\n",
                "unknown field \"spec.nodeSelectr\"");

  // What the schema cannot see: a cycle, a missing parent, a pool that selects no nodes.
  const auto applied = Kubectl({"apply", "-f", "-"}, "apiVersion: gangplank.io/v1alpha1\nkind: Queue\nmetadata: {name: cyc-a}\nspec: {parent: cyc-b}\n"
                                          "---\napiVersion: gangplank.io/v1alpha1\nkind: Queue\nmetadata: {name: cyc-b}\nspec: {parent: cyc-a}\n"
                                          "---\napiVersion: gangplank.io/v1alpha1\nkind: Queue\nmetadata: {name: orphan}\nspec: {parent: nobody}\n"
                                          "---\napiVersion: gangplank.io/v1alpha1\nkind: GPUPool\nmetadata: {name: empty}\nspec: {nodeSelector: {pool: none}}\n");
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  // The operator may see cyc-a before cyc-b and say ParentNotFound first (true then); it must settle on
  // the cycle once it has both.
  std::string cycle_reason;
  EXPECT_TRUE(WaitFor([&] {
    const auto condition = Condition(cache::resources::queues(), "cyc-a", "Ready");
    cycle_reason = condition ? condition->value("reason", "") : "";
    return cycle_reason == "ParentCycle";
  })) << "last reason: " << cycle_reason << "\n" << Logs();
  ASSERT_TRUE(WaitFor([&] { return Condition(cache::resources::queues(), "orphan", "Ready").has_value(); }));
  EXPECT_EQ(Condition(cache::resources::queues(), "orphan", "Ready")->value("message", ""), "parent queue nobody does not exist");
  ASSERT_TRUE(WaitFor([&] { return Condition(cache::resources::gpu_pools(), "empty", "Ready").has_value(); }));
  EXPECT_EQ(Condition(cache::resources::gpu_pools(), "empty", "Ready")->value("reason", ""), "NoNodes");
  EXPECT_EQ(Condition(cache::resources::queues(), "team-a", "Ready")->value("status", ""), "True");

  // kubectl shows the columns the CRDs declare.
  const auto table = Kubectl({"get", "gpupools,queues"}, "");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("LARGEST-GANG"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("FAIR-SHARE"), std::string::npos) << table.out;

  // Still serving: a gang in queue team-a is admitted.
  Submit(PodObject("after", PodOptions().Queue("team-a").Gpus(2).Label("gangplank.io/pool", "a")));
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("after").empty(); })) << Logs();
  EXPECT_EQ(OperatorMetric("gangplank_operator_leader"), 1);
}

}  // namespace
}  // namespace gangplank::op::testing
