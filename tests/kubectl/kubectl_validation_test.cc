// The real kubectl against custom resources kube-apiserver validates: what a person sees for an invalid
// resource, an unknown field (Strict, Warn, server-side apply), a CEL rule, defaults coming back from
// `get -o json`, and the server serving on after every refusal. Most cases use the GPUPool test CRD
// (testdata/, stable); ProjectGpuPoolCrd uses crds/gpupool.gangplank.io.yaml itself, asserting only what
// holds across its versions (spot, preemption, topologyLevels).
#include "tests/kubectl/kubectl_fixture.h"

namespace gangplank::testing::kubectl {
namespace {

// A GPUPool manifest with the given spec (YAML flow or block, indented by two).
std::string pool_yaml(const std::string& name, const std::string& spec) {
  return "apiVersion: gangplank.io/v1alpha1\nkind: GPUPool\nmetadata:\n  name: " + name + "\nspec:\n" + spec;
}

class KubectlValidationTest : public KubectlFixture {
 protected:
  void SetUp() override {
    KubectlFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    apply_crd_file(std::string(GANGPLANK_TESTDATA_DIR) + "/gpupool-with-queues.crd.yaml");
  }
  // The server still answers kubectl and holds exactly `names` as pools.
  void expect_pools(const std::string& names) { EXPECT_EQ(ok({"get", "gpupools", "-o", "name"}), names); }
  json pool(const std::string& name) { return find("gpupool", name).value_or(json()); }
};

TEST_F(KubectlValidationTest, InvalidPoolPrintsTheSchemaMessages) {
  const std::string err = rejected({"apply", "-f", "-"}, pool_yaml("bad", "  spot: {reclaimPolicy: X}\n  queues:\n  - {name: a, weight: -1}\n"));
  EXPECT_NE(err.find("The GPUPool \"bad\" is invalid:"), std::string::npos) << err;
  EXPECT_NE(err.find("* spec.queues[0].weight: Invalid value: -1: spec.queues[0].weight in body should be greater than or equal to 0"),
            std::string::npos) << err;
  EXPECT_NE(err.find("* spec.spot.reclaimPolicy: Unsupported value: \"X\": supported values: \"CheckpointThenEvict\", \"Evict\""),
            std::string::npos) << err;
  EXPECT_FALSE(find("gpupool", "bad"));
  expect_pools("");
}

TEST_F(KubectlValidationTest, OneCauseIsPrintedOnOneLine) {
  const std::string err = rejected({"apply", "-f", "-"}, pool_yaml("light", "  queues:\n  - {name: a, weight: -2}\n"));
  EXPECT_NE(err.find("The GPUPool \"light\" is invalid: spec.queues[0].weight: Invalid value: -2: spec.queues[0].weight in body "
                     "should be greater than or equal to 0"), std::string::npos) << err;
  // A missing required field keeps the CEL rules from running, which the apiserver says as a second cause.
  const std::string required = rejected({"apply", "-f", "-"}, pool_yaml("noname", "  queues:\n  - {weight: 2}\n"));
  EXPECT_NE(required.find("* spec.queues[0].name: Required value\n* <nil>: Invalid value: null: some validation rules were not "
                          "checked because the object was invalid; correct the existing errors to complete validation"),
            std::string::npos) << required;
}

TEST_F(KubectlValidationTest, ValidPoolComesBackDefaulted) {
  EXPECT_NE(ok({"apply", "-f", "-"}, pool_yaml("good", "  spot: {}\n  queues:\n  - {name: team-a, limitGPUs: 8}\n")).find("created"),
            std::string::npos);
  const json got = json::parse(ok({"get", "gpupool", "good", "-o", "json"}));
  EXPECT_EQ(got["spec"]["spot"]["reclaimPolicy"], "CheckpointThenEvict");
  EXPECT_EQ(got["spec"]["spot"]["checkpointGraceSeconds"], 90);
  EXPECT_EQ(got["spec"]["spot"]["avoidSpotOnRequeue"], true);
  EXPECT_EQ(got["spec"]["queues"][0]["weight"], 1);
  EXPECT_EQ(got["spec"]["queues"][0]["guaranteedGPUs"], 0);
  EXPECT_EQ(got["spec"]["queues"][0]["limitGPUs"], 8);
  // Re-applying the same manifest: kubectl sends the queues list again (it differs from the defaulted
  // live list), the server defaults it back to the same object, so nothing is written.
  const std::string rv = got["metadata"]["resourceVersion"];
  ok({"apply", "-f", "-"}, pool_yaml("good", "  spot: {}\n  queues:\n  - {name: team-a, limitGPUs: 8}\n"));
  EXPECT_EQ(pool("good")["metadata"]["resourceVersion"], rv);
  EXPECT_EQ(pool("good")["metadata"]["generation"], 1);
}

TEST_F(KubectlValidationTest, UnknownFieldIsRefusedUnderStrictAndWarnedOtherwise) {
  const std::string manifest = pool_yaml("p", "  colour: red\n  queues:\n  - {name: a}\n");
  const std::string err = rejected({"apply", "-f", "-"}, manifest);  // kubectl sends fieldValidation=Strict by default
  EXPECT_NE(err.find("Error from server (BadRequest): error when creating \"STDIN\": GPUPool in version \"v1alpha1\" "
                     "cannot be handled as a GPUPool: strict decoding error: unknown field \"spec.colour\""),
            std::string::npos) << err;
  expect_pools("");

  const auto warned = kubectl({"apply", "--validate=warn", "-f", "-"}, manifest);
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("Warning: unknown field \"spec.colour\""), std::string::npos) << warned.err;
  EXPECT_FALSE(pool("p")["spec"].contains("colour"));

  const std::string ssa = rejected({"apply", "--server-side", "-f", "-"}, pool_yaml("p", "  colour: red\n"));
  EXPECT_NE(ssa.find("failed to create typed patch object (/p; gangplank.io/v1alpha1, Kind=GPUPool): .spec.colour: "
                     "field not declared in schema"), std::string::npos) << ssa;
}

TEST_F(KubectlValidationTest, CelRuleMessageOnUpdate) {
  ok({"apply", "-f", "-"}, pool_yaml("p", "  queues:\n  - {name: a, guaranteedGPUs: 2}\n"));
  const std::string err = rejected({"apply", "-f", "-"}, pool_yaml("p", "  queues:\n  - {name: a, guaranteedGPUs: 4, limitGPUs: 2}\n"));
  EXPECT_NE(err.find("The GPUPool \"p\" is invalid: spec.queues[0]: Invalid value: limitGPUs must not be below guaranteedGPUs"),
            std::string::npos) << err;
  const std::string status = rejected({"patch", "gpupool", "p", "--subresource", "status", "--type", "merge", "-p",
                                       R"({"status":{"conditions":[{"type":"Ready","status":"Maybe"}]}})"});
  EXPECT_NE(status.find("status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"True\", \"False\", \"Unknown\""),
            std::string::npos) << status;
  EXPECT_EQ(pool("p")["spec"]["queues"][0]["guaranteedGPUs"], 2);
  expect_pools("gpupool.gangplank.io/p\n");
}

using ProjectCrdTest = KubectlFixture;

TEST_F(ProjectCrdTest, ProjectGpuPoolCrdRefusesAndDefaults) {
  apply_project_crd("gpupool.gangplank.io.yaml");
  const std::string err = rejected(
      {"apply", "-f", "-"},
      pool_yaml("bad", "  spot: {reclaimPolicy: X}\n  preemption: {minRuntimeSeconds: -1}\n  topologyLevels: ['']\n"));
  EXPECT_NE(err.find("The GPUPool \"bad\" is invalid:"), std::string::npos) << err;
  EXPECT_NE(err.find("spec.spot.reclaimPolicy: Unsupported value: \"X\": supported values: \"CheckpointThenEvict\", \"Evict\""),
            std::string::npos) << err;
  EXPECT_NE(err.find("spec.preemption.minRuntimeSeconds: Invalid value: -1: spec.preemption.minRuntimeSeconds in body should be "
                     "greater than or equal to 0"), std::string::npos) << err;
  EXPECT_NE(err.find("spec.topologyLevels[0]: Invalid value: \"\": spec.topologyLevels[0] in body should be at least 1 chars long"),
            std::string::npos) << err;
  const std::string strict = rejected({"apply", "-f", "-"}, pool_yaml("odd", "  colour: red\n"));
  EXPECT_NE(strict.find("strict decoding error: unknown field \"spec.colour\""), std::string::npos) << strict;

  ok({"apply", "-f", "-"}, pool_yaml("good", "  spot: {}\n  preemption: {}\n"));
  const json got = json::parse(ok({"get", "gpupool", "good", "-o", "json"}));
  EXPECT_EQ(got["spec"]["spot"]["reclaimPolicy"], "CheckpointThenEvict");
  EXPECT_EQ(got["spec"]["spot"]["checkpointGraceSeconds"], 90);
  EXPECT_EQ(got["spec"]["spot"]["avoidSpotOnRequeue"], true);
  EXPECT_EQ(got["spec"]["preemption"]["minRuntimeSeconds"], 600);
  EXPECT_EQ(ok({"get", "gpupools", "-o", "name"}), "gpupool.gangplank.io/good\n");
}

}  // namespace
}  // namespace gangplank::testing::kubectl
