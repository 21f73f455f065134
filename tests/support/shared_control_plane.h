// The real kube-apiserver of scripts/real-cluster.sh --no-gangplank (etcd, kube-apiserver, the controller
// manager and KWOK), started once per test binary by the first test that needs it and stopped when the
// binary ends, for the suites of one component against a real API server (tests/support/real_api_test.h,
// the kube client's, the kubectl suites). Tests are isolated by a namespace of their own; what they
// create outside it (CRDs, nodes, cluster roles, webhook configurations) is deleted by their fixture.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/real-cluster/support/control_plane.h"

namespace gangplank::testing {

// The binary's control plane, an Environment so gtest stops it after the last test.
class SharedControlPlane : public ::testing::Environment {
 public:
  static SharedControlPlane& Instance();
  // The running control plane, or nullptr with why it did not start in `error`.
  real_cluster::ControlPlane* Get(std::string& error) {
    if (!plane_) {
      plane_ = std::make_unique<real_cluster::ControlPlane>();
      error_ = plane_->Start({"--no-gangplank"});
    }
    error = error_;
    return error_.empty() ? plane_.get() : nullptr;
  }
  void TearDown() override { plane_.reset(); }

 private:
  std::unique_ptr<real_cluster::ControlPlane> plane_;
  std::string error_;
};

// gtest owns the environment; registered at static initialisation, before RUN_ALL_TESTS.
inline SharedControlPlane* const kSharedControlPlane =
    static_cast<SharedControlPlane*>(::testing::AddGlobalTestEnvironment(new SharedControlPlane));
inline SharedControlPlane& SharedControlPlane::Instance() { return *kSharedControlPlane; }

// In a fixture's SetUp: sets `plane` to the running control plane, or skips the test when the
// Kubernetes binaries are not built (fails instead under GANGPLANK_REQUIRE_REAL_CLUSTER=1).
#define GANGPLANK_SET_UP_REAL_TARGET(plane)                                                                        \
  do {                                                                                                             \
    const std::string unavailable_ = ::gangplank::real_cluster::ControlPlane::UnavailableReason();                 \
    if (!unavailable_.empty()) {                                                                                   \
      if (::gangplank::real_cluster::ControlPlane::Required()) {                                                   \
        FAIL() << "GANGPLANK_REQUIRE_REAL_CLUSTER=1 but the control plane cannot run: " << unavailable_;           \
      }                                                                                                            \
      GTEST_SKIP() << "real-cluster tests skipped: " << unavailable_;                                              \
    }                                                                                                              \
    std::string start_error_;                                                                                      \
    plane = ::gangplank::testing::SharedControlPlane::Instance().Get(start_error_);                                \
    ASSERT_NE(plane, nullptr) << "the real control plane did not start: " << start_error_;                         \
  } while (0)

// Polls `condition` every 100 ms until it holds or `timeout` passes; exceptions count as "not yet".
inline bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    try {
      if (condition()) return true;
    } catch (const std::exception&) {
      // A request that failed this time (a conflict, discovery catching up): look again.
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// A fresh namespace for one real-target test, with the default ServiceAccount pods need (the
// controller manager adds it a moment after the namespace). "" when it did not come up.
inline std::string CreateTestNamespace(real_cluster::ControlPlane& plane, const std::string& prefix) {
  static int counter = 0;
  const std::string ns = prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  if (real_cluster::Kubectl(plane.kubeconfig(), {"create", "namespace", ns}).exit_code != 0) return "";
  const bool ready = WaitUntil([&] {
    return real_cluster::Kubectl(plane.kubeconfig(), {"get", "serviceaccount", "default", "-n", ns}).exit_code == 0;
  });
  return ready ? ns : "";
}

// Removes a real-target test's namespace (in the background) and the cluster-scoped objects it made:
// every CRD (waiting, so the next test can define the same one afresh), every node, and `extra`
// ("clusterrole/reader", ...). The control plane runs nothing else, so "every" is only the tests'.
// The namespace's pods go at once: the next test makes nodes of the same names, and a pod still
// bound to one (its node gone, nobody ends it gracefully until pod GC, 40 s on) would hold its GPUs
// and charge its queue there.
inline void CleanUpRealTarget(real_cluster::ControlPlane& plane, const std::string& ns, const std::vector<std::string>& extra = {}) {
  const std::string& kc = plane.kubeconfig();
  if (!ns.empty()) {
    real_cluster::Kubectl(kc, {"delete", "pods", "--all", "-n", ns, "--grace-period=0", "--force", "--ignore-not-found"});
    real_cluster::Kubectl(kc, {"delete", "namespace", ns, "--wait=false", "--ignore-not-found"});
  }
  real_cluster::Kubectl(kc, {"delete", "customresourcedefinitions", "--all", "--wait=true"});
  real_cluster::Kubectl(kc, {"delete", "nodes", "--all", "--wait=true"});
  for (const auto& object : extra) real_cluster::Kubectl(kc, {"delete", object, "--ignore-not-found"});
}

}  // namespace gangplank::testing
