#include "tests/operator/e2e/support/operator_cluster.h"

#include <algorithm>
#include <fstream>
#include <set>

#include "tests/extender/support/free_port.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/yaml_json.h"

namespace gangplank::op::testing {
namespace {

using extender::testing::Answers200;
using extender::testing::FreePort;
using extender::testing::LoopbackClient;

// The bearer token of a kubeconfig scripts/real-cluster.sh wrote for a ServiceAccount.
std::string TokenOf(const std::string& kubeconfig) {
  std::ifstream in(kubeconfig);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return gangplank::testing::ParseYamlDocuments(text).at(0)["users"][0]["user"].value("token", "");
}

}  // namespace

void OperatorCluster::SetUp() {
  RealClusterTest::SetUp();
  if (IsSkipped() || HasFatalFailure()) return;
  // The control plane's operator gives way to the test's (a no-op once it is gone), and its Lease with
  // it, so the test's operators campaign at once.
  cluster().Kill("gangplank-operator");
  client().Remove(kube::resources::Leases(), "gangplank-system", "gangplank-operator");
  proxy_ = std::make_unique<gangplank::testing::FaultProxy>(cluster().ProxyUpstream());
  proxy_->Start();
  kubeconfig_ = (cluster().dir() / (ns() + "-operator.kubeconfig")).string();
  std::ofstream(kubeconfig_) << proxy_->KubeconfigYaml(TokenOf((cluster().dir() / "operator.kubeconfig").string()));
}

void OperatorCluster::TearDown() {
  for (size_t i = 0; i < operators_.size(); ++i) {
    if (operators_[i] && operators_[i]->Running()) {
      EXPECT_EQ(StopOperator(static_cast<int>(i)), 0) << "operator " << i << " did not exit 0 on SIGTERM";
    }
  }
  if (HasFailure()) std::cerr << Logs();
  operators_.clear();
  if (proxy_) proxy_->Stop();
  RealClusterTest::TearDown();
}

void OperatorCluster::Occupy(const std::string& name, const std::string& node, int gpus) {
  if (!exempt_) {
    ExemptFromFence();
    exempt_ = true;
  }
  Create(RealClusterTest::PodObject(name, real_cluster::PodSpec().Gpus(gpus).BoundTo(node)));
}

void OperatorCluster::StartOperator(int index, const std::vector<std::string>& extra) {
  while (static_cast<int>(operators_.size()) <= index) {
    operators_.emplace_back();
    operator_ports_.push_back(FreePort());
  }
  const std::string dir = cluster().dir().string();
  const std::string hook_port = std::to_string(index == 0 ? cluster().webhook_port() : FreePort());
  std::vector<std::string> argv{GANGPLANK_BUILD_DIR "/operator/gangplank-operator",
                                "--kubeconfig", kubeconfig_,
                                "--listen-address", "127.0.0.1",
                                "--port", std::to_string(operator_ports_[index]),
                                "--scheduler-name", "gangplank",
                                "--webhook-port", hook_port,
                                "--webhook-path", "/mutate-pods",
                                "--dry-run-port", "0",
                                "--webhook-tls-cert-file", dir + "/pki/webhook.crt",
                                "--webhook-tls-key-file", dir + "/pki/webhook.key",
                                "--plan-seal-key-file", dir + "/pki/plan-seal.key",
                                "--leader-election-namespace", "gangplank-system",
                                "--leader-election-name", "gangplank-operator",
                                "--leader-election-identity", ns() + "-operator-" + std::to_string(index),
                                "--lease-duration-seconds", "3",
                                "--renew-deadline-seconds", "2",
                                "--retry-period-seconds", "1",
                                "--resync-seconds", "2",
                                "--status-interval-seconds", "1",
                                "--condition-rewrite-seconds", "1",
                                "--waiting-condition-delay-seconds", "1",
                                "--log-level", "debug"};
  argv.insert(argv.end(), operator_flags_.begin(), operator_flags_.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  const std::string log = dir + "/" + ns() + "-operator-" + std::to_string(index) + "-" + std::to_string(++runs_) + ".log";
  operators_[index] = std::make_unique<ChildProcess>(argv, log);
  const std::uint16_t port = operator_ports_[index];
  ASSERT_TRUE(WaitFor([&] { return Answers200(port, "/readyz"); })) << operators_[index]->Log();
}

int OperatorCluster::StopOperator(int index) { return operators_.at(index)->Stop(); }

void OperatorCluster::KillOperator(int index) { operators_.at(index)->Kill(); }

std::vector<std::string> OperatorCluster::Members(const std::string& gang) {
  std::vector<std::string> out;
  for (const Json& pod : Pods("gangplank.io/gang=" + gang)) out.push_back(pod["metadata"]["name"]);
  return out;
}

double OperatorCluster::OperatorMetric(const std::string& name, int index) const {
  LoopbackClient client(operator_ports_.at(index));
  return gangplank::testing::SumOfMetric(client.Get("/metrics").body, name);
}

int OperatorCluster::EventsAbout(const std::string& object, const std::string& reason) {
  int n = 0;
  const Json events = client().List(kube::resources::Events(), ns());  // Held: a range over a temporary's member dangles.
  for (const Json& e : events["items"]) {
    if (e.value("reason", "") == reason && e.value("/involvedObject/name"_json_pointer, std::string()) == object) ++n;
  }
  return n;
}

std::string OperatorCluster::HalfAdmittedGang() {
  std::map<std::string, std::vector<Json>> gangs;
  for (const Json& pod : Pods()) {
    const std::string gang = pod.value("/metadata/labels/gangplank.io~1gang"_json_pointer, std::string());
    if (!gang.empty()) gangs[gang].push_back(pod);
  }
  for (const auto& [gang, pods] : gangs) {
    bool released = false;
    std::set<std::string> ids;
    for (const Json& pod : pods) {
      bool gated = false;
      for (const auto& gate : pod.value("/spec/schedulingGates"_json_pointer, Json::array())) {
        gated = gated || gate.value("name", "") == "gangplank.io/admission";
      }
      released = released || !gated;
      ids.insert(pod.value("/metadata/annotations/gangplank.io~1admission-id"_json_pointer, std::string()));
    }
    if (released && (ids.size() != 1 || ids.begin()->empty())) return gang;
  }
  return "";
}

std::string OperatorCluster::Logs() {
  std::string out = RealClusterTest::Logs();
  for (size_t i = 0; i < operators_.size(); ++i) {
    if (!operators_[i]) continue;
    const std::string log = operators_[i]->Log();
    out += "--- test operator " + std::to_string(i) + " (tail)\n" + log.substr(std::max<long>(0, static_cast<long>(log.size()) - 6000));
  }
  return out;
}

}  // namespace gangplank::op::testing
