// The end-to-end setting shared by the driver's suites: the API-server double in-process (nodes gpu-0..3
// with 8 GPUs each, namespace ml, a GPUPool covering every node), the real gangplank-extender binary
// (--policy bestfit, queue team-a limited to 8 GPUs, bind verb on) and the real
// gangplank-scheduler-driver binary, each a process on loopback with its log in a temporary folder
// (kept when the test fails, or always with GANGPLANK_KEEP_TEST_LOGS set).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apiserver-double/api_server_double.h"
#include "kube/client.h"
#include "tests/support/child_process.h"

namespace gangplank::scheduler_driver::testing {

using gangplank::testing::ChildProcess;

using Json = nlohmann::json;

Json NodeObject(const std::string& name);
// A pod of scheduler gangplank asking for `gpus` whole GPUs (plus 2 cpu, 8Gi), unbound unless `node`.
Json PodObject(const std::string& name, int gpus, const std::string& node = "");

class ClusterFixture : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  void StartExtender();
  // Stops the extender; returns its exit code.
  int StopExtender();
  void StartDriver(const std::vector<std::string>& extra_flags = {});
  // Stops the driver with SIGTERM; returns its exit code.
  int StopDriver();

  static bool WaitFor(const std::function<bool()>& condition,
                      std::chrono::milliseconds timeout = std::chrono::seconds(20));

  // The pod's spec.nodeName ("" when unbound or missing).
  std::string NodeOf(const std::string& pod) const;
  // The pod's PodScheduled condition, or an empty object.
  Json PodScheduled(const std::string& pod) const;
  // A counter or gauge from the driver's /metrics (labels summed), -1 when absent.
  double Metric(const std::string& name) const;
  // Lines of the driver's log containing every one of `needles`.
  int DriverLogLines(const std::vector<std::string>& needles) const;
  // The extender's answer to one verb ("filter", "prioritize") for `pod` over the four nodes.
  Json AskExtender(const std::string& verb, const Json& pod) const;
  // The extender's own prioritize answer for `pod` over every node: the node it ranks best (highest
  // score, lowest name among equals).
  std::string ExtenderBest(const Json& pod) const;
  // The nodes the extender's filter passes for `pod` now (its cache as it stands).
  std::vector<std::string> ExtenderPasses(const Json& pod) const;

  std::unique_ptr<apiserver_double::ApiServerDouble> api_;
  std::filesystem::path dir_;
  std::string kubeconfig_;
  std::uint16_t extender_port_ = 0;
  std::uint16_t metrics_port_ = 0;
  std::shared_ptr<kube::Client> client_;
  std::unique_ptr<ChildProcess> extender_;
  std::unique_ptr<ChildProcess> driver_;
  std::vector<std::string> driver_logs_;  // Logs of drivers already stopped, for the once-only checks.
  int extender_runs_ = 0;
  int driver_runs_ = 0;
};

}  // namespace gangplank::scheduler_driver::testing
