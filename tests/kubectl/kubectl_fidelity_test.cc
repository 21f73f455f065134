// The real kubectl against the real kube-apiserver with the kinds and verbs gangplank's users and charts
// use: every round trip is checked by reading the object back through kubectl, and the failure paths
// check kubectl's own error output.
#include <iterator>
#include <sstream>

#include "tests/kubectl/kubectl_fixture.h"

namespace gangplank::testing::kubectl {
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
    apply_crd_text(kCrd);
    ASSERT_NE(ok({"apply", "-f", "-"}, pool_yaml(gpus)).find("gpupool.gangplank.io/pool-a created"), std::string::npos);
  }
  json pool() { return find("gpupool", "pool-a").value_or(json()); }
};

TEST_F(KubectlTest, ApplyCrdAndCustomResourceThenGetJson) {
  install_pool(8);
  ASSERT_TRUE(find("crd", "gpupools.gangplank.io"));
  const json got = pool();
  EXPECT_EQ(got["kind"], "GpuPool");
  EXPECT_EQ(got["spec"]["gpus"], 8);
  EXPECT_FALSE(got["metadata"].value("uid", "").empty());
  EXPECT_TRUE(got["metadata"]["annotations"].contains("kubectl.kubernetes.io/last-applied-configuration"));
  EXPECT_EQ(got["metadata"]["generation"], 1);

  // Re-applying a changed manifest patches it (client-side apply: merge patch for a CR).
  EXPECT_NE(ok({"apply", "-f", "-"}, pool_yaml(4)).find("configured"), std::string::npos);
  EXPECT_EQ(pool()["spec"]["gpus"], 4);
  EXPECT_EQ(pool()["metadata"]["generation"], 2);
  EXPECT_EQ(pool()["metadata"]["uid"], got["metadata"]["uid"]);
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
  // No AGE: a CRD that declares printer columns gets exactly those (Age only stands in for none).
  EXPECT_EQ(head, (std::vector<std::string>{"NAME", "GPUS", "READY"})) << table;
  ASSERT_EQ(cells.size(), 3u) << table;
  EXPECT_EQ(cells[0], "pool-a");
  EXPECT_EQ(cells[1], "8");
  EXPECT_EQ(cells[2], "True");
}

TEST_F(KubectlTest, PatchMergeAndStatusSubresource) {
  install_pool(8);
  ok({"patch", "gpupool", "pool-a", "--type", "merge", "-p", R"({"spec":{"gpus":16},"status":{"ignored":true}})"});
  auto after_spec = pool();
  EXPECT_EQ(after_spec["spec"]["gpus"], 16);
  EXPECT_EQ(after_spec["metadata"]["generation"], 2);
  EXPECT_FALSE(after_spec.contains("status"));

  ok({"patch", "gpupool", "pool-a", "--subresource", "status", "--type", "merge", "-p",
      R"({"status":{"observedGeneration":2},"spec":{"gpus":1}})"});
  auto after_status = pool();
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
  ok({"patch", "gpupool", "pool-a", "--type", "merge", "-p", R"({"spec":{"gpus":32}})"});
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
  auto node = [&] { return find("node", "gpu-1").value_or(json()); };
  ok({"cordon", "gpu-1"});
  EXPECT_EQ(node()["spec"]["unschedulable"], true);
  ok({"taint", "nodes", "gpu-1", "gangplank.io/spot=true:NoSchedule"});
  // The node lifecycle controller adds node.kubernetes.io/unschedulable:NoSchedule to a cordoned node.
  // Only the test's own taint is compared.
  json taints = json::array();
  const json tainted = node();
  for (const auto& t : tainted["spec"]["taints"]) {
    if (t["key"] != "node.kubernetes.io/unschedulable") taints.push_back(t);
  }
  ASSERT_EQ(taints.size(), 1u);
  EXPECT_EQ(taints[0]["key"], "gangplank.io/spot");
  EXPECT_EQ(taints[0]["effect"], "NoSchedule");
  ok({"label", "node", "gpu-1", "pool=a"});
  EXPECT_EQ(node()["metadata"]["labels"]["pool"], "a");
  EXPECT_NE(ok({"get", "nodes"}).find("Ready,SchedulingDisabled"), std::string::npos);
  ok({"taint", "nodes", "gpu-1", "gangplank.io/spot-"});
  ok({"uncordon", "gpu-1"});
  EXPECT_TRUE(gangplank::testing::WaitUntil([&] {  // the controller lifts its taint a moment after uncordon
    const json spec = node()["spec"];
    return !(spec.contains("taints") && !spec["taints"].empty()) && !spec.value("unschedulable", false);
  }, std::chrono::seconds(20))) << node().dump();
  ok({"delete", "node", "gpu-1"});
  EXPECT_FALSE(find("node", "gpu-1"));
  EXPECT_NE(rejected({"get", "node", "gpu-1"}).find("nodes \"gpu-1\" not found"), std::string::npos);
}

TEST_F(KubectlTest, DeleteCustomResource) {
  install_pool(8);
  EXPECT_NE(ok({"delete", "gpupool", "pool-a"}).find("deleted"), std::string::npos);
  EXPECT_FALSE(find("gpupool", "pool-a"));
  auto listed = kubectl({"get", "gpupools"});
  EXPECT_EQ(listed.exit_code, 0);
  EXPECT_EQ(listed.out, "");
  EXPECT_NE(listed.err.find("No resources found in " + ns() + " namespace"), std::string::npos) << listed.err;
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
  json stale = pool();
  ok({"patch", "gpupool", "pool-a", "--type", "merge", "-p", R"({"spec":{"gpus":9}})"});
  stale["spec"]["gpus"] = 10;
  auto r = kubectl({"replace", "-f", "-"}, stale.dump());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the object has been modified"), std::string::npos) << r.err;
  EXPECT_EQ(pool()["spec"]["gpus"], 9);
}

TEST_F(KubectlTest, DoubleBindingIsConflict) {
  ok({"create", "-f", "-"}, json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}},
                                 {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}}.dump());
  const json binding = {{"apiVersion", "v1"}, {"kind", "Binding"}, {"metadata", {{"name", "p"}}},
                        {"target", {{"kind", "Node"}, {"name", "gpu-1"}}}};
  const std::string path = (dir_ / "binding.json").string();
  std::ofstream(path) << binding.dump();
  const std::string binding_path = "/api/v1/namespaces/" + ns() + "/pods/p/binding";
  ok({"create", "--raw", binding_path, "-f", path});
  EXPECT_EQ(find("pod", "p").value_or(json())["spec"]["nodeName"], "gpu-1");
  auto again = kubectl({"create", "--raw", binding_path, "-f", path});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("already assigned to node"), std::string::npos) << again.err;
}

TEST_F(KubectlTest, DrainEvictsThroughBudgetAndIsBlockedBy429) {
  put_node("gpu-1");
  for (const char* p : {"w0", "w1", "w2"}) put_running_pod(p, "gpu-1");
  ok({"create", "-f", "-"}, json{{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"}, {"metadata", {{"name", "all"}}},
                                 {"spec", {{"minAvailable", 3}, {"selector", {{"matchLabels", {{"app", "trainer"}}}}}}}}.dump());
  auto blocked = kubectl({"drain", "gpu-1", "--force", "--timeout=2s"});
  EXPECT_NE(blocked.exit_code, 0);
  EXPECT_NE((blocked.out + blocked.err).find("disruption budget"), std::string::npos) << blocked.out << blocked.err;
  EXPECT_EQ(items("pods").size(), 3u);
  EXPECT_EQ(find("node", "gpu-1").value_or(json())["spec"]["unschedulable"], true);

  ok({"patch", "pdb", "all", "--type", "merge", "-p", R"({"spec":{"minAvailable":0}})"});
  auto drained = kubectl({"drain", "gpu-1", "--force", "--timeout=30s"});
  EXPECT_EQ(drained.exit_code, 0) << drained.out << drained.err;
  EXPECT_TRUE(items("pods").empty());
}

TEST_F(KubectlTest, ReapplyingABuiltInUsesStrategicMergeDirectives) {
  auto pod_yaml = [](const std::string& sidecar_image) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: two, labels: {app: t}}\nspec:\n  containers:\n"
           "  - {name: main, image: train:1}\n  - {name: sidecar, image: " + sidecar_image + "}\n";
  };
  ok({"apply", "-f", "-"}, pod_yaml("log:1"));
  EXPECT_NE(ok({"apply", "-f", "-"}, pod_yaml("log:2")).find("configured"), std::string::npos);
  auto containers = find("pod", "two").value_or(json())["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "main");
  EXPECT_EQ(containers[0]["image"], "train:1");
  EXPECT_EQ(containers[1]["image"], "log:2");
  EXPECT_FALSE(containers[1].contains("$setElementOrder/containers"));
  ok({"label", "pod", "two", "app-"});
  EXPECT_FALSE(find("pod", "two").value_or(json())["metadata"].value("labels", json::object()).contains("app"));
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
// normal-priority printer columns (AGE alone when it declares none).
TEST_F(KubectlTest, ProjectCrdsApplyAndShowTheirPrinterColumns) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(GANGPLANK_CRD_DIR)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  ASSERT_FALSE(files.empty()) << "no CRD manifests under " << GANGPLANK_CRD_DIR;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    apply_crd_file(file.string());
    const json crd = json::parse(ok({"apply", "-f", file.string(), "--dry-run=client", "-o", "json"}));
    const json& spec = crd["spec"];
    json version;
    for (const auto& v : spec["versions"]) {
      if (v.value("storage", false)) version = v;
    }
    std::vector<std::string> expected = {"NAME"};
    const json columns = version.value("additionalPrinterColumns", json::array());
    for (const auto& c : columns) {
      if (c.value("priority", 0) != 0) continue;
      std::string name = c["name"];
      for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      expected.push_back(name);
    }
    if (columns.empty()) expected.push_back("AGE");
    const json cr = {{"apiVersion", spec["group"].get<std::string>() + "/" + version["name"].get<std::string>()},
                     {"kind", spec["names"]["kind"]},
                     {"metadata", {{"name", "fidelity"}}},
                     {"spec", minimal_value(version["schema"]["openAPIV3Schema"]["properties"]["spec"])}};
    ok({"create", "-f", "-", "--validate=false"}, cr.dump());
    const std::string plural = spec["names"]["plural"];
    ASSERT_TRUE(find(plural + "." + spec["group"].get<std::string>(), "fidelity"));
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
// Events as `kubectl get events` shows them: the events table's columns, and --sort-by on a field only
// the full object has (kubectl asks for the table with includeObject=Object and sorts on the objects).
TEST_F(KubectlTest, EventsListAndSortByLastTimestamp) {
  auto event = [&](const std::string& name, const std::string& reason, const std::string& last) {
    return json{{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", {{"name", name}}},
                {"involvedObject", {{"kind", "Pod"}, {"name", "trainer-0"}, {"namespace", ns()}}},
                {"reason", reason}, {"message", reason + " happened"}, {"type", "Normal"}, {"count", 1},
                {"source", {{"component", "gangplank-test"}}},
                {"firstTimestamp", last}, {"lastTimestamp", last}};
  };
  // Created newest first, so a sorted listing is not the creation order by luck.
  ok({"create", "-f", "-"}, event("later", "Placed", "2026-02-01T00:00:00Z").dump());
  ok({"create", "-f", "-"}, event("earlier", "Queued", "2026-01-01T00:00:00Z").dump());
  for (const std::vector<std::string>& args : {std::vector<std::string>{"get", "events", "-n", ns(), "--sort-by=.lastTimestamp"},
                                               std::vector<std::string>{"get", "events", "--sort-by=.lastTimestamp"}}) {
    const auto r = kubectl(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("No resources found"), std::string::npos) << r.err;
    std::istringstream lines(r.out);
    std::string header, first, second;
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    EXPECT_EQ(table_cells(header), (std::vector<std::string>{"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"})) << r.out;
    ASSERT_EQ(table_cells(first).size(), 5u) << r.out;
    ASSERT_EQ(table_cells(second).size(), 5u) << r.out;
    EXPECT_EQ(table_cells(first)[2], "Queued") << r.out;
    EXPECT_EQ(table_cells(first)[3], "pod/trainer-0") << r.out;
    EXPECT_EQ(table_cells(second)[2], "Placed") << r.out;
  }
}

// kubectl 1.35 sends its typed creates ("kubectl create namespace") as protobuf, not JSON.
TEST_F(KubectlTest, CreateNamespaceImperatively) {
  const std::string name = ns() + "-made";
  cluster_objects_.push_back("namespace/" + name);
  EXPECT_EQ(ok({"create", "namespace", name}), "namespace/" + name + " created\n");
  const json made = find("namespace", name).value_or(json());
  EXPECT_EQ(made["metadata"]["name"], name);
  EXPECT_EQ(made["status"]["phase"], "Active");
  EXPECT_NE(rejected({"create", "namespace", name}).find("namespaces \"" + name + "\" already exists"), std::string::npos);
  EXPECT_NE(ok({"create", "namespace", name + "-dry", "--dry-run=server"}).find("created (server dry run)"), std::string::npos);
  EXPECT_FALSE(find("namespace", name + "-dry"));
}

}  // namespace
}  // namespace gangplank::testing::kubectl
