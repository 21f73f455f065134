// The kube client's integration tests run against the real kube-apiserver of scripts/real-cluster.sh
// --no-gangplank, started once per test binary (tests/support/shared_control_plane.h). Each test has a
// namespace of its own; faults (429s, 500s, 410s, dropped and cut watches, a server gone) come from a FaultProxy in
// front of the server, which tests reach through proxied_rest().
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "kube/client.h"
#include "kube/config.h"
#include "kube/rest_client.h"
#include "tests/support/fault_proxy/fault_proxy.h"
#include "tests/support/real_api_test.h"

namespace gangplank::kube::testing {

inline std::string write_temp_file(const std::string& stem, const std::string& text) {
  static int counter = 0;
  auto path = std::filesystem::temp_directory_path() /
              (stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::ofstream(path) << text;
  return path.string();
}

// Tests are not about the client-side limiter unless they say so.
inline RestOptions unlimited() {
  RestOptions o;
  o.qps = 0;
  return o;
}

// A client of the proxy, through a kubeconfig the proxy writes, so the kubeconfig path is exercised too.
inline std::shared_ptr<RestClient> rest_for(const gangplank::testing::FaultProxy& proxy, RestOptions options = unlimited()) {
  const std::string path = write_temp_file("gangplank-kubeconfig", proxy.KubeconfigYaml());
  ClusterConfig config = LoadKubeconfig({path});
  std::filesystem::remove(path);
  return std::make_shared<RestClient>(config, options);
}

// Polls `condition` until true or timeout; returns the final value.
template <class F>
bool eventually(F condition, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

inline nlohmann::json pod_json(const std::string& ns, const std::string& name, const std::string& node = "",
                               const std::string& gang = "") {
  nlohmann::json pod = {{"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", "test"}}}}},
                        {"spec",
                         {{"schedulerName", "gangplank"},
                          {"containers",
                           {{{"name", "main"},
                             {"image", "busybox"},
                             // A GPU request needs an equal limit (an extended resource).
                             {"resources", {{"requests", {{"cpu", "100m"}, {"nvidia.com/gpu", "1"}}},
                                            {"limits", {{"nvidia.com/gpu", "1"}}}}}}}}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  if (!gang.empty()) pod["metadata"]["labels"]["gangplank.io/gang"] = gang;
  return pod;
}

// Delete with grace period 0 (a pod otherwise stays Terminating until a kubelet confirms).
inline DeleteOptions immediately() {
  DeleteOptions o;
  o.grace_period_seconds = 0;
  return o;
}

// The shared fixture (tests/support/real_api_test.h) without gangplank's CRDs (the client's tests define
// their own), plus raw REST clients straight to the server and through the proxy, and the helpers the
// client and informer tests share.
class RealApiTest : public gangplank::testing::RealApiTest {
 protected:
  RealApiTest() : gangplank::testing::RealApiTest(/*project_crds=*/false, "client") {}

  void SetUp() override {
    gangplank::testing::RealApiTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    rest_ = rest_direct();
    client_ = std::make_shared<Client>(rest_);
  }
  // A further client straight to kube-apiserver, with the admin kubeconfig.
  std::shared_ptr<RestClient> rest_direct(RestOptions options = unlimited()) {
    return std::make_shared<RestClient>(LoadKubeconfig({plane().kubeconfig()}), options);
  }
  std::shared_ptr<RestClient> proxied_rest(RestOptions options = unlimited()) { return rest_for(proxy(), options); }

  std::string ns_of(const ResourceDescriptor& r) const { return r.namespaced ? ns() : ""; }
  nlohmann::json put(const ResourceDescriptor& r, nlohmann::json object) { return Put(r, std::move(object)); }

  // key -> resourceVersion of the pods in the test's namespace, as the server lists them.
  std::map<std::string, std::string> server_pods() {
    std::map<std::string, std::string> out;
    const nlohmann::json list = client_->List(resources::Pods(), ns());
    for (const auto& p : list["items"]) {
      out[ns() + "/" + p["metadata"]["name"].get<std::string>()] = p["metadata"]["resourceVersion"];
    }
    return out;
  }

  std::shared_ptr<RestClient> rest_;
  std::shared_ptr<Client> client_;
};

}  // namespace gangplank::kube::testing
