// Shared setup: an API-server double on an ephemeral loopback port and clients pointed at it through a
// kubeconfig the double writes, so the kubeconfig path is exercised too; and ApiTargetTest, whose tests
// run one body against the double and against the real kube-apiserver.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "apiserver-double/api_server_double.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/rest_client.h"
#include "tests/support/api_target.h"

namespace gangplank::kube::testing {

inline std::string write_temp_file(const std::string& stem, const std::string& text) {
  static int counter = 0;
  auto path = std::filesystem::temp_directory_path() /
              (stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::ofstream(path) << text;
  return path.string();
}

inline ClusterConfig config_for(const apiserver_double::ApiServerDouble& server) {
  std::string path = write_temp_file("gangplank-kubeconfig", server.KubeconfigYaml());
  ClusterConfig cfg = LoadKubeconfig({path});
  std::filesystem::remove(path);
  return cfg;
}

// Tests are not about the client-side limiter unless they say so.
inline RestOptions unlimited() {
  RestOptions o;
  o.qps = 0;
  return o;
}

inline std::shared_ptr<RestClient> rest_for(const apiserver_double::ApiServerDouble& server,
                                            RestOptions options = unlimited()) {
  return std::make_shared<RestClient>(config_for(server), options);
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

// Delete with grace period 0, as the double deletes (a real pod otherwise stays Terminating until a
// kubelet confirms).
inline DeleteOptions immediately() {
  DeleteOptions o;
  o.grace_period_seconds = 0;
  return o;
}

// The fixture of tests about Kubernetes behaviour: GetParam() picks the double (started here, namespace
// "default") or the real kube-apiserver (a namespace of its own, cleaned up after). Tests reach the
// server through client_/rest_ only, or through put()/remove_object(), which take the same effect on both.
class ApiTargetTest : public ::testing::TestWithParam<gangplank::testing::ApiTarget> {
 protected:
  bool real() const { return GetParam() == gangplank::testing::ApiTarget::kReal; }
  void SetUp() override {
    if (real()) {
      GANGPLANK_SET_UP_REAL_TARGET(plane_);
      ns_ = gangplank::testing::CreateTestNamespace(*plane_, "client");
      ASSERT_NE(ns_, "") << "the test namespace did not come up";
      rest_ = rest_for_target();
    } else {
      server_.Start();
      rest_ = rest_for(server_);
    }
    client_ = std::make_shared<Client>(rest_);
  }
  void TearDown() override {
    if (plane_ != nullptr) gangplank::testing::CleanUpRealTarget(*plane_, ns_);
  }
  // A further REST client for the target.
  std::shared_ptr<RestClient> rest_for_target(RestOptions options = unlimited()) const {
    if (!real()) return rest_for(server_, options);
    return std::make_shared<RestClient>(LoadKubeconfig({plane_->kubeconfig()}), options);
  }
  const std::string& ns() const { return ns_; }
  std::string ns_of(const ResourceDescriptor& r) const { return r.namespaced ? ns_ : ""; }

  // Stores `object` status included, as a controller or kubelet would have left it: directly in the
  // double; on the real server created (or replaced), then its status written through /status (a
  // create drops a pod's status). Returns the object as stored.
  nlohmann::json put(const ResourceDescriptor& r, nlohmann::json object) {
    if (!real()) return server_.put(object);
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
  // Deletes at once on both targets (immediately()).
  void remove_object(const ResourceDescriptor& r, const std::string& name) {
    if (!real()) {
      server_.Remove(r.plural, ns_of(r), name);
      return;
    }
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

  apiserver_double::ApiServerDouble server_;  // Started only for the double target.
  std::shared_ptr<RestClient> rest_;
  std::shared_ptr<Client> client_;

 private:
  real_cluster::ControlPlane* plane_ = nullptr;
  std::string ns_ = "default";
};

}  // namespace gangplank::kube::testing
