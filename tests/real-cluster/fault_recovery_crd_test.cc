// spec.faultRecovery of GPUPools and Queues (crds/) on a real kube-apiserver (the RealClusterTest fixture
// with scripts/real-cluster.sh --no-gangplank; one control plane for the binary):
//   * bad values (an unknown policy, a negative restart limit, a malformed condition name or taint key)
//     are refused with the lines kubectl prints, each naming the field;
//   * what the API server stores for a pool that says nothing reads (cache::PoolConfigFromObject) as the
//     defaults the operator assumes, so the CRD's defaults and the C++ ones cannot drift apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "cache/crd/queue_config.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  std::sort(out.begin(), out.end());
  return out;
}

const char* const kCrds[] = {GANGPLANK_SOURCE_DIR "/crds/gpupool.gangplank.io.yaml", GANGPLANK_SOURCE_DIR "/crds/queue.gangplank.io.yaml"};

// A GPUPool or Queue manifest (JSON, which kubectl takes as it takes YAML).
std::string Manifest(const std::string& kind, const std::string& name, const Json& spec) {
  return Json{{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", kind}, {"metadata", {{"name", name}}}, {"spec", spec}}.dump();
}
std::string Refused(const std::string& kind, const std::string& name) { return "The " + kind + " \"" + name + "\" is invalid: "; }

// The CRD's patterns, as the API server quotes them.
const std::string kConditionPattern =
    R"('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?(=(True|False|Unknown))?$')";
const std::string kTaintPattern =
    R"('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$')";

// An invalid object and the lines kubectl prints when the API server refuses it, in any order.
struct InvalidObject {
  std::string name;
  std::string manifest;
  std::vector<std::string> lines;
};

Json Recovery(const Json& fault_recovery) { return Json{{"faultRecovery", fault_recovery}}; }

std::vector<InvalidObject> InvalidPools() {
  const std::string at = "spec.faultRecovery.";
  auto pool = [](const std::string& name, const Json& fault_recovery) { return Manifest("GPUPool", name, Recovery(fault_recovery)); };
  auto minimum = [&](const std::string& field, int value, int bound) {
    return "* " + at + field + ": Invalid value: " + std::to_string(value) + ": " + at + field +
           " in body should be greater than or equal to " + std::to_string(bound);
  };
  auto pattern = [&](const std::string& field, const std::string& value, const std::string& re) {
    return at + field + ": Invalid value: \"" + value + "\": " + at + field + " in body should match " + re;
  };
  return {
      {"unknown policy", pool("fr-policy", {{"policy", "Retry"}}),
       {Refused("GPUPool", "fr-policy") + at +
        "policy: Unsupported value: \"Retry\": supported values: \"RestartGang\", \"FailGang\", \"Ignore\""}},
      {"negative restart limit and every minimum",
       pool("fr-minimums", {{"restartLimit", -1}, {"backoffSeconds", 0}, {"maxBackoffSeconds", 0}, {"nodeGraceSeconds", -1},
                            {"belowMinimumGraceSeconds", -1}, {"checkpointGraceSeconds", -1}}),
       {Refused("GPUPool", "fr-minimums"), minimum("restartLimit", -1, 0), minimum("backoffSeconds", 0, 1),
        minimum("maxBackoffSeconds", 0, 1), minimum("nodeGraceSeconds", -1, 0), minimum("belowMinimumGraceSeconds", -1, 0),
        minimum("checkpointGraceSeconds", -1, 0)}},
      {"malformed condition name", pool("fr-condition", {{"unhealthyConditions", {"GpuMemWatch", "Kernel Deadlock"}}}),
       {Refused("GPUPool", "fr-condition") + pattern("unhealthyConditions[1]", "Kernel Deadlock", kConditionPattern)}},
      {"condition status", pool("fr-status", {{"unhealthyConditions", {"AcceleratedHardwareReady=false"}}}),
       {Refused("GPUPool", "fr-status") + pattern("unhealthyConditions[0]", "AcceleratedHardwareReady=false", kConditionPattern)}},
      {"malformed taint key", pool("fr-taint", {{"quarantineTaints", {"nvidia.com/gpu error"}}}),
       {Refused("GPUPool", "fr-taint") + pattern("quarantineTaints[0]", "nvidia.com/gpu error", kTaintPattern)}},
      {"a taint twice", pool("fr-taint-twice", {{"quarantineTaints", {"amd-gpu-unhealthy", "amd-gpu-unhealthy"}}}),
       {Refused("GPUPool", "fr-taint-twice") + at + "quarantineTaints[1]: Duplicate value: \"amd-gpu-unhealthy\""}},
      {"types", pool("fr-types", {{"restartLimit", "three"}, {"replaceMembers", "yes"}}),
       {Refused("GPUPool", "fr-types"),
        "* " + at + "replaceMembers: Invalid value: \"string\": " + at + "replaceMembers in body must be of type boolean: \"string\"",
        "* " + at + "restartLimit: Invalid value: \"string\": " + at + "restartLimit in body must be of type integer: \"string\""}},
  };
}

// The Queue CRD has CEL rules, which do not run on an object with a schema error; the API server says so.
const char kUnchecked[] =
    "* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the "
    "existing errors to complete validation";

std::vector<InvalidObject> InvalidQueues() {
  return {
      {"unknown policy and negative limit", Manifest("Queue", "fr-queue", Recovery({{"policy", "Requeue"}, {"restartLimit", -1}})),
       {Refused("Queue", "fr-queue"),
        "* spec.faultRecovery.policy: Unsupported value: \"Requeue\": supported values: \"RestartGang\", \"FailGang\", \"Ignore\"",
        "* spec.faultRecovery.restartLimit: Invalid value: -1: spec.faultRecovery.restartLimit in body should be greater than or "
        "equal to 0",
        kUnchecked}},
      {"a pool-only field", Manifest("Queue", "fr-queue-field", Recovery({{"backoffSeconds", 5}})),
       {"Error from server (BadRequest): error when creating \"STDIN\": Queue in version \"v1alpha1\" cannot be handled as a "
        "Queue: strict decoding error: unknown field \"spec.faultRecovery.backoffSeconds\""}},
  };
}

std::vector<InvalidObject> InvalidObjects() {
  auto all = InvalidPools();
  for (auto& q : InvalidQueues()) all.push_back(std::move(q));
  return all;
}

// Without gangplank running: nothing else writes the pools, and the CRDs are the repository's crds/.
class FaultRecoveryCrd : public RealClusterTest {
 public:
  static void SetUpTestSuite() { StartControlPlane({"--no-gangplank"}); }

 protected:
  void SetUp() override {
    RealClusterTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (const char* crd : kCrds) {
      ASSERT_EQ(Kc({"apply", "-f", crd}).exit_code, 0);
      ASSERT_EQ(Kc({"wait", "--for", "condition=Established", "--timeout", "60s", "-f", crd}).exit_code, 0);
    }
  }
  KubectlResult Kc(const std::vector<std::string>& args, const std::string& stdin_text = "") {
    return Kubectl(cluster().kubeconfig(), args, stdin_text);
  }
  Json Stored(const std::string& resource, const std::string& name) {
    const KubectlResult r = Kc({"get", resource, name, "-o", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
  }
};

TEST_F(FaultRecoveryCrd, BadValuesAreRefusedNamingTheField) {
  for (const auto& c : InvalidObjects()) {
    const KubectlResult r = Kc({"apply", "-f", "-"}, c.manifest);
    EXPECT_NE(r.exit_code, 0) << c.name << ": accepted";
    std::vector<std::string> expected = c.lines;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(SortedLines(r.err), expected) << c.name << ":\n" << r.err;
  }
  EXPECT_EQ(Kc({"get", "gpupools,queues", "-o", "name"}).out, "") << "an invalid object was stored";
}

// The defaults the API server writes are the ones the operator assumes for a pool that never says.
TEST_F(FaultRecoveryCrd, TheStoredDefaultsReadAsTheOperatorsDefaults) {
  Pool("fr-defaults");
  const Json stored = Stored("gpupool", "fr-defaults");
  ASSERT_TRUE(stored["spec"].contains("faultRecovery")) << stored.dump(2);
  EXPECT_EQ(stored["spec"]["faultRecovery"]["policy"], "RestartGang");
  EXPECT_TRUE(cache::PoolConfigFromObject(stored).fault_recovery == cache::PoolFaultRecovery{}) << stored["spec"].dump(2);
}

TEST_F(FaultRecoveryCrd, ChosenValuesAndAQueuesOverridesAreKept) {
  Pool("fr-chosen", Recovery({{"policy", "FailGang"},
                              {"restartLimit", 0},
                              {"backoffSeconds", 60},
                              {"maxBackoffSeconds", 30},
                              {"unhealthyConditions", {"GpuMemWatch", "example.com/FabricReady=False"}},
                              {"quarantineTaints", Json::array()}}));
  const auto pool = cache::PoolConfigFromObject(Stored("gpupool", "fr-chosen")).fault_recovery;
  EXPECT_EQ(pool.policy, cache::FaultPolicy::kFailGang);
  EXPECT_EQ(pool.restart_limit, 0);
  EXPECT_EQ(pool.backoff_seconds, 60);
  EXPECT_EQ(pool.max_backoff_seconds, 30);  // A cap below the first wait is no contradiction: every wait is 30 s.
  EXPECT_EQ(pool.node_faults.unhealthy_conditions,
            (std::vector<cache::UnhealthyCondition>{{"GpuMemWatch", "True"}, {"example.com/FabricReady", "False"}}));
  EXPECT_TRUE(pool.node_faults.quarantine_taints.empty());

  Queue("fr-team", Recovery({{"policy", "Ignore"}}));
  const auto queue = cache::QueueConfigFromObject(Stored("queue", "fr-team"));
  EXPECT_EQ(queue.fault_recovery.policy, cache::FaultPolicy::kIgnore);
  EXPECT_FALSE(queue.fault_recovery.restart_limit) << "a Queue's overrides have no defaults";
  EXPECT_EQ(cache::FaultRecoveryFor(pool, queue).policy, cache::FaultPolicy::kIgnore);
  EXPECT_EQ(cache::FaultRecoveryFor(pool, queue).restart_limit, 0);
}

}  // namespace
}  // namespace gangplank::real_cluster
