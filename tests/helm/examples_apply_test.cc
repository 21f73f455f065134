// examples/: the sample GPUPools, Queues and PyTorchJob apply with the real kubectl to the real
// kube-apiserver (scripts/real-cluster.sh --no-gangplank) against the repository's CRDs (schemas and CEL
// rules) and a Kubeflow PyTorchJob CRD, with no field the CRDs do not know, and come back defaulted.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/helm/support/helm_tool.h"
#include "tests/support/shared_control_plane.h"

namespace gangplank::helm_testing {
namespace {

using nlohmann::json;

class ExamplesOnRealApiServer : public ::testing::Test {
 protected:
  void SetUp() override { GANGPLANK_SET_UP_REAL_TARGET(plane_); }
  void TearDown() override {
    if (plane_ != nullptr) gangplank::testing::CleanUpRealTarget(*plane_, "llm");
  }
  real_cluster::KubectlResult kubectl(const std::vector<std::string>& args) { return real_cluster::Kubectl(plane_->kubeconfig(), args); }
  real_cluster::ControlPlane* plane_ = nullptr;
};

TEST_F(ExamplesOnRealApiServer, ApplyAgainstTheRealCrds) {
  const auto crds = kubectl({"apply", "-f", source_dir() + "/crds", "-f", source_dir() + "/tests/helm/testdata/crds/kubeflow-pytorchjob.crd.yaml"});
  ASSERT_EQ(crds.exit_code, 0) << crds.err;
  ASSERT_EQ(kubectl({"wait", "--for", "condition=Established", "--timeout", "60s", "crd/gpupools.gangplank.io",
                     "crd/queues.gangplank.io", "crd/pytorchjobs.kubeflow.org"}).exit_code, 0);
  real_cluster::KubectlResult applied;
  // A CRD is Established a moment before kubectl's discovery serves it: try again until it does.
  ASSERT_TRUE(gangplank::testing::WaitUntil([&] {
    applied = kubectl({"apply", "-f", source_dir() + "/examples"});
    return applied.exit_code == 0;
  })) << applied.out << applied.err;
  EXPECT_EQ(applied.err.find("Warning"), std::string::npos) << applied.err;  // no field the CRDs do not know
  for (const char* line : {"gpupool.gangplank.io/h100", "gpupool.gangplank.io/a100-spot", "queue.gangplank.io/research",
                           "queue.gangplank.io/team-llm", "queue.gangplank.io/team-vision", "pytorchjob.kubeflow.org/llama-finetune"}) {
    EXPECT_NE(applied.out.find(line), std::string::npos) << line << "\n" << applied.out;
  }
  EXPECT_NE(kubectl({"get", "gpupools"}).out.find("h100"), std::string::npos);
  // Defaults from the CRD schema are applied.
  const auto h100 = kubectl({"get", "gpupool", "h100", "-o", "json"});
  ASSERT_EQ(h100.exit_code, 0) << h100.err;
  EXPECT_EQ(json::parse(h100.out).value("/spec/capacityType"_json_pointer, std::string()), "OnDemand");
}

}  // namespace
}  // namespace gangplank::helm_testing
