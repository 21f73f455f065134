// The KubeSchedulerConfiguration the chart renders, field by field against the v1 field list derived from
// kube-scheduler's Go types (tests/helm/testdata/kube-scheduler-config-v1.fields.json) and its validation,
// for every values file that runs the scheduler; then the values gangplank's extender entry must have.
// The checker itself is shown to catch each kind of mistake.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/yaml_json.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"
#include "tests/helm/support/scheduler_config_schema.h"

namespace gangplank::helm_testing {
namespace {

json fields() {
  std::ifstream in(source_dir() + "/tests/helm/testdata/kube-scheduler-config-v1.fields.json");
  return json::parse(in);
}

// The scheduler's config.yaml of a render, or null when the render has no scheduler.
json rendered_config(const std::string& values_file) {
  RenderOptions options;
  if (!values_file.empty()) options.values_files.push_back(values_file);
  const RenderedObjects objects(helm3().render_ok(options));
  for (const auto& cm : objects.of_kind("ConfigMap")) {
    if (cm.contains("/data/config.yaml"_json_pointer)) {
      auto docs = gangplank::testing::ParseYamlDocuments(cm["data"]["config.yaml"].get<std::string>());
      return docs.empty() ? json() : docs.front();
    }
  }
  return nullptr;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "  " + l + "\n";
  return out;
}

class SchedulerConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = helm3().unavailable_reason();
    if (!why.empty()) FAIL() << why;
  }
};

TEST_F(SchedulerConfigTest, EveryRenderedConfigMatchesTheV1TypesAndValidation) {
  std::vector<std::string> sets = {""};
  for (const auto& f : ci_values_files()) sets.push_back(f);
  int checked = 0;
  for (const auto& values : sets) {
    const json config = rendered_config(values);
    if (config.is_null()) {
      EXPECT_EQ(values_name(values), "no-scheduler");
      continue;
    }
    ++checked;
    const auto problems = check_scheduler_config(config, fields());
    EXPECT_TRUE(problems.empty()) << values_name(values) << ":\n" << joined(problems) << config.dump(2);
  }
  EXPECT_GE(checked, 8);
}

TEST_F(SchedulerConfigTest, TheGangplankProfileCallsTheExtenderAsTheExtenderReadmeSays) {
  const json config = rendered_config("");
  ASSERT_EQ(config["profiles"].size(), 1u);
  EXPECT_EQ(config["profiles"][0]["schedulerName"], "gangplank");
  EXPECT_EQ(config["profiles"][0]["percentageOfNodesToScore"], 100);
  ASSERT_EQ(config["extenders"].size(), 1u);
  const json& e = config["extenders"][0];
  EXPECT_EQ(e["urlPrefix"], "https://gangplank-extender.gangplank-system.svc:8888/gangplank");
  EXPECT_EQ(e["filterVerb"], "filter");
  EXPECT_EQ(e["prioritizeVerb"], "prioritize");
  EXPECT_EQ(e["preemptVerb"], "preempt");
  EXPECT_FALSE(e.contains("bindVerb"));
  EXPECT_EQ(e["weight"], 5);
  EXPECT_EQ(e["httpTimeout"], "5s");
  EXPECT_EQ(e["nodeCacheCapable"], true);
  EXPECT_EQ(e["ignorable"], false);
  EXPECT_EQ(e["enableHTTPS"], true);
  EXPECT_EQ(e["tlsConfig"], json({{"caFile", "/etc/gangplank/extender-ca/ca.crt"},
                                  {"serverName", "gangplank-extender.gangplank-system.svc"},
                                  {"certFile", "/etc/gangplank/scheduler-client/tls.crt"},
                                  {"keyFile", "/etc/gangplank/scheduler-client/tls.key"}}));
  // No managedResources: every pod of the profile reaches the extender, claim pods included (kube-scheduler
  // never matches a resource claim against the list).
  EXPECT_FALSE(e.contains("managedResources"));

  const json sidecar = rendered_config(chart_dir() + "/ci/sidecar-values.yaml")["extenders"][0];
  EXPECT_EQ(sidecar["urlPrefix"], "https://127.0.0.1:8888/gangplank");
  EXPECT_EQ(sidecar["bindVerb"], "bind");
  EXPECT_EQ(sidecar["tlsConfig"]["serverName"], "127.0.0.1");
  const json plain = rendered_config(chart_dir() + "/ci/no-webhook-values.yaml")["extenders"][0];
  EXPECT_EQ(plain["urlPrefix"], "http://gangplank-extender.gangplank-system.svc:8888/gangplank");
  EXPECT_EQ(plain["enableHTTPS"], false);
  EXPECT_FALSE(plain.contains("tlsConfig"));
  const json tuned = rendered_config(chart_dir() + "/ci/tuned-values.yaml");
  EXPECT_EQ(tuned["profiles"][0]["schedulerName"], "gpu-gang");
  EXPECT_EQ(tuned["profiles"][0]["pluginConfig"][0]["name"], "NodeResourcesFit");
  EXPECT_EQ(tuned["extenders"][0]["urlPrefix"], "https://gpu-sched-extender.gangplank-system.svc:8888/gp/v1");
  EXPECT_EQ(tuned["extenders"][0]["weight"], 10);
  EXPECT_EQ(tuned["extenders"][0]["httpTimeout"], "10s");
  EXPECT_EQ(rendered_config(chart_dir() + "/ci/single-replica-values.yaml")["leaderElection"]["leaderElect"], false);
}

TEST(SchedulerConfigChecker, CatchesUnknownFieldsWrongTypesAndBrokenRules) {
  const json good = json::parse(R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration",
    "leaderElection":{"leaderElect":true,"resourceLock":"leases","resourceName":"s","resourceNamespace":"ns"},
    "profiles":[{"schedulerName":"gangplank","plugins":{"score":{"disabled":[{"name":"X"}]}}}],
    "extenders":[{"urlPrefix":"https://e.ns.svc:8888/gp","filterVerb":"filter","prioritizeVerb":"prioritize","weight":5,
      "enableHTTPS":true,"tlsConfig":{"caFile":"/ca.crt"},"httpTimeout":"5s","nodeCacheCapable":true,
      "managedResources":[{"name":"nvidia.com/gpu"}]}]})");
  EXPECT_TRUE(check_scheduler_config(good, fields()).empty()) << joined(check_scheduler_config(good, fields()));

  auto problems_with = [&](const std::string& pointer, const json& value) {
    json bad = good;
    if (value.is_null()) {
      bad[json::json_pointer(pointer).parent_pointer()].erase(json::json_pointer(pointer).back());
    } else {
      bad[json::json_pointer(pointer)] = value;
    }
    return joined(check_scheduler_config(bad, fields()));
  };
  EXPECT_NE(problems_with("/extenders/0/nodeCachable", true).find("extenders[0].nodeCachable: unknown field of Extender"), std::string::npos);
  EXPECT_NE(problems_with("/extenders/0/weight", "5").find("extenders[0].weight: expected an int64"), std::string::npos);
  EXPECT_NE(problems_with("/extenders/0/httpTimeout", 5).find("extenders[0].httpTimeout: expected a Go duration"), std::string::npos);
  EXPECT_NE(problems_with("/profiles/0/plugins/placementScore", json::object()).find("unknown field of Plugins"), std::string::npos);
  EXPECT_NE(problems_with("/extenders/0/urlPrefix", nullptr).find("extenders[0].urlPrefix: required"), std::string::npos);
  EXPECT_NE(problems_with("/leaderElection/resourceLock", "endpoints").find("resourceLock value must be \"leases\""), std::string::npos);
  EXPECT_NE(problems_with("/extenders/0/weight", 0).find("must have a positive weight applied to it"), std::string::npos);
  EXPECT_NE(problems_with("/extenders/0/managedResources/0/name", "gpu").find("is an invalid extended resource name"), std::string::npos);
  EXPECT_NE(problems_with("/extenders/0/enableHTTPS", false).find("enableHTTPS: disagrees"), std::string::npos);
  EXPECT_NE(problems_with("/profiles/0/percentageOfNodesToScore", 101).find("not in valid range [0-100]"), std::string::npos);
  EXPECT_NE(problems_with("/leaderElection/leaseDuration", "5s").find("LeaseDuration must be greater than RenewDeadline"), std::string::npos);
  EXPECT_NE(problems_with("/profiles", json::array()).find("profiles: Required value"), std::string::npos);
  json two_binders = good;
  two_binders["extenders"][0]["bindVerb"] = "bind";
  two_binders["extenders"].push_back(two_binders["extenders"][0]);
  two_binders["extenders"][1]["managedResources"] = json::array();
  EXPECT_NE(joined(check_scheduler_config(two_binders, fields())).find("only one extender can implement bind"), std::string::npos);
}

}  // namespace
}  // namespace gangplank::helm_testing
