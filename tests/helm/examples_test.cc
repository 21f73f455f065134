// examples/: the sample GPUPools, Queues and PyTorchJob apply with the real kubectl to the API-server
// double against the repository's CRDs (schemas and CEL rules) and a Kubeflow PyTorchJob stand-in, and
// they refer to each other the way the operator resolves them: queue parents and pools exist, pods name
// a leaf queue that may use their pool, the chart's scheduler name, and a topology level of the pool.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "apiserver-double/yaml_json.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/kubectl_on_double.h"

namespace gangplank::helm_testing {
namespace {

using nlohmann::json;

std::vector<json> load(const std::string& file) {
  return apiserver_double::ParseYamlDocuments(read_text_file(source_dir() + "/examples/" + file));
}

TEST(Examples, ApplyToTheDoubleAgainstTheRealCrds) {
  ASSERT_EQ(KubectlOnDouble::unavailable_reason(), "");
  KubectlOnDouble cluster("examples");
  ASSERT_EQ(cluster.kubectl({"apply", "-f", source_dir() + "/crds", "-f", source_dir() + "/tests/helm/testdata/crds/kubeflow-pytorchjob.crd.yaml"})
                .exit_code,
            0);
  const auto applied = cluster.kubectl({"apply", "-f", source_dir() + "/examples"});
  ASSERT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_EQ(applied.err.find("Warning"), std::string::npos) << applied.err;  // no field the CRDs do not know
  for (const char* line : {"gpupool.gangplank.io/h100 created", "gpupool.gangplank.io/a100-spot created", "queue.gangplank.io/research created",
                           "queue.gangplank.io/team-llm created", "queue.gangplank.io/team-vision created",
                           "pytorchjob.kubeflow.org/llama-finetune created"}) {
    EXPECT_NE(applied.out.find(line), std::string::npos) << line << "\n" << applied.out;
  }
  EXPECT_NE(cluster.kubectl({"get", "gpupools"}).out.find("h100"), std::string::npos);
  // Defaults from the CRD schema are applied, as a real API server would.
  EXPECT_EQ(cluster.api().Get("gpupools.gangplank.io", "", "h100")->value("/spec/capacityType"_json_pointer, std::string()), "OnDemand");
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
  const json values = apiserver_double::ParseYamlDocuments(read_text_file(chart_dir() + "/values.yaml")).front();
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
