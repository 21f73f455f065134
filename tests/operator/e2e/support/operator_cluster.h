// The operator's end-to-end fixture on the real control plane (RealClusterTest: etcd, kube-apiserver,
// the controller manager, KWOK, the real kube-scheduler calling gangplank-extender): the control plane's
// own operator is stopped, and each test starts the operators it needs (one or more, leader-elected on
// the chart's Lease; operator 0 serves the registered webhook) with its own flags. The operators reach
// kube-apiserver through a FaultProxy holding the chart's operator token, so a test can fault, delay or
// cut what they see while RBAC still judges them as the chart's ServiceAccount. Pods are created through
// the API server (the webhook gates them), kube-scheduler binds them through the extender and KWOK runs
// them.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/real-cluster/support/real_cluster_test.h"
#include "tests/support/child_process.h"
#include "tests/support/fault_proxy/fault_proxy.h"

namespace gangplank::op::testing {

using Json = nlohmann::json;
using gangplank::testing::ChildProcess;
using PodOptions = real_cluster::PodSpec;

struct NodeOptions {
  int gpus = 8;
  std::map<std::string, std::string> labels;
};

class OperatorCluster : public real_cluster::RealClusterTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  // --- The cluster's objects. ---
  void Node(const std::string& name, const NodeOptions& options = {}) {
    RealClusterTest::Node(name, options.gpus, options.labels);
  }
  // A pod of the gangplank scheduler in the test's namespace (not yet created).
  Json PodObject(const std::string& name, const PodOptions& options) const { return RealClusterTest::PodObject(name, options); }
  // Created through the API server: operator 0's webhook gates it.
  Json Submit(const Json& pod) { return Create(pod); }
  void SubmitGang(const std::string& gang, int size, const PodOptions& options) { CreateGang(gang, size, options); }
  // A pod bound to `node` outside gangplank (another scheduler's, in a namespace exempt from the fence),
  // holding its GPUs.
  void Occupy(const std::string& name, const std::string& node, int gpus);

  // --- gangplank-operator processes. ---
  // Starts operator number `index` (its own ports, the same Lease); `extra` flags appended.
  void StartOperator(int index = 0, const std::vector<std::string>& extra = {});
  int StopOperator(int index = 0);
  void KillOperator(int index = 0);

  gangplank::testing::FaultProxy& proxy() { return *proxy_; }
  std::vector<std::uint16_t> operator_ports_;
  std::vector<std::string> operator_flags_;  // Appended to every operator (per test).

 public:
  // --- Looking (public: test helpers and watcher threads use them too). ---
  using RealClusterTest::AllBound;
  using RealClusterTest::AnnotationOf;
  using RealClusterTest::GangCondition;
  using RealClusterTest::Gated;
  using RealClusterTest::LabelOf;
  using RealClusterTest::NodeOf;
  using RealClusterTest::PlannedNodeOf;
  using RealClusterTest::Pod;
  using RealClusterTest::Pods;
  std::string AdmissionIdOf(const std::string& pod) { return AnnotationOf(pod, "gangplank.io/admission-id"); }
  // Pods of a gang label, present in the API server.
  std::vector<std::string> Members(const std::string& gang);
  // A metric of operator `index`'s /metrics (labels summed), -1 when absent.
  double OperatorMetric(const std::string& name, int index = 0) const;
  // Events of `reason` about the pod `object` of the test's namespace.
  int EventsAbout(const std::string& object, const std::string& reason);
  // No gang is half-admitted: of every gang label, either no member is released (ungated) or every
  // member carries the same admission id. Returns the offending gang, or "".
  std::string HalfAdmittedGang();
  std::string Logs();

 private:
  std::unique_ptr<gangplank::testing::FaultProxy> proxy_;
  std::string kubeconfig_;  // The proxy's, with the chart's operator token.
  std::vector<std::unique_ptr<ChildProcess>> operators_;
  bool exempt_ = false;
  int runs_ = 0;
};

}  // namespace gangplank::op::testing
