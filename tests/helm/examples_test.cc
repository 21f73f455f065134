// examples/ refer to each other the way the operator resolves them: queue parents and pools exist, pods
// name a leaf queue that may use their pool, the chart's scheduler name, and a topology level of the pool.
// (That they apply to a real API server is examples_apply_test.cc.)
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/support/yaml_json.h"
#include "tests/helm/support/helm_tool.h"

namespace gangplank::helm_testing {
namespace {

using nlohmann::json;

std::vector<json> load(const std::string& file) {
  return gangplank::testing::ParseYamlDocuments(read_text_file(source_dir() + "/examples/" + file));
}

TEST(Examples, ReferToEachOtherAsTheOperatorResolvesThem) {
  std::map<std::string, json> pools, queues;
  for (const auto& p : load("gpupools.yaml")) pools[p["metadata"]["name"]] = p;
  for (const auto& q : load("queues.yaml")) queues[q["metadata"]["name"]] = q;
  ASSERT_EQ(pools.size(), 2u);
  ASSERT_EQ(queues.size(), 3u);
  std::set<std::string> parents;
  for (const auto& [name, q] : queues) {
    if (q["spec"].contains("parent")) {
      EXPECT_TRUE(queues.count(q["spec"]["parent"])) << name;
      parents.insert(q["spec"]["parent"]);
    }
    for (const auto& p : q["spec"].value("pools", json::array())) EXPECT_TRUE(pools.count(p["name"])) << name << " -> " << p["name"];
  }
  const json values = gangplank::testing::ParseYamlDocuments(read_text_file(chart_dir() + "/values.yaml")).front();
  int members = 0;
  for (const auto& doc : load("pytorchjob.yaml")) {
    if (doc["kind"] == "Namespace") {
      const std::string queue = doc["metadata"]["labels"]["gangplank.io/queue"];
      EXPECT_TRUE(queues.count(queue) && !parents.count(queue)) << queue << " is not a leaf queue";
      continue;
    }
    ASSERT_EQ(doc["kind"], "PyTorchJob");
    for (const auto& [role, spec] : doc["spec"]["pytorchReplicaSpecs"].items()) {
      members += spec["replicas"].get<int>();
      const json& tpl = spec["template"];
      EXPECT_EQ(tpl["spec"]["schedulerName"], values["schedulerName"]) << role;
      const std::string queue = tpl["metadata"]["labels"]["gangplank.io/queue"];
      EXPECT_TRUE(queues.count(queue) && !parents.count(queue)) << role << ": " << queue << " is not a leaf queue";
      const std::string pool = tpl["metadata"]["labels"]["gangplank.io/pool"];
      bool allowed = false;
      for (const auto& p : queues[queue]["spec"]["pools"]) allowed |= p["name"] == pool;
      EXPECT_TRUE(allowed) << queue << " may not use " << pool;
      const json levels = pools[pool]["spec"]["topologyLevels"];
      const std::string preferred = tpl["metadata"]["annotations"]["gangplank.io/topology-preferred"];
      EXPECT_NE(std::find(levels.begin(), levels.end(), preferred), levels.end()) << preferred;
      EXPECT_EQ(tpl["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"], 8) << role;
    }
  }
  EXPECT_EQ(members, 4);
}

}  // namespace
}  // namespace gangplank::helm_testing
