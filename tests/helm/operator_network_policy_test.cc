// Who may reach the operator, as the chart sets it up (issue 31): its plain port (/healthz, /readyz,
// /metrics) admits the monitoring namespaces' pods; its webhook port, once the admin names the API
// server's addresses, those only; its dry-run port (a listener of its own) the dry-run namespaces. A
// NetworkPolicy cannot name the API server (no pod), so without its addresses the webhook port stays open.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"

namespace gangplank::helm_testing {
namespace {

RenderedObjects Render(std::vector<std::string> sets = {}) {
  RenderOptions options;
  options.sets = std::move(sets);
  return RenderedObjects(helm3().render_ok(options));
}

json NamespacesOf(const json& peer) { return peer["namespaceSelector"]["matchExpressions"][0]["values"]; }

TEST(OperatorNetworkPolicy, TheHealthPortAdmitsMonitoringTheWebhookOnlyTheApiServerAndTheDryRunItsNamespaces) {
  const RenderedObjects objects =
      Render({"networkPolicy.apiServerCIDRs={10.0.0.1/32,10.0.0.2/32}", "networkPolicy.dryRunNamespaces={ml,research}"});
  const json policy = objects.get("NetworkPolicy", "gangplank-operator");
  const json operator_pod = *objects.deployment_with_container("operator");
  EXPECT_EQ(policy["spec"]["podSelector"]["matchLabels"], operator_pod["spec"]["selector"]["matchLabels"]);
  EXPECT_EQ(policy["spec"]["policyTypes"], json::array({"Ingress"}));
  const json& ingress = policy["spec"]["ingress"];
  ASSERT_EQ(ingress.size(), 3u) << policy.dump(2);
  EXPECT_EQ(ingress[0]["ports"][0]["port"], 8080);
  EXPECT_EQ(NamespacesOf(ingress[0]["from"][0]), json::array({"monitoring"}));
  EXPECT_EQ(ingress[1]["ports"][0]["port"], 9443);
  const json& from = ingress[1]["from"];
  ASSERT_EQ(from.size(), 2u) << from.dump(2);
  EXPECT_EQ(from[0]["ipBlock"]["cidr"], "10.0.0.1/32");
  EXPECT_EQ(from[1]["ipBlock"]["cidr"], "10.0.0.2/32");
  EXPECT_EQ(ingress[2]["ports"][0]["port"], 9444);
  ASSERT_EQ(ingress[2]["from"].size(), 1u) << ingress[2].dump(2);
  EXPECT_EQ(NamespacesOf(ingress[2]["from"][0]), json::array({"ml", "research"}));

  // The dry-run port is the container's port of that name, and the Service's 8443.
  bool listed = false;
  for (const json& port : operator_pod["spec"]["template"]["spec"]["containers"][0]["ports"]) {
    if (port["name"] == "dry-run") listed = port["containerPort"] == 9444;
  }
  EXPECT_TRUE(listed) << operator_pod.dump(2);
  const json& args = operator_pod["spec"]["template"]["spec"]["containers"][0]["args"];
  EXPECT_NE(std::find(args.begin(), args.end(), "--dry-run-port=9444"), args.end()) << args.dump();
  const json service = objects.get("Service", "gangplank-operator");
  bool served = false;
  for (const json& port : service["spec"]["ports"]) {
    if (port["name"] == "dry-run") served = port["port"] == 8443 && port["targetPort"] == "dry-run";
  }
  EXPECT_TRUE(served) << service.dump(2);
}

TEST(OperatorNetworkPolicy, WithoutTheApiServersAddressesTheTlsPortStaysOpenAndAnEmptyMonitoringListOpensMetrics) {
  RenderOptions no_monitoring;
  no_monitoring.json_sets = {"networkPolicy.monitoringNamespaces=[]"};
  const json open = RenderedObjects(helm3().render_ok(no_monitoring)).get("NetworkPolicy", "gangplank-operator");
  for (const json& rule : open["spec"]["ingress"]) EXPECT_FALSE(rule.contains("from")) << rule.dump();
  const json no_webhook = Render({"operator.webhook.enabled=false"}).get("NetworkPolicy", "gangplank-operator");
  EXPECT_EQ(no_webhook["spec"]["ingress"].size(), 1u) << "no TLS port to admit anyone to";
  const json no_dry_run = Render({"operator.webhook.dryRunPort=0"}).get("NetworkPolicy", "gangplank-operator");
  EXPECT_EQ(no_dry_run["spec"]["ingress"].size(), 2u) << "no dry-run port to admit anyone to";
  EXPECT_FALSE(Render({"networkPolicy.enabled=false"}).find("NetworkPolicy", "gangplank-operator").has_value());
}

TEST(OperatorNetworkPolicy, MalformedAddressesAndNamespacesAreRefusedByTheSchema) {
  RenderOptions bad_cidr;
  bad_cidr.sets = {"networkPolicy.apiServerCIDRs={kube-apiserver}"};
  EXPECT_NE(helm3().render(bad_cidr).err.find("apiServerCIDRs"), std::string::npos);
  RenderOptions bad_namespace;
  bad_namespace.sets = {"networkPolicy.dryRunNamespaces={ML_Team}"};
  EXPECT_NE(helm3().render(bad_namespace).err.find("dryRunNamespaces"), std::string::npos);
}

}  // namespace
}  // namespace gangplank::helm_testing
