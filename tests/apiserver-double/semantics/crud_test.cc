// Create/get/update/patch/delete semantics: Status errors, optimistic concurrency, status subresource,
// generation, finalizers, CRDs and their custom resources, discovery and Table output.
#include <fstream>

#include "tests/apiserver-double/semantics/double_fixture.h"

namespace gangplank::apiserver_double::testing {
namespace {

using CrudTest = DoubleTest;

TEST_F(CrudTest, DiscoveryListsBuiltInGroupsAndResources) {
  auto apis = call("GET", "/apis");
  ASSERT_EQ(apis.status, 200);
  std::vector<std::string> names;
  for (const auto& g : apis.body["groups"]) names.push_back(g["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "policy"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "coordination.k8s.io"), names.end());
  auto core = call("GET", "/api/v1");
  ASSERT_EQ(core.status, 200);
  bool binding = false;
  for (const auto& r : core.body["resources"]) binding |= r["name"] == "pods/binding";
  EXPECT_TRUE(binding);
  EXPECT_EQ(call("GET", "/version").body["major"], "1");
  EXPECT_EQ(call("GET", "/apis/nosuch.group/v1").status, 404);
}

TEST_F(CrudTest, CreateGetAndErrorsAreStatusObjects) {
  auto created = call("POST", "/api/v1/namespaces/default/pods", pod("a"));
  ASSERT_EQ(created.status, 201);
  EXPECT_FALSE(created.body["metadata"]["uid"].get<std::string>().empty());
  EXPECT_FALSE(created.body["metadata"]["resourceVersion"].get<std::string>().empty());
  EXPECT_EQ(created.body["status"]["phase"], "Pending");

  auto again = call("POST", "/api/v1/namespaces/default/pods", pod("a"));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.body["kind"], "Status");
  EXPECT_EQ(again.body["reason"], "AlreadyExists");
  EXPECT_EQ(again.body["code"], 409);

  auto missing = call("GET", "/api/v1/namespaces/default/pods/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["reason"], "NotFound");
  EXPECT_EQ(missing.body["details"]["name"], "nope");

  json in_ghost = pod("b");
  in_ghost["metadata"]["namespace"] = "ghost";
  auto bad_ns = call("POST", "/api/v1/namespaces/ghost/pods", in_ghost);
  EXPECT_EQ(bad_ns.status, 404);
  EXPECT_EQ(bad_ns.body["message"], "namespaces \"ghost\" not found");

  auto malformed = call("POST", "/api/v1/namespaces/default/pods", nullptr, {{"Content-Type", "application/json"}});
  EXPECT_EQ(malformed.status, 422);  // no name
  auto garbage = http_request(server_->port(), "POST", "/api/v1/namespaces/default/pods", "{not json");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_NE(garbage.body.find("not valid JSON"), std::string::npos);
}

TEST_F(CrudTest, GenerateNameProducesUniqueNames) {
  json p = pod("");
  p["metadata"].erase("name");
  p["metadata"]["generateName"] = "worker-";
  auto a = call("POST", "/api/v1/namespaces/default/pods", p);
  auto b = call("POST", "/api/v1/namespaces/default/pods", p);
  ASSERT_EQ(a.status, 201);
  ASSERT_EQ(b.status, 201);
  EXPECT_EQ(a.body["metadata"]["name"].get<std::string>().rfind("worker-", 0), 0u);
  EXPECT_NE(a.body["metadata"]["name"], b.body["metadata"]["name"]);
}

TEST_F(CrudTest, StaleResourceVersionOnUpdateIsConflict) {
  auto created = call("POST", "/api/v1/nodes", {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}});
  json first = created.body;
  first["metadata"]["labels"] = {{"a", "1"}};
  auto updated = call("PUT", "/api/v1/nodes/n1", first);
  ASSERT_EQ(updated.status, 200);
  EXPECT_NE(updated.body["metadata"]["resourceVersion"], created.body["metadata"]["resourceVersion"]);

  json stale = created.body;  // still carries the first resourceVersion
  stale["metadata"]["labels"] = {{"a", "2"}};
  auto conflict = call("PUT", "/api/v1/nodes/n1", stale);
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(conflict.body["reason"], "Conflict");
  EXPECT_EQ(server_->Get("nodes", "", "n1")->at("metadata").at("labels").at("a"), "1");

  // A patch carrying a stale resourceVersion is conditional too.
  auto stale_patch = patch("/api/v1/nodes/n1", {{"metadata", {{"resourceVersion", created.body["metadata"]["resourceVersion"]}}}},
                           "application/merge-patch+json");
  EXPECT_EQ(stale_patch.status, 409);
  // No-op update keeps the resourceVersion.
  auto noop = call("PUT", "/api/v1/nodes/n1", updated.body);
  EXPECT_EQ(noop.body["metadata"]["resourceVersion"], updated.body["metadata"]["resourceVersion"]);
  EXPECT_EQ(call("PUT", "/api/v1/nodes/ghost", {{"metadata", {{"name", "ghost"}}}}).status, 404);
}

TEST_F(CrudTest, PatchFlavours) {
  call("POST", "/api/v1/nodes", {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}},
                                 {"spec", {{"taints", {{{"key", "a"}, {"effect", "NoSchedule"}}}}}},
                                 {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}, {{"type", "DiskPressure"}, {"status", "False"}}}}}}});
  auto smp = patch("/api/v1/nodes/n1/status", {{"status", {{"conditions", {{{"type", "Ready"}, {"status", "False"}}}}}}},
                   "application/strategic-merge-patch+json");
  ASSERT_EQ(smp.status, 200) << smp.body.dump();
  ASSERT_EQ(smp.body["status"]["conditions"].size(), 2u);  // merged by type, not replaced
  EXPECT_EQ(smp.body["status"]["conditions"][0]["status"], "False");

  auto taints = patch("/api/v1/nodes/n1", {{"spec", {{"taints", {{{"key", "b"}, {"effect", "NoExecute"}}}}}}},
                      "application/strategic-merge-patch+json");
  ASSERT_EQ(taints.body["spec"]["taints"].size(), 1u);  // taints have no merge key: replaced
  EXPECT_EQ(taints.body["spec"]["taints"][0]["key"], "b");

  auto merge = patch("/api/v1/nodes/n1", {{"spec", {{"unschedulable", true}}}}, "application/merge-patch+json");
  EXPECT_EQ(merge.body["spec"]["unschedulable"], true);

  const std::string rv = merge.body["metadata"]["resourceVersion"];
  auto jp = patch("/api/v1/nodes/n1",
                  json::array({{{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", rv}},
                               {{"op", "add"}, {"path", "/metadata/labels"}, {"value", {{"x", "y"}}}}}),
                  "application/json-patch+json");
  EXPECT_EQ(jp.status, 200) << jp.body.dump();
  auto failed_test = patch("/api/v1/nodes/n1",
                           json::array({{{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", rv}},
                                        {{"op", "remove"}, {"path", "/metadata/labels"}}}),
                           "application/json-patch+json");
  EXPECT_EQ(failed_test.status, 422);
  EXPECT_EQ(server_->Get("nodes", "", "n1")->at("metadata").at("labels").at("x"), "y");
  EXPECT_EQ(call("PATCH", "/api/v1/nodes/n1", {{"a", 1}}, {{"Content-Type", "text/plain"}}).status, 415);
}

TEST_F(CrudTest, CustomResourcesFollowTheirDefinition) {
  auto made = call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd());
  ASSERT_EQ(made.status, 201) << made.body.dump();
  bool established = false;
  for (const auto& c : made.body["status"]["conditions"]) established |= c["type"] == "Established" && c["status"] == "True";
  EXPECT_TRUE(established);
  auto resources = call("GET", "/apis/gangplank.io/v1");
  ASSERT_EQ(resources.status, 200);
  EXPECT_EQ(resources.body["resources"][0]["name"], "gpupools");

  const std::string base = "/apis/gangplank.io/v1/namespaces/default/gpupools";
  json cr = {{"apiVersion", "gangplank.io/v1"}, {"kind", "GpuPool"}, {"metadata", {{"name", "p"}}},
             {"spec", {{"gpus", 8}}}, {"status", {{"ignored", true}}}};
  auto created = call("POST", base, cr);
  ASSERT_EQ(created.status, 201);
  EXPECT_FALSE(created.body.contains("status"));  // status subresource: create ignores status
  EXPECT_EQ(created.body["metadata"]["generation"], 1);

  auto spec = patch(base + "/p", {{"spec", {{"gpus", 16}}}, {"status", {{"x", 1}}}}, "application/merge-patch+json");
  EXPECT_EQ(spec.body["metadata"]["generation"], 2);
  EXPECT_FALSE(spec.body.contains("status"));
  auto status = patch(base + "/p/status", {{"spec", {{"gpus", 99}}}, {"status", {{"observedGeneration", 2}}}},
                      "application/merge-patch+json");
  EXPECT_EQ(status.body["metadata"]["generation"], 2);  // status writes never bump generation
  EXPECT_EQ(status.body["spec"]["gpus"], 16);            // and ignore spec
  EXPECT_EQ(status.body["status"]["observedGeneration"], 2);
  auto labels = patch(base + "/p", {{"metadata", {{"labels", {{"a", "b"}}}}}}, "application/merge-patch+json");
  EXPECT_EQ(labels.body["metadata"]["generation"], 2);  // metadata changes do not bump generation

  EXPECT_EQ(patch(base + "/p", {{"spec", {{"gpus", 1}}}}, "application/strategic-merge-patch+json").status, 415);

  auto table = call("GET", base, nullptr, {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}});
  ASSERT_EQ(table.body["kind"], "Table");
  std::vector<std::string> columns;
  for (const auto& c : table.body["columnDefinitions"]) columns.push_back(c["name"]);
  // Exactly the CRD's printer columns: Age only stands in when a CRD declares none.
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "GPUs", "Ready"}));
  EXPECT_EQ(table.body["rows"][0]["cells"][0], "p");
  EXPECT_EQ(table.body["rows"][0]["cells"][1], 16);

  // Deleting the CRD removes its objects and its API.
  EXPECT_EQ(call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gpupools.gangplank.io").status, 200);
  EXPECT_EQ(call("GET", base).status, 404);
  EXPECT_TRUE(server_->List("customresourcedefinitions.apiextensions.k8s.io").empty());
}

// What a Table row carries (includeObject): PartialObjectMetadata by default, the whole object for
// Object (kubectl --sort-by sorts on it), nothing for None; any other value is refused.
TEST_F(CrudTest, TableRowsCarryTheObjectIncludeObjectAsks) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod("a")).status, 201);
  const std::map<std::string, std::string> table = {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}};
  const std::string list = "/api/v1/namespaces/default/pods";
  const json metadata = call("GET", list, nullptr, table).body["rows"][0]["object"];
  EXPECT_EQ(metadata["kind"], "PartialObjectMetadata");
  EXPECT_EQ(metadata["metadata"]["name"], "a");
  EXPECT_FALSE(metadata.contains("spec"));
  const json object = call("GET", list + "?includeObject=Object", nullptr, table).body["rows"][0]["object"];
  EXPECT_EQ(object["kind"], "Pod");
  EXPECT_EQ(object["apiVersion"], "v1");
  EXPECT_EQ(object["spec"]["containers"][0]["name"], "main");
  EXPECT_TRUE(call("GET", list + "/a?includeObject=None", nullptr, table).body["rows"][0]["object"].is_null());
  const auto bad = call("GET", list + "?includeObject=Bogus", nullptr, table);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body["message"], "Unable to convert to Table as requested: includeObject: Invalid value: \"Bogus\": must be "
                                 "'Metadata', 'Object', 'None', or empty");
}

// kubectl 1.35's "create namespace" body (application/vnd.kubernetes.protobuf): decoded for Namespace,
// 415 for a kind the double does not decode, 400 when it is not the k8s envelope at all.
TEST_F(CrudTest, ProtobufNamespaceCreateIsDecoded) {
  static const unsigned char kubectl_body[] = {
      0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0f, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09, 0x4e, 0x61, 0x6d, 0x65, 0x73, 0x70, 0x61,
      0x63, 0x65, 0x12, 0x1c, 0x0a, 0x14, 0x0a, 0x04, 0x64, 0x65, 0x6d, 0x6f, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a,
      0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x00, 0x1a, 0x02, 0x0a, 0x00, 0x1a, 0x00, 0x22, 0x00};
  const std::map<std::string, std::string> protobuf = {{"Content-Type", "application/vnd.kubernetes.protobuf"}};
  const std::string body(reinterpret_cast<const char*>(kubectl_body), sizeof kubectl_body);
  const RawResponse created = http_request(server_->port(), "POST", "/api/v1/namespaces", body, protobuf);
  EXPECT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json::parse(created.body)["metadata"]["name"], "demo");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/demo").body["status"]["phase"], "Active");

  std::string pod = body;  // the same envelope naming another kind
  pod.replace(pod.find("Namespace"), 9, "PodXXXXXX");
  EXPECT_EQ(http_request(server_->port(), "POST", "/api/v1/namespaces", pod, protobuf).status, 415);
  EXPECT_EQ(http_request(server_->port(), "POST", "/api/v1/namespaces", "{}", protobuf).status, 400);
  EXPECT_EQ(http_request(server_->port(), "POST", "/api/v1/namespaces", body.substr(0, 20), protobuf).status, 400);
}

TEST_F(CrudTest, PutSeedsCustomResourcesWithStatus) {
  ASSERT_EQ(call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd()).status, 201);
  auto stored = server_->put({{"apiVersion", "gangplank.io/v1"}, {"kind", "GpuPool"}, {"metadata", {{"name", "s"}}},
                              {"spec", {{"gpus", 4}}}, {"status", {{"phase", "Ready"}}}});
  EXPECT_EQ(stored["status"]["phase"], "Ready");
  EXPECT_EQ(stored["metadata"]["namespace"], "default");
  EXPECT_EQ(call("GET", "/apis/gangplank.io/v1/namespaces/default/gpupools/s").body["status"]["phase"], "Ready");
  EXPECT_THROW(server_->put({{"apiVersion", "gangplank.io/v9"}, {"kind", "GpuPool"}, {"metadata", {{"name", "x"}}}}),
               std::invalid_argument);
  EXPECT_THROW(server_->put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", json::object()}}), std::invalid_argument);
}

TEST_F(CrudTest, InvalidCrdIsRejected) {
  json bad = crd();
  bad["spec"]["versions"][0]["storage"] = false;
  auto r = call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", bad);
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["reason"], "Invalid");
  bad = crd();
  bad["metadata"]["name"] = "wrong.name";
  EXPECT_EQ(call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", bad).status, 422);

  ASSERT_EQ(call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd()).status, 201);
  auto rescoped = patch("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gpupools.gangplank.io",
                        {{"spec", {{"scope", "Cluster"}}}}, "application/merge-patch+json");
  EXPECT_EQ(rescoped.status, 422);
  EXPECT_NE(rescoped.body["message"].get<std::string>().find("immutable"), std::string::npos);
  EXPECT_EQ(call("GET", "/apis/gangplank.io/v1/namespaces/default/gpupools").status, 200);
}

TEST_F(CrudTest, ClusterScopedCustomResources) {
  ASSERT_EQ(call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("Cluster")).status, 201);
  auto created = call("POST", "/apis/gangplank.io/v1/gpupools", {{"metadata", {{"name", "global"}}}, {"spec", {{"gpus", 2}}}});
  ASSERT_EQ(created.status, 201) << created.body.dump();
  EXPECT_FALSE(created.body["metadata"].contains("namespace"));
  EXPECT_EQ(call("GET", "/apis/gangplank.io/v1/namespaces/default/gpupools/global").status, 404);
  EXPECT_EQ(server_->Get("gpupools.gangplank.io", "", "global")->at("spec").at("gpus"), 2);
}

TEST_F(CrudTest, FinalizersDelayDeletion) {
  json p = pod("f");
  p["metadata"]["finalizers"] = {"gangplank.io/cleanup"};
  call("POST", "/api/v1/namespaces/default/pods", p);
  auto deleting = call("DELETE", "/api/v1/namespaces/default/pods/f");
  EXPECT_EQ(deleting.status, 200);
  ASSERT_TRUE(server_->Get("pods", "default", "f"));
  EXPECT_TRUE(server_->Get("pods", "default", "f")->at("metadata").contains("deletionTimestamp"));
  patch("/api/v1/namespaces/default/pods/f", {{"metadata", {{"finalizers", nullptr}}}}, "application/merge-patch+json");
  EXPECT_FALSE(server_->Get("pods", "default", "f"));
}

TEST_F(CrudTest, DeletePreconditionsAndNamespaceCascade) {
  auto created = call("POST", "/api/v1/namespaces/default/pods", pod("d"));
  auto wrong = call("DELETE", "/api/v1/namespaces/default/pods/d", {{"preconditions", {{"uid", "not-it"}}}});
  EXPECT_EQ(wrong.status, 409);
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/default/pods/d").status, 200);
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/default/pods/d").status, 404);

  call("POST", "/api/v1/namespaces", {{"metadata", {{"name", "team"}}}});
  json q = pod("q");
  q["metadata"]["namespace"] = "team";
  ASSERT_EQ(call("POST", "/api/v1/namespaces/team/pods", q).status, 201);
  call("DELETE", "/api/v1/namespaces/team");
  EXPECT_TRUE(server_->List("pods", "team").empty());
}

TEST_F(CrudTest, ServerSideApplyCreatesAndMerges) {
  const std::string path = "/api/v1/nodes/ssa?fieldManager=gangplank";
  auto created = patch(path, {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "ssa"}, {"labels", {{"a", "1"}}}}}},
                       "application/apply-patch+yaml");
  ASSERT_EQ(created.status, 201) << created.body.dump();
  auto merged = patch(path, {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "ssa"}, {"labels", {{"b", "2"}}}}}},
                      "application/apply-patch+yaml");
  EXPECT_EQ(merged.body["metadata"]["labels"].size(), 2u);
  EXPECT_EQ(patch("/api/v1/nodes/ssa", {{"metadata", {{"name", "ssa"}}}}, "application/apply-patch+yaml").status, 400);
}

TEST_F(CrudTest, DryRunNeverPersists) {
  call("POST", "/api/v1/nodes", {{"metadata", {{"name", "n"}}}});
  const std::string rv = server_->ResourceVersion();
  EXPECT_EQ(call("POST", "/api/v1/nodes?dryRun=All", {{"metadata", {{"name", "m"}}}}).status, 201);
  auto patched = patch("/api/v1/nodes/n?dryRun=All", {{"spec", {{"unschedulable", true}}}}, "application/merge-patch+json");
  EXPECT_EQ(patched.status, 200);
  EXPECT_EQ(patched.body["spec"]["unschedulable"], true);
  EXPECT_EQ(call("DELETE", "/api/v1/nodes/n?dryRun=All").status, 200);
  EXPECT_EQ(server_->ResourceVersion(), rv);
  EXPECT_FALSE(server_->Get("nodes", "", "m"));
  EXPECT_FALSE(server_->Get("nodes", "", "n")->contains("spec"));
}

TEST_F(CrudTest, OversizedBodyIs413) {
  DoubleOptions o;
  o.max_request_body_bytes = 1024;
  ApiServerDouble small(o);
  small.Start();
  auto r = http_request(small.port(), "POST", "/api/v1/namespaces/default/pods", std::string(4096, ' '));
  EXPECT_EQ(r.status, 413);
  small.Stop();
}

TEST_F(CrudTest, SeedFileLoadsYamlAndReportsBadInput) {
  const std::string path = ::testing::TempDir() + "/seed.yaml";
  {
    std::ofstream out(path);
    out << "apiVersion: v1\nkind: Node\nmetadata:\n  name: seeded\n  labels: {gpu: \"8\"}\n---\n"
        << "apiVersion: v1\nkind: Pod\nmetadata: {name: sp}\nspec: {nodeName: seeded}\nstatus: {phase: Running}\n";
  }
  EXPECT_EQ(server_->SeedFile(path), 2u);
  EXPECT_EQ(server_->Get("nodes", "", "seeded")->at("metadata").at("labels").at("gpu"), "8");
  EXPECT_EQ(server_->Get("pods", "default", "sp")->at("status").at("phase"), "Running");
  const std::string bad = ::testing::TempDir() + "/bad.yaml";
  {
    std::ofstream out(bad);
    out << "apiVersion: v1\nkind: Gadget\nmetadata: {name: x}\n";
  }
  try {
    server_->SeedFile(bad);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("Gadget"), std::string::npos);
  }
}

}  // namespace
}  // namespace gangplank::apiserver_double::testing
