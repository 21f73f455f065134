// The whole of gangplank on loopback, for the operator's end-to-end suites: the API-server double
// (in-process, so a test can read its state and inject faults), and as real processes the
// gangplank-extender, one or more gangplank-operators (leader-elected on a Lease, serving the webhook
// over TLS) and the gangplank-scheduler-driver playing kube-scheduler (filter -> prioritize -> pick ->
// binding). Pods are created the way a cluster creates them: the operator's webhook reviews each one
// over HTTPS and its patch is applied before the pod is stored (the double runs no admission itself).
// Logs go to a temporary folder, kept when a test fails (or with GANGPLANK_KEEP_TEST_LOGS).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "apiserver-double/api_server_double.h"
#include "kube/client.h"
#include "tests/support/child_process.h"

namespace gangplank::op::testing {

using Json = nlohmann::json;
using gangplank::testing::ChildProcess;

struct NodeOptions {
  int gpus = 8;
  std::map<std::string, std::string> labels;
};

struct PodOptions {
  int gpus = 8;
  std::string queue;
  std::string gang;         // gangplank.io/gang label ("" = none)
  int gang_size = 0;        // gangplank.io/gang-size annotation (0 = none)
  int priority = 0;
  std::string scheduler = "gangplank";
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

class OperatorCluster : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // --- The cluster's objects. ---
  void Node(const std::string& name, const NodeOptions& options = {});
  void Pool(const std::string& name, const Json& spec = Json::object());
  void Queue(const std::string& name, const Json& spec = Json::object());
  // A pod object of the gangplank scheduler (not yet created).
  static Json PodObject(const std::string& name, const PodOptions& options);
  // Creates the pod as the API server would: webhook review, patch applied, stored. Returns it as stored.
  Json Submit(Json pod);
  // Submits `size` pods "<gang>-0".. of a gangplank.io/gang gang.
  void SubmitGang(const std::string& gang, int size, const PodOptions& options);
  // A pod that runs on `node` outside gangplank (another scheduler's), holding its GPUs.
  void Occupy(const std::string& name, const std::string& node, int gpus);
  // What the kubelet would do: the pod finished (phase Succeeded).
  void Finish(const std::string& pod);

  // --- Processes. ---
  void StartExtender();
  // Starts operator number `index` (its own ports, same Lease); `extra` flags appended.
  void StartOperator(int index = 0, const std::vector<std::string>& extra = {});
  int StopOperator(int index = 0);
  void KillOperator(int index = 0);
  void StartDriver();
  void StartAll() {
    StartExtender();
    StartOperator();
    StartDriver();
  }

  // --- Looking (public: test helpers and watcher threads use them too). ---
 public:
  static bool WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  std::optional<Json> Pod(const std::string& name) const;
  std::string NodeOf(const std::string& pod) const;
  std::string PlannedNodeOf(const std::string& pod) const;
  std::string AdmissionIdOf(const std::string& pod) const;
  bool Gated(const std::string& pod) const;
  // The gang condition (gangplank.io/GangAdmitted) of a pod, or an empty object.
  Json GangCondition(const std::string& pod) const;
  std::string LabelOf(const std::string& node, const std::string& key) const;
  // "<gang>-0" .. "<gang>-<size-1>", the names SubmitGang gives.
  static std::vector<std::string> Names(const std::string& gang, int size);
  // Every one of the pods is bound to a node.
  bool AllBound(const std::vector<std::string>& pods) const;
  // Pods of a gang label ("<gang>-<i>"), present in the double.
  std::vector<std::string> Members(const std::string& gang) const;
  // GPUs held by bound, unfinished pods per queue label.
  std::map<std::string, int> BoundGpusByQueue() const;
  // A counter from a process's /metrics (labels summed), -1 when absent.
  static double Metric(std::uint16_t port, const std::string& name);
  double DriverMetric(const std::string& name) const { return Metric(driver_port_, name); }
  double OperatorMetric(const std::string& name, int index = 0) const { return Metric(operator_ports_.at(index), name); }
  // No gang is half-admitted: of every gang label, either no member is released (ungated) or every
  // member carries the same admission id. Returns the offending gang, or "".
  std::string HalfAdmittedGang() const;
  std::string Logs() const;

 protected:
  std::unique_ptr<apiserver_double::ApiServerDouble> api_;
  std::filesystem::path dir_;
  std::string kubeconfig_;
  std::string webhook_cert_;
  std::string webhook_key_;
  std::shared_ptr<kube::Client> client_;
  std::uint16_t extender_port_ = 0;
  std::uint16_t driver_port_ = 0;
  std::vector<std::uint16_t> operator_ports_;
  std::vector<std::uint16_t> webhook_ports_;
  std::unique_ptr<ChildProcess> extender_;
  std::unique_ptr<ChildProcess> driver_;
  std::vector<std::unique_ptr<ChildProcess>> operators_;
  std::vector<std::string> operator_flags_;  // Appended to every operator (per test).
  int runs_ = 0;
};

}  // namespace gangplank::op::testing
