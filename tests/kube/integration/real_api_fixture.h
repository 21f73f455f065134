// The kube client's integration tests run against the real kube-apiserver of scripts/real-cluster.sh
// --no-gangplank, started once per test binary (tests/support/shared_control_plane.h). Each test has a namespace of
// its own; faults (429s, 500s, 410s, dropped and cut watches, a server gone) come from a FaultProxy in
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
#include "tests/support/shared_control_plane.h"
#include "tests/support/fault_proxy/fault_proxy.h"

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

class RealApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GANGPLANK_SET_UP_REAL_TARGET(plane_);
    ns_ = gangplank::testing::CreateTestNamespace(*plane_, "client");
    ASSERT_NE(ns_, "") << "the test namespace did not come up";
    rest_ = rest_direct();
    client_ = std::make_shared<Client>(rest_);
  }
  void TearDown() override {
    proxy_.reset();
    if (plane_ != nullptr) gangplank::testing::CleanUpRealTarget(*plane_, ns_);
  }
  // A further client straight to kube-apiserver, with the admin kubeconfig.
  std::shared_ptr<RestClient> rest_direct(RestOptions options = unlimited()) const {
    return std::make_shared<RestClient>(LoadKubeconfig({plane_->kubeconfig()}), options);
  }
  // The test's fault proxy in front of kube-apiserver, started on first use.
  gangplank::testing::FaultProxy& proxy() {
    if (!proxy_) {
      proxy_ = std::make_unique<gangplank::testing::FaultProxy>(plane_->ProxyUpstream());
      proxy_->Start();
    }
    return *proxy_;
  }
  std::shared_ptr<RestClient> proxied_rest(RestOptions options = unlimited()) { return rest_for(proxy(), options); }

  const std::string& ns() const { return ns_; }
  std::string ns_of(const ResourceDescriptor& r) const { return r.namespaced ? ns_ : ""; }

  // Stores `object` status included, as a controller or kubelet would have left it: created (or
  // replaced), then its status written through /status (a create drops a pod's status). Returns the
  // object as stored.
  nlohmann::json put(const ResourceDescriptor& r, nlohmann::json object) {
    const std::string name = object["metadata"]["name"];
    const nlohmann::json status = object.value("status", nlohmann::json());
    nlohmann::json stored;
    if (auto existing = client_->TryGet(r, ns_of(r), name)) {
      object["metadata"]["resourceVersion"] = (*existing)["metadata"]["resourceVersion"];
      stored = client_->Update(r, ns_of(r), object);
    } else {
      stored = client_->Create(r, ns_of(r), object);
    }
    if (status.is_null()) return stored;
    stored["status"] = status;
    return client_->UpdateStatus(r, ns_of(r), stored);
  }
  void remove_object(const ResourceDescriptor& r, const std::string& name) {
    client_->Remove(r, ns_of(r), name, immediately());
  }
  // key -> resourceVersion of the pods in the test's namespace, as the server lists them.
  std::map<std::string, std::string> server_pods() {
    std::map<std::string, std::string> out;
    const nlohmann::json list = client_->List(resources::Pods(), ns_);
    for (const auto& p : list["items"]) {
      out[ns_ + "/" + p["metadata"]["name"].get<std::string>()] = p["metadata"]["resourceVersion"];
    }
    return out;
  }

  std::shared_ptr<RestClient> rest_;
  std::shared_ptr<Client> client_;

 private:
  real_cluster::ControlPlane* plane_ = nullptr;
  std::string ns_;
  std::unique_ptr<gangplank::testing::FaultProxy> proxy_;
};

}  // namespace gangplank::kube::testing
