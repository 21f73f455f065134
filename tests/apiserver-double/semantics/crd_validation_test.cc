// Custom resources against their CRD's schema over HTTP: 422 Invalid with kube-apiserver's wording on
// every write path, pruning and fieldValidation, defaulting on write and on read, CEL rules,
// ratcheting, and CRDs whose rules do not compile. Uses the GPUPool test CRD (testdata/).
#include <fstream>
#include <iterator>

#include "tests/support/yaml_json.h"
#include "tests/apiserver-double/semantics/double_fixture.h"

namespace gangplank::apiserver_double::testing {
namespace {

constexpr const char* kPools = "/apis/gangplank.io/v1alpha1/gpupools";

json gpupool_crd() {
  std::ifstream in(std::string(GANGPLANK_TESTDATA_DIR) + "/gpupool-with-queues.crd.yaml");
  return gangplank::testing::ParseYamlDocuments(std::string(std::istreambuf_iterator<char>(in), {})).at(0);
}

json pool(const std::string& name, json spec) {
  return {{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"}, {"metadata", {{"name", name}}}, {"spec", std::move(spec)}};
}

class CrdValidationTest : public DoubleTest {
 protected:
  void SetUp() override {
    DoubleTest::SetUp();
    ASSERT_EQ(call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gpupool_crd()).status, 201);
  }
  // Replaces the CRD's schema for spec (e.g. to tighten it under existing objects).
  void edit_spec_schema(const std::function<void(json&)>& edit) {
    json crd = *server_->Get("customresourcedefinitions.apiextensions.k8s.io", "", "gpupools.gangplank.io");
    edit(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]);
    ASSERT_EQ(call("PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gpupools.gangplank.io", crd).status, 200);
  }
  Reply create_pool(const std::string& name, const json& spec, const std::string& query = "") {
    return call("POST", std::string(kPools) + query, pool(name, spec));
  }
};

TEST_F(CrdValidationTest, InvalidCreateIs422WithEveryCause) {
  const auto r = create_pool("bad", {{"spot", {{"reclaimPolicy", "X"}}}, {"queues", {{{"name", "a"}, {"weight", -1}}}}});
  ASSERT_EQ(r.status, 422);
  EXPECT_EQ(r.body["reason"], "Invalid");
  EXPECT_EQ(r.body["message"],
            R"(GPUPool.gangplank.io "bad" is invalid: [spec.queues[0].weight: Invalid value: -1: spec.queues[0].weight in body should be greater than or equal to 0, )"
            R"(spec.spot.reclaimPolicy: Unsupported value: "X": supported values: "CheckpointThenEvict", "Evict", )"
            R"(<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation])");
  const json& d = r.body["details"];
  EXPECT_EQ(d["name"], "bad");
  EXPECT_EQ(d["group"], "gangplank.io");
  EXPECT_EQ(d["kind"], "GPUPool");
  ASSERT_EQ(d["causes"].size(), 3u);
  EXPECT_EQ(d["causes"][1], (json{{"reason", "FieldValueNotSupported"}, {"field", "spec.spot.reclaimPolicy"},
                                  {"message", R"(Unsupported value: "X": supported values: "CheckpointThenEvict", "Evict")"}}));
  EXPECT_EQ(call("GET", std::string(kPools) + "/bad").status, 404);

  json no_spec = pool("nospec", json::object());
  no_spec.erase("spec");
  const auto missing = call("POST", kPools, no_spec);
  EXPECT_EQ(missing.status, 422);
  EXPECT_EQ(missing.body["details"]["causes"][0]["field"], "spec");
  EXPECT_EQ(create_pool("dry", {{"queues", {{{"name", "a"}, {"weight", -1}}}}}, "?dryRun=All").status, 422);
}

TEST_F(CrdValidationTest, CreateDefaultsAndStoresTheDefaults) {
  const auto r = create_pool("good", {{"spot", json::object()}, {"queues", {{{"name", "a"}}}}});
  ASSERT_EQ(r.status, 201) << r.body.dump();
  EXPECT_EQ(r.body["spec"]["spot"]["reclaimPolicy"], "CheckpointThenEvict");
  EXPECT_EQ(r.body["spec"]["queues"][0]["weight"], 1);
  const json stored = *server_->Get("gpupools.gangplank.io", "", "good");
  EXPECT_EQ(stored["spec"]["spot"]["checkpointGraceSeconds"], 90);
  EXPECT_EQ(stored["spec"]["queues"][0]["guaranteedGPUs"], 0);
}

TEST_F(CrdValidationTest, UnknownFieldsUnderEachFieldValidation) {
  const json spec = {{"colour", "red"}, {"queues", {{{"name", "a"}, {"size", 3}}}}};
  const auto strict = create_pool("p", spec, "?fieldValidation=Strict");
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(strict.body["reason"], "BadRequest");
  EXPECT_EQ(strict.body["message"], R"(GPUPool in version "v1alpha1" cannot be handled as a GPUPool: strict decoding error: )"
                                    R"(unknown field "spec.colour", unknown field "spec.queues[0].size")");

  const auto warned = create_pool("p", spec);  // Warn is the default
  ASSERT_EQ(warned.status, 201);
  EXPECT_EQ(warned.headers.at("warning"), R"(299 - "unknown field \"spec.colour\"", 299 - "unknown field \"spec.queues[0].size\"")");
  EXPECT_FALSE(warned.body["spec"].contains("colour"));
  EXPECT_FALSE(server_->Get("gpupools.gangplank.io", "", "p")->at("spec").at("queues")[0].contains("size"));

  const auto ignored = create_pool("q", spec, "?fieldValidation=Ignore");
  EXPECT_EQ(ignored.status, 201);
  EXPECT_EQ(ignored.headers.count("warning"), 0u);
  EXPECT_EQ(create_pool("r", spec, "?fieldValidation=Loud").status, 400);

  const auto patched = patch(std::string(kPools) + "/p?fieldValidation=Strict", {{"spec", {{"shade", 1}}}}, "application/merge-patch+json");
  EXPECT_EQ(patched.status, 400);
  EXPECT_EQ(patched.body["message"], R"(strict decoding error: unknown field "spec.shade")");
}

TEST_F(CrdValidationTest, EveryWritePathValidates) {
  const auto created = create_pool("p", {{"queues", {{{"name", "a"}, {"weight", 2}}}}});
  ASSERT_EQ(created.status, 201);
  json bad = created.body;
  bad["spec"]["queues"][0]["weight"] = -3;
  EXPECT_EQ(call("PUT", std::string(kPools) + "/p", bad).status, 422);
  EXPECT_EQ(patch(std::string(kPools) + "/p", {{"spec", {{"spot", {{"reclaimPolicy", "Never"}}}}}}, "application/merge-patch+json").status, 422);
  const auto jp = patch(std::string(kPools) + "/p", json::array({{{"op", "replace"}, {"path", "/spec/queues/0/weight"}, {"value", -1}}}),
                        "application/json-patch+json");
  EXPECT_EQ(jp.status, 422);
  EXPECT_EQ(jp.body["details"]["causes"][0]["field"], "spec.queues[0].weight");
  const auto dup = patch(std::string(kPools) + "/p", {{"spec", {{"queues", {{{"name", "a"}}, {{"name", "a"}}}}}}}, "application/merge-patch+json");
  EXPECT_EQ(dup.status, 422);
  EXPECT_EQ(dup.body["message"], R"(GPUPool.gangplank.io "p" is invalid: spec.queues[1]: Duplicate value: {"name":"a"})");
  EXPECT_EQ(server_->Get("gpupools.gangplank.io", "", "p")->at("spec").at("queues")[0].at("weight"), 2);  // nothing got through
}

TEST_F(CrdValidationTest, ServerSideApplyChecksThePatchAgainstTheSchema) {
  const std::string target = std::string(kPools) + "/applied?fieldManager=test";
  const auto unknown = patch(target, pool("applied", {{"colour", "red"}}), "application/apply-patch+yaml");
  EXPECT_EQ(unknown.status, 500);
  EXPECT_EQ(unknown.body["message"],
            "failed to create typed patch object (/applied; gangplank.io/v1alpha1, Kind=GPUPool): .spec.colour: field not declared in schema");
  EXPECT_EQ(patch(target, pool("applied", {{"queues", {{{"name", "a"}, {"weight", -1}}}}}), "application/apply-patch+yaml").status, 422);
  EXPECT_EQ(patch(target + "&dryRun=All", pool("applied", {{"queues", {{{"name", "a"}, {"weight", -1}}}}}), "application/apply-patch+yaml").status,
            422);
  const auto made = patch(target, pool("applied", {{"queues", {{{"name", "a"}}}}}), "application/apply-patch+yaml");
  ASSERT_EQ(made.status, 201);
  EXPECT_EQ(made.body["spec"]["queues"][0]["weight"], 1);
  EXPECT_EQ(patch(target, pool("applied", {{"spot", {{"reclaimPolicy", "X"}}}}), "application/apply-patch+yaml").status, 422);
}

TEST_F(CrdValidationTest, CelRuleFailsWithItsMessage) {
  ASSERT_EQ(create_pool("p", {{"queues", {{{"name", "a"}, {"guaranteedGPUs", 2}}}}}).status, 201);
  const auto r = patch(std::string(kPools) + "/p", {{"spec", {{"queues", {{{"name", "a"}, {"guaranteedGPUs", 4}, {"limitGPUs", 2}}}}}}},
                       "application/merge-patch+json");
  ASSERT_EQ(r.status, 422);
  EXPECT_EQ(r.body["message"], R"(GPUPool.gangplank.io "p" is invalid: spec.queues[0]: Invalid value: limitGPUs must not be below guaranteedGPUs)");
}

TEST_F(CrdValidationTest, StatusWritesValidateTheWholeObjectWithRatcheting) {
  ASSERT_EQ(create_pool("p", {{"queues", {{{"name", "a"}, {"guaranteedGPUs", 8}}}}}).status, 201);
  const std::string status = std::string(kPools) + "/p/status";
  const auto bad = patch(status, {{"status", {{"conditions", {{{"type", "Ready"}, {"status", "Maybe"}}}}}}}, "application/merge-patch+json");
  ASSERT_EQ(bad.status, 422);
  EXPECT_EQ(bad.body["details"]["causes"][0]["field"], "status.conditions[0].status");
  // Tighten the schema under the stored object: its unchanged spec no longer blocks status writes...
  edit_spec_schema([](json& spec) { spec["properties"]["queues"]["items"]["properties"]["guaranteedGPUs"]["maximum"] = 4; });
  EXPECT_EQ(patch(status, {{"status", {{"capacityGPUs", 16}}}}, "application/merge-patch+json").status, 200);
  EXPECT_EQ(patch(std::string(kPools) + "/p", {{"spec", {{"topologyLevels", {"zone"}}}}}, "application/merge-patch+json").status, 200);
  // ...but changing the now-invalid value to another invalid one is refused.
  const auto changed = patch(std::string(kPools) + "/p", {{"spec", {{"queues", {{{"name", "a"}, {"guaranteedGPUs", 6}}}}}}},
                             "application/merge-patch+json");
  EXPECT_EQ(changed.status, 422);
  EXPECT_EQ(changed.body["details"]["causes"][0]["message"],
            "Invalid value: 6: spec.queues[0].guaranteedGPUs in body should be less than or equal to 4");
}

TEST_F(CrdValidationTest, DefaultsAddedLaterAppearOnRead) {
  ASSERT_EQ(create_pool("p", {{"queues", {{{"name", "a"}}}}}).status, 201);
  edit_spec_schema([](json& spec) { spec["properties"]["tier"] = {{"type", "string"}, {"default", "standard"}}; });
  EXPECT_EQ(call("GET", std::string(kPools) + "/p").body["spec"]["tier"], "standard");
  EXPECT_EQ(call("GET", kPools).body["items"][0]["spec"]["tier"], "standard");
  EXPECT_FALSE(server_->Get("gpupools.gangplank.io", "", "p")->at("spec").contains("tier"));  // not written back
}

TEST_F(CrdValidationTest, TransitionRulesGuardUpdates) {
  edit_spec_schema([](json& spec) {
    spec["properties"]["topologyLevels"]["x-kubernetes-validations"] = {{{"rule", "self == oldSelf"}, {"message", "topologyLevels is immutable"}}};
  });
  ASSERT_EQ(create_pool("p", {{"topologyLevels", {"zone"}}}).status, 201);
  const auto r = patch(std::string(kPools) + "/p", {{"spec", {{"topologyLevels", {"rack"}}}}}, "application/merge-patch+json");
  ASSERT_EQ(r.status, 422);
  EXPECT_EQ(r.body["message"], R"(GPUPool.gangplank.io "p" is invalid: spec.topologyLevels: Invalid value: topologyLevels is immutable)");
  EXPECT_EQ(patch(std::string(kPools) + "/p", {{"spec", {{"preemption", {{"maxGangsPerHour", 2}}}}}}, "application/merge-patch+json").status, 200);
}

TEST_F(CrdValidationTest, CrdWithABrokenRuleIsRefused) {
  json crd = gpupool_crd();
  crd["metadata"]["name"] = "brokens.gangplank.io";
  crd["spec"]["names"] = {{"plural", "brokens"}, {"kind", "Broken"}};
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] = {{{"rule", "self.queues.size( > 1"}}};
  const auto r = call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  ASSERT_EQ(r.status, 422);
  EXPECT_EQ(r.body["details"]["causes"][0]["field"],
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule");
  EXPECT_NE(r.body["message"].get<std::string>().find("compilation failed: ERROR: <input>:1:19: Syntax error"), std::string::npos)
      << r.body["message"];
  EXPECT_EQ(call("GET", "/apis/gangplank.io/v1alpha1/brokens").status, 404);
}

TEST_F(CrdValidationTest, DirectPutIsValidatedAndDefaultedToo) {
  EXPECT_THROW(server_->put(pool("bad", {{"queues", {{{"name", "a"}, {"weight", -1}}}}})), std::runtime_error);
  const json stored = server_->put(pool("ok", {{"queues", {{{"name", "a"}}}}, {"colour", "red"}}));
  EXPECT_EQ(stored["spec"]["queues"][0]["weight"], 1);
  EXPECT_FALSE(stored["spec"].contains("colour"));
}

}  // namespace
}  // namespace gangplank::apiserver_double::testing
