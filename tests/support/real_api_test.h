// The fixture of a component test on the real kube-apiserver (scripts/real-cluster.sh --no-gangplank,
// started once per test binary: shared_control_plane.h): a namespace of the test's own, gangplank's CRDs
// served (unless the fixture says not), an admin client, objects put by their kind as a controller or kubelet would have left them, and a fault
// proxy in front of the server on demand. What a test makes outside its namespace (nodes, pools, queues,
// CRDs) is deleted after it. Skips with the reason where the Kubernetes binaries are not built.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "kube/api_error.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/rest_client.h"
#include "tests/support/shared_control_plane.h"
#include "tests/support/fault_proxy/fault_proxy.h"

namespace gangplank::testing {

// The resource of an object's apiVersion and kind, for the kinds the suites put.
inline kube::ResourceDescriptor ResourceOf(const nlohmann::json& object) {
  const std::string api = object.value("apiVersion", "");
  const std::string kind = object.value("kind", "");
  const auto slash = api.find('/');
  const std::string group = slash == std::string::npos ? "" : api.substr(0, slash);
  const std::string version = slash == std::string::npos ? api : api.substr(slash + 1);
  if (kind == "Node") return kube::resources::Nodes();
  if (kind == "Namespace") return kube::resources::Namespaces();
  if (kind == "GPUPool") return {group, version, "gpupools", kind, false};
  if (kind == "Queue") return {group, version, "queues", kind, false};
  std::string plural = kind;
  for (auto& c : plural) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return {group, version, plural + "s", kind, true};
}

// Applies crds/ (gangplank's GPUPool and Queue) and waits until the server serves them.
inline void ApplyProjectCrds(real_cluster::ControlPlane& plane) {
  const std::string crds = GANGPLANK_SOURCE_DIR "/crds";
  const auto applied = real_cluster::Kubectl(plane.kubeconfig(), {"apply", "--server-side", "-f", crds});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  ASSERT_TRUE(WaitUntil([&] {
    return real_cluster::Kubectl(plane.kubeconfig(), {"get", "gpupools,queues"}).exit_code == 0;
  })) << "gangplank's CRDs are not served";
}

class RealApiTest : public ::testing::Test {
 protected:
  // `project_crds` false: the test makes the CRDs it needs itself (the kube client's own suite).
  explicit RealApiTest(bool project_crds = true, std::string ns_stem = "t")
      : project_crds_(project_crds), ns_stem_(std::move(ns_stem)) {}

  void SetUp() override {
    GANGPLANK_SET_UP_REAL_TARGET(plane_);
    ns_ = CreateTestNamespace(*plane_, ns_stem_);
    ASSERT_NE(ns_, "") << "the test namespace did not come up";
    if (project_crds_) {
      ASSERT_NO_FATAL_FAILURE(ApplyProjectCrds(*plane_));
    }
    kube::RestOptions unlimited;  // The test's own client: not held to client-go's 5 requests a second.
    unlimited.qps = 0;
    client_ = std::make_shared<kube::Client>(std::make_shared<kube::RestClient>(kube::LoadKubeconfig({plane_->kubeconfig()}), unlimited));
  }
  void TearDown() override {
    proxy_.reset();
    if (plane_ != nullptr) CleanUpRealTarget(*plane_, ns_);
  }

  real_cluster::ControlPlane& plane() { return *plane_; }
  const std::string& ns() const { return ns_; }
  kube::Client& client() { return *client_; }
  std::shared_ptr<kube::Client> shared_client() { return client_; }

  // Creates `object` (or replaces the stored one), then writes its status through /status when it has
  // one (a create keeps a node's status, but drops a pod's). Namespaced objects without a namespace go
  // to the test's. Returns the object as stored.
  nlohmann::json Put(nlohmann::json object) {
    const kube::ResourceDescriptor r = ResourceOf(object);  // Before the move below.
    return Put(r, std::move(object));
  }
  // The same for a kind ResourceOf does not know (a custom resource the test defined).
  nlohmann::json Put(const kube::ResourceDescriptor& r, nlohmann::json object) {
    const std::string ns = r.namespaced ? object["metadata"].value("namespace", ns_) : "";
    if (r.namespaced) object["metadata"]["namespace"] = ns;
    const std::string name = object["metadata"]["name"];
    const nlohmann::json status = object.value("status", nlohmann::json());
    nlohmann::json stored;
    if (auto existing = client_->TryGet(r, ns, name)) {
      object["metadata"]["resourceVersion"] = (*existing)["metadata"]["resourceVersion"];
      stored = client_->Update(r, ns, object);
    } else {
      stored = client_->Create(r, ns, object);
    }
    if (r.kind == "Node" && object["metadata"].value("/annotations/kwok.x-k8s.io~1node"_json_pointer, "") == "fake") {
      // KWOK runs it: usable once Ready and untainted, as kube-scheduler sees it.
      if (!WaitUntil([&] { return real_cluster::ReadyAndUntainted(client_->Get(r, "", name)); })) {
        ADD_FAILURE() << "node " << name << " did not become Ready and untainted";
      }
    }
    if (status.is_null() || r.kind == "Node" || r.kind == "Namespace") return stored;
    // A controller (KWOK running a pod on its node) may write the status between the two calls.
    for (int attempt = 0;; ++attempt) {
      stored["status"] = status;
      try {
        return client_->UpdateStatus(r, ns, stored);
      } catch (const kube::ConflictError&) {
        if (attempt == 4) throw;
        stored = client_->Get(r, ns, name);
      }
    }
  }
  std::optional<nlohmann::json> Get(const kube::ResourceDescriptor& r, const std::string& name, const std::string& ns = "") {
    return client_->TryGet(r, r.namespaced ? (ns.empty() ? ns_ : ns) : "", name);
  }
  // Deletes at once (grace period 0). False when it was not there.
  bool Remove(const kube::ResourceDescriptor& r, const std::string& name, const std::string& ns = "") {
    kube::DeleteOptions now;
    now.grace_period_seconds = 0;
    return client_->Remove(r, r.namespaced ? (ns.empty() ? ns_ : ns) : "", name, now);
  }

  // The test's fault proxy in front of kube-apiserver, started on first use.
  FaultProxy& proxy() {
    if (!proxy_) {
      proxy_ = std::make_unique<FaultProxy>(plane_->ProxyUpstream());
      proxy_->Start();
    }
    return *proxy_;
  }
  // A kubeconfig file through the proxy (no credentials: the proxy's admin certificate), in `dir`.
  std::string ProxyKubeconfig(const std::filesystem::path& dir) {
    const auto path = dir / "proxy.kubeconfig";
    std::ofstream(path) << proxy().KubeconfigYaml("", ns_);
    return path.string();
  }

 private:
  const bool project_crds_;
  const std::string ns_stem_;
  real_cluster::ControlPlane* plane_ = nullptr;
  std::string ns_;
  std::shared_ptr<kube::Client> client_;
  std::unique_ptr<FaultProxy> proxy_;
};

}  // namespace gangplank::testing
