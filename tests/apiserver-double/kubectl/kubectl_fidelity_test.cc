// The real kubectl 1.31 against the double over loopback: every round trip is checked by reading the
// double's state directly, and the failure paths check kubectl's own error output.
#include <iterator>
#include <sstream>

#include "tests/apiserver-double/kubectl/kubectl_fixture.h"

namespace gangplank::apiserver_double::testing {
namespace {

constexpr const char* kCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gpupools.gangplank.io
spec:
  group: gangplank.io
  scope: Namespaced
  names: {plural: gpupools, singular: gpupool, kind: GpuPool, shortNames: [gp]}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
    additionalPrinterColumns:
    - {name: GPUs, type: integer, jsonPath: .spec.gpus}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
)";

std::string pool_yaml(int gpus) {
  return "apiVersion: gangplank.io/v1alpha1\nkind: GpuPool\nmetadata: {name: pool-a}\nspec: {gpus: " + std::to_string(gpus) + "}\n";
}

class KubectlTest : public KubectlFixture {
 protected:
  void install_pool(int gpus) {
    ASSERT_NE(ok({"apply", "-f", "-"}, kCrd).find("created"), std::string::npos);
    ASSERT_NE(ok({"apply", "-f", "-"}, pool_yaml(gpus)).find("gpupool.gangplank.io/pool-a created"), std::string::npos);
  }
};

TEST_F(KubectlTest, ApplyCrdAndCustomResourceThenGetJson) {
  install_pool(8);
  auto crd = server_.get("customresourcedefinitions.apiextensions.k8s.io", "", "gpupools.gangplank.io");
  ASSERT_TRUE(crd);
  auto stored = server_.get("gpupools.gangplank.io", "default", "pool-a");
  ASSERT_TRUE(stored);
  EXPECT_EQ((*stored)["spec"]["gpus"], 8);
  EXPECT_TRUE((*stored)["metadata"]["annotations"].contains("kubectl.kubernetes.io/last-applied-configuration"));

  const json got = json::parse(ok({"get", "gpupool", "pool-a", "-o", "json"}));
  EXPECT_EQ(got["kind"], "GpuPool");
  EXPECT_EQ(got["metadata"]["uid"], (*stored)["metadata"]["uid"]);
  EXPECT_EQ(got["spec"]["gpus"], 8);

  // Re-applying a changed manifest patches it (client-side apply: merge patch for a CR).
  EXPECT_NE(ok({"apply", "-f", "-"}, pool_yaml(4)).find("configured"), std::string::npos);
  EXPECT_EQ(server_.get("gpupools.gangplank.io", "default", "pool-a")->at("spec").at("gpus"), 4);
  EXPECT_EQ(server_.get("gpupools.gangplank.io", "default", "pool-a")->at("metadata").at("generation"), 2);
  EXPECT_NE(ok({"apply", "-f", "-"}, pool_yaml(4)).find("unchanged"), std::string::npos);
}

TEST_F(KubectlTest, GetShowsPrinterColumns) {
  install_pool(8);
  ok({"patch", "gp", "pool-a", "--subresource", "status", "--type", "merge", "-p",
      R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})"});
  const std::string table = ok({"get", "gpupools"});
  std::istringstream lines(table);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  std::istringstream h(header), r(row);
  std::vector<std::string> head{std::istream_iterator<std::string>(h), {}}, cells{std::istream_iterator<std::string>(r), {}};
  EXPECT_EQ(head, (std::vector<std::string>{"NAME", "GPUS", "READY", "AGE"})) << table;
  ASSERT_EQ(cells.size(), 4u) << table;
  EXPECT_EQ(cells[0], "pool-a");
  EXPECT_EQ(cells[1], "8");
  EXPECT_EQ(cells[2], "True");
}

TEST_F(KubectlTest, PatchMergeAndStatusSubresource) {
  install_pool(8);
  ok({"patch", "gpupool", "pool-a", "--type", "merge", "-p", R"({"spec":{"gpus":16},"status":{"ignored":true}})"});
  auto after_spec = *server_.get("gpupools.gangplank.io", "default", "pool-a");
  EXPECT_EQ(after_spec["spec"]["gpus"], 16);
  EXPECT_EQ(after_spec["metadata"]["generation"], 2);
  EXPECT_FALSE(after_spec.contains("status"));

  ok({"patch", "gpupool", "pool-a", "--subresource", "status", "--type", "merge", "-p",
      R"({"status":{"observedGeneration":2},"spec":{"gpus":1}})"});
  auto after_status = *server_.get("gpupools.gangplank.io", "default", "pool-a");
  EXPECT_EQ(after_status["status"]["observedGeneration"], 2);
  EXPECT_EQ(after_status["spec"]["gpus"], 16);
  EXPECT_EQ(after_status["metadata"]["generation"], 2);
}

TEST_F(KubectlTest, WatchPrintsChangesAsTheyHappen) {
  install_pool(8);
  StreamingProcess watch(argv({"get", "gpupools", "--watch"}));
  auto header = watch.next_line(std::chrono::seconds(15));
  ASSERT_TRUE(header);
  EXPECT_NE(header->find("GPUS"), std::string::npos);
  auto first = watch.next_line(std::chrono::seconds(10));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->rfind("pool-a", 0), 0u);
  json changed = *server_.get("gpupools.gangplank.io", "default", "pool-a");
  changed["spec"]["gpus"] = 32;
  server_.put(changed);
  auto update = watch.next_line(std::chrono::seconds(10));
  ASSERT_TRUE(update) << watch.kill_and_collect_stderr();
  std::istringstream cells(*update);
  std::string name, gpus;
  cells >> name >> gpus;
  EXPECT_EQ(name, "pool-a");
  EXPECT_EQ(gpus, "32");
}

TEST_F(KubectlTest, CordonTaintLabelAndDeleteNode) {
  put_node("gpu-1");
  ok({"cordon", "gpu-1"});
  EXPECT_EQ(server_.get("nodes", "", "gpu-1")->at("spec").at("unschedulable"), true);
  ok({"taint", "nodes", "gpu-1", "gangplank.io/spot=true:NoSchedule"});
  auto taints = server_.get("nodes", "", "gpu-1")->at("spec").at("taints");
  ASSERT_EQ(taints.size(), 1u);
  EXPECT_EQ(taints[0]["key"], "gangplank.io/spot");
  EXPECT_EQ(taints[0]["effect"], "NoSchedule");
  ok({"label", "node", "gpu-1", "pool=a"});
  EXPECT_EQ(server_.get("nodes", "", "gpu-1")->at("metadata").at("labels").at("pool"), "a");
  EXPECT_NE(ok({"get", "nodes"}).find("Ready,SchedulingDisabled"), std::string::npos);
  ok({"taint", "nodes", "gpu-1", "gangplank.io/spot-"});
  ok({"uncordon", "gpu-1"});
  auto spec = server_.get("nodes", "", "gpu-1")->at("spec");
  EXPECT_FALSE(spec.contains("taints") && !spec["taints"].empty());
  EXPECT_FALSE(spec.value("unschedulable", false));
  ok({"delete", "node", "gpu-1"});
  EXPECT_FALSE(server_.get("nodes", "", "gpu-1"));
}

TEST_F(KubectlTest, DeleteCustomResource) {
  install_pool(8);
  EXPECT_NE(ok({"delete", "gpupool", "pool-a"}).find("deleted"), std::string::npos);
  EXPECT_FALSE(server_.get("gpupools.gangplank.io", "default", "pool-a"));
  auto listed = kubectl({"get", "gpupools"});
  EXPECT_EQ(listed.exit_code, 0);
  EXPECT_EQ(listed.out, "");
  EXPECT_NE(listed.err.find("No resources found in default namespace"), std::string::npos) << listed.err;
}

TEST_F(KubectlTest, MissingObjectIsNotFound) {
  install_pool(8);
  auto r = kubectl({"get", "gpupool", "nope"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("NotFound"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"nope\" not found"), std::string::npos) << r.err;
}

TEST_F(KubectlTest, StaleReplaceIsConflict) {
  install_pool(8);
  json stale = *server_.get("gpupools.gangplank.io", "default", "pool-a");
  json newer = stale;
  newer["spec"]["gpus"] = 9;
  server_.put(newer);
  stale["spec"]["gpus"] = 10;
  auto r = kubectl({"replace", "-f", "-"}, stale.dump());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the object has been modified"), std::string::npos) << r.err;
  EXPECT_EQ(server_.get("gpupools.gangplank.io", "default", "pool-a")->at("spec").at("gpus"), 9);
}

TEST_F(KubectlTest, WatchFromCompactedVersionIsGone) {
  put_node("n1");
  const std::string old_rv = server_.resource_version();
  put_node("n2");
  server_.compact();
  auto r = kubectl({"get", "--raw", "/api/v1/nodes?watch=1&resourceVersion=" + old_rv});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("too old resource version"), std::string::npos) << r.err;
}

TEST_F(KubectlTest, DoubleBindingIsConflict) {
  server_.put({{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}, {"namespace", "default"}}},
               {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}});
  const json binding = {{"apiVersion", "v1"}, {"kind", "Binding"}, {"metadata", {{"name", "p"}}},
                        {"target", {{"kind", "Node"}, {"name", "gpu-1"}}}};
  const std::string path = (dir_ / "binding.json").string();
  std::ofstream(path) << binding.dump();
  ok({"create", "--raw", "/api/v1/namespaces/default/pods/p/binding", "-f", path});
  EXPECT_EQ(server_.get("pods", "default", "p")->at("spec").at("nodeName"), "gpu-1");
  auto again = kubectl({"create", "--raw", "/api/v1/namespaces/default/pods/p/binding", "-f", path});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("already assigned to node"), std::string::npos) << again.err;
}

TEST_F(KubectlTest, DrainEvictsThroughBudgetAndIsBlockedBy429) {
  put_node("gpu-1");
  for (const char* p : {"w0", "w1", "w2"}) put_running_pod(p, "gpu-1");
  server_.put({{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"}, {"metadata", {{"name", "all"}, {"namespace", "default"}}},
               {"spec", {{"minAvailable", 3}, {"selector", {{"matchLabels", {{"app", "trainer"}}}}}}}});
  auto blocked = kubectl({"drain", "gpu-1", "--force", "--timeout=2s"});
  EXPECT_NE(blocked.exit_code, 0);
  EXPECT_NE((blocked.out + blocked.err).find("disruption budget"), std::string::npos) << blocked.out << blocked.err;
  EXPECT_EQ(server_.list("pods", "default").size(), 3u);
  EXPECT_EQ(server_.get("nodes", "", "gpu-1")->at("spec").at("unschedulable"), true);

  json pdb = *server_.get("poddisruptionbudgets.policy", "default", "all");
  pdb["spec"]["minAvailable"] = 0;
  server_.put(pdb);
  auto drained = kubectl({"drain", "gpu-1", "--force", "--timeout=20s"});
  EXPECT_EQ(drained.exit_code, 0) << drained.out << drained.err;
  EXPECT_TRUE(server_.list("pods", "default").empty());
}

TEST_F(KubectlTest, ReapplyingABuiltInUsesStrategicMergeDirectives) {
  auto pod_yaml = [](const std::string& sidecar_image) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: two, labels: {app: t}}\nspec:\n  containers:\n"
           "  - {name: main, image: train:1}\n  - {name: sidecar, image: " + sidecar_image + "}\n";
  };
  ok({"apply", "-f", "-"}, pod_yaml("log:1"));
  EXPECT_NE(ok({"apply", "-f", "-"}, pod_yaml("log:2")).find("configured"), std::string::npos);
  auto containers = server_.get("pods", "default", "two")->at("spec").at("containers");
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "main");
  EXPECT_EQ(containers[0]["image"], "train:1");
  EXPECT_EQ(containers[1]["image"], "log:2");
  EXPECT_FALSE(containers[1].contains("$setElementOrder/containers"));
  ok({"label", "pod", "two", "app-"});
  EXPECT_FALSE(server_.get("pods", "default", "two")->at("metadata").at("labels").contains("app"));
}

// Splits a kubectl table line on runs of two or more spaces (column names may contain single spaces).
std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size()) break;
    std::size_t end = line.find("  ", i);
    if (end == std::string::npos) end = line.size();
    std::string cell = line.substr(i, end - i);
    while (!cell.empty() && cell.back() == ' ') cell.pop_back();
    cells.push_back(cell);
    i = end;
  }
  return cells;
}

// Every CRD the project ships applies cleanly, and its custom resources list with exactly the CRD's
// normal-priority printer columns.
TEST_F(KubectlTest, ProjectCrdsApplyAndShowTheirPrinterColumns) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(GANGPLANK_CRD_DIR)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  ASSERT_FALSE(files.empty()) << "no CRD manifests under " << GANGPLANK_CRD_DIR;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    ok({"apply", "-f", file.string()});
    const json crd = json::parse(ok({"apply", "-f", file.string(), "--dry-run=client", "-o", "json"}));
    const json& spec = crd["spec"];
    json version;
    for (const auto& v : spec["versions"]) {
      if (v.value("storage", false)) version = v;
    }
    std::vector<std::string> expected = {"NAME"};
    bool has_age = false;
    for (const auto& c : version.value("additionalPrinterColumns", json::array())) {
      if (c.value("priority", 0) != 0) continue;
      std::string name = c["name"];
      has_age |= name == "Age";
      for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      expected.push_back(name);
    }
    if (!has_age) expected.push_back("AGE");
    const bool namespaced = spec["scope"] == "Namespaced";
    const json cr = {{"apiVersion", spec["group"].get<std::string>() + "/" + version["name"].get<std::string>()},
                     {"kind", spec["names"]["kind"]},
                     {"metadata", {{"name", "fidelity"}}},
                     {"spec", minimal_value(version["schema"]["openAPIV3Schema"]["properties"]["spec"])}};
    ok({"create", "-f", "-", "--validate=false"}, cr.dump());
    const std::string plural = spec["names"]["plural"];
    auto stored = server_.get(plural + "." + spec["group"].get<std::string>(), namespaced ? "default" : "", "fidelity");
    ASSERT_TRUE(stored);
    const std::string table = ok({"get", plural + "." + spec["group"].get<std::string>()});
    std::istringstream lines(table);
    std::string header, row;
    std::getline(lines, header);
    std::getline(lines, row);
    EXPECT_EQ(table_cells(header), expected) << table;
    EXPECT_EQ(table_cells(row).front(), "fidelity") << table;
  }
}

// The standalone binary: seeds from a file, writes a kubeconfig kubectl can use, takes faults over its
// control endpoint and exits cleanly on SIGTERM.
TEST_F(KubectlTest, StandaloneBinarySeedsAndServes) {
  const std::string seed = (dir_ / "seed.yaml").string();
  std::ofstream(seed) << "apiVersion: v1\nkind: Node\nmetadata: {name: seeded-gpu}\n";
  const std::string kubeconfig = (dir_ / "binary-kubeconfig").string();
  StreamingProcess binary({GANGPLANK_DOUBLE_BINARY, "--seed", seed, "--kubeconfig-out", kubeconfig,
                           "--fail-status", "500", "--fail-count", "1", "--fail-path", "/never-requested"});
  auto url = binary.next_line(std::chrono::seconds(10));
  ASSERT_TRUE(url) << binary.kill_and_collect_stderr();
  EXPECT_EQ(url->rfind("http://127.0.0.1:", 0), 0u);
  auto get = run_process({GANGPLANK_KUBECTL, "--kubeconfig", kubeconfig, "--cache-dir", (dir_ / "cache2").string(),
                          "get", "nodes", "-o", "name"});
  EXPECT_EQ(get.exit_code, 0) << get.err;
  EXPECT_EQ(get.out, "node/seeded-gpu\n");
  EXPECT_EQ(binary.terminate(), 0);

  StreamingProcess bad({GANGPLANK_DOUBLE_BINARY, "--seed", seed, "--port", "70000"});
  EXPECT_NE(bad.terminate(std::chrono::seconds(2)), 0);
}

}  // namespace
}  // namespace gangplank::apiserver_double::testing
