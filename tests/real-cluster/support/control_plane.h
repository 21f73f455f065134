// The real control plane of the real-cluster suites: scripts/real-cluster.sh started once per test
// binary (etcd, kube-apiserver, kube-controller-manager, KWOK, the stock kube-scheduler with the chart's
// configuration, gangplank-extender and gangplank-operator under the chart's ServiceAccounts), in a
// temporary folder on free loopback ports, stopped when the binary ends.
//
// Where the Kubernetes binaries are not built (no Go), every test is skipped with the reason, unless
// GANGPLANK_REQUIRE_REAL_CLUSTER=1 (CI sets it): then the skip is a failure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kube/client.h"
#include "tests/support/fault_proxy/upstream_tls.h"

namespace gangplank::real_cluster {

class ControlPlane {
 public:
  // Why the control plane cannot run here, or "" when it can.
  static std::string UnavailableReason();
  // GANGPLANK_REQUIRE_REAL_CLUSTER is set to 1: an unavailable control plane fails the suites.
  static bool Required();

  // Starts scripts/real-cluster.sh with `extra` arguments (e.g. {"--no-gangplank"}); "" on success, else
  // what went wrong with the tail of the component logs.
  std::string Start(const std::vector<std::string>& extra = {});
  void Stop();
  ~ControlPlane() { Stop(); }

  bool running() const { return running_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::string kubeconfig() const { return (dir_ / "kubeconfig").string(); }
  std::string ca_file() const { return (dir_ / "pki" / "ca.crt").string(); }
  // kube-apiserver as a FaultProxy's upstream: its address, the cluster CA and the admin certificate.
  testing::fault_proxy::UpstreamOptions ProxyUpstream() const {
    return {"127.0.0.1", api_port(), ca_file(), (dir_ / "pki" / "admin.crt").string(), (dir_ / "pki" / "admin.key").string()};
  }
  kube::Client& client() { return *client_; }
  std::uint16_t api_port() const { return static_cast<std::uint16_t>(base_ + 2); }
  std::uint16_t extender_port() const { return static_cast<std::uint16_t>(base_ + 5); }
  std::uint16_t operator_port() const { return static_cast<std::uint16_t>(base_ + 6); }
  std::uint16_t webhook_port() const { return static_cast<std::uint16_t>(base_ + 7); }
  std::uint16_t dry_run_port() const { return static_cast<std::uint16_t>(base_ + 10); }  // The operator's.
  // SIGKILL to one component the script started (e.g. "gangplank-operator"): a crash, not a shutdown.
  bool Kill(const std::string& component);
  // A metric of the extender's /metrics (over its TLS) or the operator's, summed over the samples that
  // carry `labels` (e.g. verb="bind"); -1 when absent.
  double ExtenderMetric(const std::string& name, const std::vector<std::string>& labels = {}) const;
  double OperatorMetric(const std::string& name) const;
  // The last `bytes` of one component's log (e.g. "gangplank-operator", "kube-scheduler").
  std::string LogTail(const std::string& component, std::size_t bytes = 4000) const;

 private:
  bool running_ = false;
  int base_ = 0;
  std::filesystem::path dir_;
  std::shared_ptr<kube::Client> client_;
};

// kubectl (the project's, of the cluster's minor) against a kubeconfig: exit code and output.
struct KubectlResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
KubectlResult Kubectl(const std::string& kubeconfig, const std::vector<std::string>& args, const std::string& stdin_text = "");

// A node made through the API carries the not-ready taint until KWOK reports it Ready and the node
// lifecycle controller lifts the taint; kube-scheduler offers it only then, so tests wait for this.
bool ReadyAndUntainted(const nlohmann::json& node);

}  // namespace gangplank::real_cluster
