#include "tests/tools/scheduler-driver/support/cluster_fixture.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "kube/config.h"
#include "kube/rest_client.h"
#include "tests/extender/support/free_port.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/seed_namespace_and_crds.h"

namespace gangplank::scheduler_driver::testing {
namespace {

using extender::testing::FreePort;
using extender::testing::Answers200;
using extender::testing::LoopbackClient;

}  // namespace

Json NodeObject(const std::string& name) {
  const Json amounts{{"cpu", "64"}, {"memory", "512Gi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}};
  return Json{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", name}, {"labels", {{"nvidia.com/gpu.product", "A100"}, {"kubernetes.io/hostname", name}}}}},
              {"spec", Json::object()},
              {"status", {{"capacity", amounts}, {"allocatable", amounts}}}};
}

Json PodObject(const std::string& name, int gpus, const std::string& node) {
  const std::string n = std::to_string(gpus);
  Json pod{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata", {{"name", name}, {"namespace", "ml"}, {"labels", Json::object()}, {"annotations", Json::object()}}},
           {"spec",
            {{"schedulerName", "gangplank"},
             {"containers", Json::array({{{"name", "main"},
                                          {"image", "trainer"},
                                          {"resources",
                                           {{"requests", {{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", n}}},
                                            {"limits", {{"nvidia.com/gpu", n}}}}}}})}}},
           {"status", {{"phase", node.empty() ? "Pending" : "Running"}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

void ClusterFixture::SetUp() {
  apiserver_double::DoubleOptions options;
  options.bookmark_interval = std::chrono::milliseconds(500);
  api_ = std::make_unique<apiserver_double::ApiServerDouble>(options);
  api_->Start();
  ASSERT_NO_FATAL_FAILURE(gangplank::testing::SeedNamespaceAndCrds(*api_));
  api_->put(Json{{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"}, {"metadata", {{"name", "pool"}}},
                {"spec", Json::object()}});
  for (int i = 0; i < 4; ++i) api_->put(NodeObject("gpu-" + std::to_string(i)));

  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = std::filesystem::temp_directory_path() /
         ("scheduler-driver-" + std::to_string(::getpid()) + "-" + test->name());
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  kubeconfig_ = (dir_ / "kubeconfig").string();
  std::ofstream(kubeconfig_) << api_->KubeconfigYaml("ml");
  client_ = std::make_shared<kube::Client>(std::make_shared<kube::RestClient>(kube::LoadKubeconfig({kubeconfig_})));
  extender_port_ = FreePort();
  metrics_port_ = FreePort();
  StartExtender();
}

void ClusterFixture::TearDown() {
  if (driver_) {
    EXPECT_EQ(StopDriver(), 0) << "the driver did not exit 0 on SIGTERM";
  }
  if (extender_) StopExtender();
  if (HasFailure() || std::getenv("GANGPLANK_KEEP_TEST_LOGS") != nullptr) {
    std::cerr << "logs kept in " << dir_ << "\n";
  } else {
    std::filesystem::remove_all(dir_);
  }
}

void ClusterFixture::StartExtender() {
  const std::string log = (dir_ / ("extender-" + std::to_string(++extender_runs_) + ".log")).string();
  extender_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{GANGPLANK_EXTENDER_BINARY, "--listen-address", "127.0.0.1", "--port",
                               std::to_string(extender_port_), "--kubeconfig", kubeconfig_, "--path-prefix", "/gangplank",
                               "--policy", "bestfit", "--queue", "team-a:0:8", "--bind-verb", "bind"},
      log);
  ASSERT_TRUE(WaitFor([&] { return Answers200(extender_port_, "/readyz"); })) << extender_->Log();
}

int ClusterFixture::StopExtender() {
  const int code = extender_->Stop();
  extender_.reset();
  return code;
}

void ClusterFixture::StartDriver(const std::vector<std::string>& extra_flags) {
  std::vector<std::string> argv{GANGPLANK_SCHEDULER_DRIVER_BINARY,
                                "--kubeconfig",
                                kubeconfig_,
                                "--extender-url",
                                "http://127.0.0.1:" + std::to_string(extender_port_) + "/gangplank",
                                "--metrics-bind-address",
                                "127.0.0.1",
                                "--metrics-port",
                                std::to_string(metrics_port_),
                                "--log-level",
                                "debug"};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  const std::string log = (dir_ / ("driver-" + std::to_string(++driver_runs_) + ".log")).string();
  driver_ = std::make_unique<ChildProcess>(argv, log);
  ASSERT_TRUE(WaitFor([&] { return Answers200(metrics_port_, "/readyz"); })) << driver_->Log();
}

int ClusterFixture::StopDriver() {
  const int code = driver_->Stop();
  driver_logs_.push_back(driver_->Log());
  driver_.reset();
  return code;
}

bool ClusterFixture::WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return condition();
}

std::string ClusterFixture::NodeOf(const std::string& pod) const {
  const auto object = api_->Get("pods", "ml", pod);
  return object ? object->value("/spec/nodeName"_json_pointer, std::string()) : "";
}

Json ClusterFixture::PodScheduled(const std::string& pod) const {
  const auto object = api_->Get("pods", "ml", pod);
  if (!object) return Json::object();
  for (const auto& c : object->value("/status/conditions"_json_pointer, Json::array())) {
    if (c.value("type", "") == "PodScheduled") return c;
  }
  return Json::object();
}

double ClusterFixture::Metric(const std::string& name) const {
  LoopbackClient client(metrics_port_);
  return gangplank::testing::SumOfMetric(client.Get("/metrics").body, name);
}

int ClusterFixture::DriverLogLines(const std::vector<std::string>& needles) const {
  std::vector<std::string> logs = driver_logs_;
  if (driver_) logs.push_back(driver_->Log());
  int count = 0;
  for (const auto& log : logs) {
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
      bool all = true;
      for (const auto& needle : needles) all = all && line.find(needle) != std::string::npos;
      count += all;
    }
  }
  return count;
}

Json ClusterFixture::AskExtender(const std::string& verb, const Json& pod) const {
  Json probe = pod;
  probe["metadata"]["uid"] = "probe-uid";
  const Json args{{"Pod", probe}, {"Nodes", nullptr}, {"NodeNames", {"gpu-0", "gpu-1", "gpu-2", "gpu-3"}}};
  LoopbackClient client(extender_port_);
  const auto response = client.Post("/gangplank/" + verb, args.dump());
  EXPECT_EQ(response.status, 200) << response.body;
  return Json::parse(response.body);
}

std::string ClusterFixture::ExtenderBest(const Json& pod) const {
  std::string best;
  std::int64_t top = -1;
  for (const auto& hp : AskExtender("prioritize", pod)) {
    const std::int64_t score = hp["Score"].get<std::int64_t>();
    const std::string host = hp["Host"].get<std::string>();
    if (score > top || (score == top && host < best)) {
      top = score;
      best = host;
    }
  }
  return best;
}

std::vector<std::string> ClusterFixture::ExtenderPasses(const Json& pod) const {
  const Json names = AskExtender("filter", pod).value("NodeNames", Json::array());
  return names.is_array() ? names.get<std::vector<std::string>>() : std::vector<std::string>{};
}

}  // namespace gangplank::scheduler_driver::testing
