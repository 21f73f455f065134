#include "tests/real-cluster/support/control_plane.h"

#include <arpa/inet.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "kube/config.h"
#include "kube/rest_client.h"
#include "tests/support/subprocess.h"
#include "tests/support/prometheus_text.h"

namespace gangplank::real_cluster {
namespace {

using gangplank::testing::run_process;

constexpr int kPorts = 20;  // scripts/real-cluster.sh --port-base: base .. base + 19

bool PortFree(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return free;
}

// kPorts consecutive free loopback ports below the ephemeral range (so no client socket takes one
// meanwhile), on a stride of 20 so two control planes' ranges never overlap.
int FreePortBase() {
  std::mt19937 random(static_cast<unsigned>(::getpid()));
  std::uniform_int_distribution<int> pick(100, 1499);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int base = pick(random) * 20;
    bool free = true;
    for (int p = base; p < base + kPorts && free; ++p) free = PortFree(p);
    if (free) return base;
  }
  return 0;
}

// curl's view of a /metrics endpoint (`curl_args` name it), summed as SumOfMetric does; -1 when unreachable.
double ScrapedSum(std::vector<std::string> curl_args, const std::string& name, const std::vector<std::string>& labels) {
  curl_args.insert(curl_args.begin(), {"/usr/bin/curl", "-sf"});
  const auto r = run_process(curl_args);
  return r.exit_code == 0 ? gangplank::testing::SumOfMetric(r.out, name, labels) : -1;
}

std::string Tail(const std::filesystem::path& file, std::size_t bytes) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  return all.size() > bytes ? all.substr(all.size() - bytes) : all;
}

}  // namespace

std::string ControlPlane::UnavailableReason() {
  const std::string bin = GANGPLANK_SOURCE_DIR "/.tools/kube/bin/";
  const char* version = std::getenv("GANGPLANK_KUBE_VERSION");
  const std::string kube = version != nullptr && *version != '\0' ? GANGPLANK_SOURCE_DIR "/.tools/kube/" + std::string(version) + "/bin/" : bin;
  for (const std::string& b : {bin + "etcd", bin + "kwok", kube + "kube-apiserver", kube + "kube-controller-manager",
                               kube + "kube-scheduler"}) {
    if (::access(b.c_str(), X_OK) != 0) {
      return b + " is not built (scripts/build-kube-binaries.sh builds it; it needs Go, which is not installed here)";
    }
  }
  if (::access(GANGPLANK_SOURCE_DIR "/.tools/bin/kubectl", X_OK) != 0 || ::access(GANGPLANK_SOURCE_DIR "/.tools/bin/helm", X_OK) != 0) {
    return "kubectl or helm is missing from .tools/bin (scripts/install-kube-tools.sh)";
  }
  return "";
}

bool ControlPlane::Required() {
  const char* value = std::getenv("GANGPLANK_REQUIRE_REAL_CLUSTER");
  return value != nullptr && std::string(value) == "1";
}

std::string ControlPlane::Start(const std::vector<std::string>& extra) {
  base_ = FreePortBase();
  if (base_ == 0) return "no twenty consecutive free loopback ports";
  // A folder of its own (mkdtemp): several test binaries run control planes side by side.
  std::string pattern = (std::filesystem::temp_directory_path() / "gangplank-real-cluster-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return "cannot make a temporary folder";
  dir_ = pattern;
  std::vector<std::string> argv{GANGPLANK_SOURCE_DIR "/scripts/real-cluster.sh", "start", "--dir", dir_.string(),
                                "--build", GANGPLANK_BUILD_DIR, "--port-base", std::to_string(base_),
                                "--owner-pid", std::to_string(::getpid())};
  argv.insert(argv.end(), extra.begin(), extra.end());
  // The oldest supported Kubernetes instead of the newest, for a suite run at both ends of the range.
  if (const char* version = std::getenv("GANGPLANK_KUBE_VERSION"); version != nullptr && *version != '\0') {
    argv.insert(argv.end(), {"--kube-version", version});
  }
  running_ = true;  // Whatever started is stopped by Stop(), even when the start fails half-way.
  const auto started = run_process(argv, "", std::chrono::minutes(5));
  if (started.exit_code != 0) {
    std::string why = "scripts/real-cluster.sh start exited " + std::to_string(started.exit_code) + "\n" + started.out + started.err;
    for (const char* c : {"etcd", "kube-apiserver", "kube-controller-manager", "kwok", "gangplank-extender",
                          "gangplank-operator", "kube-scheduler"}) {
      why += std::string("\n--- ") + c + " (tail)\n" + LogTail(c, 1500);
    }
    return why;
  }
  kube::RestOptions unlimited;
  unlimited.qps = 0;  // The tests poll; client-go's default 5 QPS would make each look take seconds.
  client_ = std::make_shared<kube::Client>(std::make_shared<kube::RestClient>(kube::LoadKubeconfig({kubeconfig()}), unlimited));
  return "";
}

void ControlPlane::Stop() {
  if (!running_) return;
  running_ = false;
  client_.reset();
  run_process({GANGPLANK_SOURCE_DIR "/scripts/real-cluster.sh", "stop", "--dir", dir_.string()}, "", std::chrono::seconds(60));
  if (std::getenv("GANGPLANK_KEEP_TEST_LOGS") != nullptr) return;
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string ControlPlane::LogTail(const std::string& component, std::size_t bytes) const {
  return Tail(dir_ / (component + ".log"), bytes);
}

bool ControlPlane::Kill(const std::string& component) {
  std::ifstream pids(dir_ / "pids");
  int pid = 0;
  std::string name;
  while (pids >> pid >> name) {
    if (name == component) return ::kill(pid, SIGKILL) == 0;
  }
  return false;
}

double ControlPlane::ExtenderMetric(const std::string& name, const std::vector<std::string>& labels) const {
  // The extender asks for kube-scheduler's client certificate (mutual TLS), so the scrape presents it.
  const std::string pki = (dir_ / "pki").string();
  return ScrapedSum({"--cacert", ca_file(), "--cert", pki + "/scheduler-client.crt", "--key", pki + "/scheduler-client.key",
                     "https://127.0.0.1:" + std::to_string(extender_port()) + "/metrics"},
                    name, labels);
}

double ControlPlane::OperatorMetric(const std::string& name) const {
  return ScrapedSum({"http://127.0.0.1:" + std::to_string(operator_port()) + "/metrics"}, name, {});
}

KubectlResult Kubectl(const std::string& kubeconfig, const std::vector<std::string>& args, const std::string& stdin_text) {
  std::vector<std::string> argv{GANGPLANK_SOURCE_DIR "/.tools/bin/kubectl", "--kubeconfig", kubeconfig};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = run_process(argv, stdin_text, std::chrono::seconds(60));
  return {r.exit_code, r.out, r.err};
}

bool ReadyAndUntainted(const nlohmann::json& node) {
  if (!node.value("/spec/taints"_json_pointer, nlohmann::json::array()).empty()) return false;
  for (const auto& c : node.value("/status/conditions"_json_pointer, nlohmann::json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

}  // namespace gangplank::real_cluster
