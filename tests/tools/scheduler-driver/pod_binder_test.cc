// The binding step against the API-server double: a 409 is told apart (already on this node, on
// another node, pod gone), a 500 leaves the pod unbound and is reported, never blindly re-POSTed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "apiserver-double/api_server_double.h"
#include "kube/config.h"
#include "tests/tools/scheduler-driver/support/cluster_fixture.h"
#include "tools/scheduler-driver/pod_binder.h"

namespace gangplank::scheduler_driver {
namespace {

using testing::Json;

class PodBinderAgainstTheDouble : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.Start();
    api_.put(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ml"}}}});
    for (const char* node : {"gpu-0", "gpu-1"}) api_.put(testing::NodeObject(node));
    api_.put(testing::PodObject("taken", 1, "gpu-1"));
    api_.put(testing::PodObject("free", 1));
    kubeconfig_ = std::filesystem::temp_directory_path() / ("binder-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(kubeconfig_) << api_.KubeconfigYaml("ml");
    client_ = std::make_shared<kube::Client>(std::make_shared<kube::RestClient>(kube::LoadKubeconfig({kubeconfig_})));
  }
  void TearDown() override { std::filesystem::remove(kubeconfig_); }

  // The pod as a lagging informer would still show it: not bound.
  kube::Pod Unbound(const std::string& name) {
    kube::ObjectDecoder<kube::Pod> decoder;
    kube::Pod pod = decoder.DecodeObject(api_.Get("pods", "ml", name)->dump());
    pod.node_name.clear();
    return pod;
  }

  apiserver_double::ApiServerDouble api_;
  std::filesystem::path kubeconfig_;
  std::shared_ptr<kube::Client> client_;
};

TEST_F(PodBinderAgainstTheDouble, ConflictsAreToldApartAndNothingIsBoundTwice) {
  PodBinder binder(client_, nullptr, false);
  BindReport r = binder.Bind(Unbound("taken"), "gpu-0");
  EXPECT_EQ(r.status, BindStatus::kBoundElsewhere) << r.message;
  EXPECT_NE(r.message.find("already assigned"), std::string::npos) << r.message;
  EXPECT_EQ(binder.Bind(Unbound("taken"), "gpu-1").status, BindStatus::kAlreadyBoundHere);
  EXPECT_EQ((*api_.Get("pods", "ml", "taken"))["spec"]["nodeName"], "gpu-1");

  kube::Pod replaced = Unbound("free");
  replaced.meta.uid = "an-older-pod-of-the-same-name";
  EXPECT_EQ(binder.Bind(replaced, "gpu-0").status, BindStatus::kPodGone);

  apiserver_double::FaultRule fail;
  fail.status = 500;
  fail.path_contains = "/binding";
  api_.FailNext(fail);
  r = binder.Bind(Unbound("free"), "gpu-0");
  EXPECT_EQ(r.status, BindStatus::kFailed);
  EXPECT_NE(r.message.find("500"), std::string::npos) << r.message;
  EXPECT_FALSE((*api_.Get("pods", "ml", "free"))["spec"].contains("nodeName"));

  EXPECT_EQ(binder.Bind(Unbound("free"), "gpu-0").status, BindStatus::kBound);
  EXPECT_EQ((*api_.Get("pods", "ml", "free"))["spec"]["nodeName"], "gpu-0");
}

}  // namespace
}  // namespace gangplank::scheduler_driver
