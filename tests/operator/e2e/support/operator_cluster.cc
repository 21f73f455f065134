#include "tests/operator/e2e/support/operator_cluster.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "kube/config.h"
#include "kube/rest_client.h"
#include "net/http_client.h"
#include "tests/extender/support/free_port.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/support/base64.h"
#include "tests/support/gpu_pod.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/seed_namespace_and_crds.h"

namespace gangplank::op::testing {
namespace {

using extender::testing::FreePort;
using extender::testing::Answers200;
using extender::testing::LoopbackClient;
using gangplank::testing::Base64Decode;

// A self-signed certificate for 127.0.0.1 (the webhook's), made with the openssl command.
void MakeCertificate(const std::filesystem::path& dir, std::string& cert, std::string& key) {
  cert = (dir / "webhook.crt").string();
  key = (dir / "webhook.key").string();
  const std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
                              "-addext subjectAltName=IP:127.0.0.1 -keyout " + key + " -out " + cert + " 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << "openssl could not make the webhook's certificate";
}

// The JSON patch operations the webhook answers with: "add" to an object member or a list's end.
void ApplyAdds(Json& object, const Json& patch) {
  for (const Json& op : patch) {
    ASSERT_EQ(op.value("op", ""), "add") << op.dump();
    std::string path = op.value("path", "");
    const bool append = path.size() > 2 && path.compare(path.size() - 2, 2, "/-") == 0;
    if (append) path.resize(path.size() - 2);
    Json& target = object[Json::json_pointer(path)];
    if (append) {
      target.push_back(op["value"]);
    } else {
      target = op["value"];
    }
  }
}

}  // namespace

void OperatorCluster::SetUp() {
  apiserver_double::DoubleOptions options;
  options.bookmark_interval = std::chrono::milliseconds(500);
  api_ = std::make_unique<apiserver_double::ApiServerDouble>(options);
  api_->Start();
  ASSERT_NO_FATAL_FAILURE(gangplank::testing::SeedNamespaceAndCrds(*api_));
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = std::filesystem::temp_directory_path() / ("gangplank-operator-e2e-" + std::to_string(::getpid()) + "-" + test->name());
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  kubeconfig_ = (dir_ / "kubeconfig").string();
  std::ofstream(kubeconfig_) << api_->KubeconfigYaml("ml");
  client_ = std::make_shared<kube::Client>(std::make_shared<kube::RestClient>(kube::LoadKubeconfig({kubeconfig_})));
  MakeCertificate(dir_, webhook_cert_, webhook_key_);
  extender_port_ = FreePort();
  driver_port_ = FreePort();
}

void OperatorCluster::TearDown() {
  if (driver_) driver_->Stop();
  for (size_t i = 0; i < operators_.size(); ++i) {
    if (operators_[i] && operators_[i]->Running()) {
      EXPECT_EQ(StopOperator(static_cast<int>(i)), 0) << "operator " << i << " did not exit 0 on SIGTERM";
    }
  }
  if (extender_) extender_->Stop();
  if (HasFailure() || std::getenv("GANGPLANK_KEEP_TEST_LOGS") != nullptr) {
    std::cerr << "logs kept in " << dir_ << "\n";
  } else {
    std::filesystem::remove_all(dir_);
  }
}

void OperatorCluster::Node(const std::string& name, const NodeOptions& options) {
  const std::string gpus = std::to_string(options.gpus);
  const Json amounts{{"cpu", "96"}, {"memory", "1024Gi"}, {"nvidia.com/gpu", gpus}, {"pods", "110"}};
  Json labels{{"nvidia.com/gpu.product", "H100"}, {"kubernetes.io/hostname", name}};
  for (const auto& [k, v] : options.labels) labels[k] = v;
  api_->put(Json{{"apiVersion", "v1"},
                 {"kind", "Node"},
                 {"metadata", {{"name", name}, {"labels", labels}}},
                 {"spec", Json::object()},
                 {"status", {{"capacity", amounts}, {"allocatable", amounts}}}});
}

void OperatorCluster::Pool(const std::string& name, const Json& spec) {
  api_->put(Json{{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"}, {"metadata", {{"name", name}}}, {"spec", spec}});
}

void OperatorCluster::Queue(const std::string& name, const Json& spec) {
  Json open = spec;  // open to every namespace unless the test says otherwise (queues are closed by default)
  if (!open.contains("namespaces")) open["namespaces"] = Json::array({"*"});
  api_->put(Json{{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "Queue"}, {"metadata", {{"name", name}}}, {"spec", open}});
}

Json OperatorCluster::PodObject(const std::string& name, const PodOptions& o) {
  Json pod = gangplank::testing::GpuPod(name, "ml", o.scheduler, o.gpus);
  pod["spec"]["priority"] = o.priority;  // The double runs no Priority admission: set as it would.
  pod["status"]["phase"] = "Pending";
  if (!o.queue.empty()) pod["metadata"]["labels"]["gangplank.io/queue"] = o.queue;
  if (!o.gang.empty()) pod["metadata"]["labels"]["gangplank.io/gang"] = o.gang;
  if (o.gang_size > 0) pod["metadata"]["annotations"]["gangplank.io/gang-size"] = std::to_string(o.gang_size);
  for (const auto& [k, v] : o.labels) pod["metadata"]["labels"][k] = v;
  for (const auto& [k, v] : o.annotations) pod["metadata"]["annotations"][k] = v;
  return pod;
}

Json OperatorCluster::Submit(Json pod) {
  // The API server's admission step: the first operator that is up reviews the pod over HTTPS.
  std::uint16_t port = 0;
  for (size_t i = 0; i < operators_.size(); ++i) {
    if (operators_[i] && operators_[i]->Running()) {
      port = webhook_ports_[i];
      break;
    }
  }
  EXPECT_NE(port, 0) << "no operator serves the webhook (failurePolicy Fail: the pod would be refused)";
  if (port != 0) {
    const Json review{{"apiVersion", "admission.k8s.io/v1"},
                      {"kind", "AdmissionReview"},
                      {"request",
                       {{"uid", "review-" + pod["metadata"].value("name", "")},
                        {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                        {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
                        {"operation", "CREATE"},
                        {"namespace", "ml"},
                        {"object", pod}}}};
    net::HttpClientOptions https;
    https.base_url = "https://127.0.0.1:" + std::to_string(port);
    https.tls.ca_file = webhook_cert_;
    auto http = net::MakeHttpClient(https);
    net::HttpClientRequest request;
    request.method = "POST";
    request.target = "/mutate-pods";
    request.headers = {{"Content-Type", "application/json"}};
    request.body = review.dump();
    const net::HttpClientResponse response = http->Send(request);
    EXPECT_EQ(response.status, 200) << response.body;
    const Json answer = Json::parse(response.body);
    EXPECT_EQ(answer["response"]["allowed"], true) << response.body;
    if (answer["response"].contains("patch")) ApplyAdds(pod, Json::parse(Base64Decode(answer["response"]["patch"])));
  }
  return client_->Create(kube::resources::Pods(), "ml", pod);
}

void OperatorCluster::SubmitGang(const std::string& gang, int size, const PodOptions& options) {
  PodOptions o = options;
  o.gang = gang;
  if (o.gang_size == 0) o.gang_size = size;
  for (int i = 0; i < size; ++i) Submit(PodObject(gang + "-" + std::to_string(i), o));
}

void OperatorCluster::Occupy(const std::string& name, const std::string& node, int gpus) {
  PodOptions o;
  o.gpus = gpus;
  o.scheduler = "default-scheduler";
  Json pod = PodObject(name, o);
  pod["spec"]["nodeName"] = node;
  pod["status"]["phase"] = "Running";
  api_->put(pod);
}

void OperatorCluster::Finish(const std::string& pod) {
  auto object = api_->Get("pods", "ml", pod);
  if (!object) return;
  (*object)["status"]["phase"] = "Succeeded";
  api_->put(*object);
}

void OperatorCluster::StartExtender() {
  const std::string log = (dir_ / ("extender-" + std::to_string(++runs_) + ".log")).string();
  extender_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{GANGPLANK_EXTENDER_BINARY, "--listen-address", "127.0.0.1", "--port",
                               std::to_string(extender_port_), "--kubeconfig", kubeconfig_, "--path-prefix", "/gangplank",
                               "--policy", "bestfit"},
      log);
  ASSERT_TRUE(WaitFor([&] { return Answers200(extender_port_, "/readyz"); })) << extender_->Log();
}

void OperatorCluster::StartOperator(int index, const std::vector<std::string>& extra) {
  while (static_cast<int>(operators_.size()) <= index) {
    operators_.emplace_back();
    operator_ports_.push_back(FreePort());
    webhook_ports_.push_back(FreePort());
  }
  std::vector<std::string> argv{GANGPLANK_OPERATOR_BINARY,
                                "--kubeconfig", kubeconfig_,
                                "--listen-address", "127.0.0.1",
                                "--port", std::to_string(operator_ports_[index]),
                                "--webhook-port", std::to_string(webhook_ports_[index]),
                                "--dry-run-port", "0",
                                "--webhook-tls-cert-file", webhook_cert_,
                                "--webhook-tls-key-file", webhook_key_,
                                "--leader-election-namespace", "ml",
                                "--leader-election-identity", "operator-" + std::to_string(index),
                                "--lease-duration-seconds", "3",
                                "--renew-deadline-seconds", "2",
                                "--retry-period-seconds", "1",
                                "--resync-seconds", "2",
                                "--status-interval-seconds", "1",
                                "--condition-rewrite-seconds", "1",
                                "--policy", "bestfit",
                                "--log-level", "debug"};
  argv.insert(argv.end(), operator_flags_.begin(), operator_flags_.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  const std::string log = (dir_ / ("operator-" + std::to_string(index) + "-" + std::to_string(++runs_) + ".log")).string();
  operators_[index] = std::make_unique<ChildProcess>(argv, log);
  const std::uint16_t port = operator_ports_[index];
  ASSERT_TRUE(WaitFor([&] { return Answers200(port, "/readyz"); })) << operators_[index]->Log();
}

int OperatorCluster::StopOperator(int index) {
  return operators_.at(index)->Stop();
}

void OperatorCluster::KillOperator(int index) { operators_.at(index)->Kill(); }

void OperatorCluster::StartDriver() {
  const std::string log = (dir_ / ("driver-" + std::to_string(++runs_) + ".log")).string();
  driver_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{GANGPLANK_SCHEDULER_DRIVER_BINARY, "--kubeconfig", kubeconfig_, "--extender-url",
                               "http://127.0.0.1:" + std::to_string(extender_port_) + "/gangplank",
                               "--metrics-bind-address", "127.0.0.1", "--metrics-port", std::to_string(driver_port_),
                               "--pod-max-backoff-seconds", "2", "--log-level", "debug"},
      log);
  ASSERT_TRUE(WaitFor([&] { return Answers200(driver_port_, "/readyz"); })) << driver_->Log();
}

bool OperatorCluster::WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

std::optional<Json> OperatorCluster::Pod(const std::string& name) const { return api_->Get("pods", "ml", name); }

std::string OperatorCluster::NodeOf(const std::string& pod) const {
  const auto object = Pod(pod);
  return object ? object->value("/spec/nodeName"_json_pointer, std::string()) : "";
}

std::string OperatorCluster::PlannedNodeOf(const std::string& pod) const {
  const auto object = Pod(pod);
  return object ? object->value("/metadata/annotations/gangplank.io~1planned-node"_json_pointer, std::string()) : "";
}

std::string OperatorCluster::AdmissionIdOf(const std::string& pod) const {
  const auto object = Pod(pod);
  return object ? object->value("/metadata/annotations/gangplank.io~1admission-id"_json_pointer, std::string()) : "";
}

bool OperatorCluster::Gated(const std::string& pod) const {
  const auto object = Pod(pod);
  if (!object) return false;
  for (const auto& gate : object->value("/spec/schedulingGates"_json_pointer, Json::array())) {
    if (gate.value("name", "") == "gangplank.io/admission") return true;
  }
  return false;
}

Json OperatorCluster::GangCondition(const std::string& pod) const {
  const auto object = Pod(pod);
  if (!object) return Json::object();
  for (const auto& c : object->value("/status/conditions"_json_pointer, Json::array())) {
    if (c.value("type", "") == "gangplank.io/GangAdmitted") return c;
  }
  return Json::object();
}

std::string OperatorCluster::LabelOf(const std::string& node, const std::string& key) const {
  const auto object = api_->Get("nodes", "", node);
  if (!object) return "";
  return object->value("/metadata/labels"_json_pointer, Json::object()).value(key, std::string());
}

std::vector<std::string> OperatorCluster::Names(const std::string& gang, int size) {
  std::vector<std::string> out;
  for (int i = 0; i < size; ++i) out.push_back(gang + "-" + std::to_string(i));
  return out;
}

bool OperatorCluster::AllBound(const std::vector<std::string>& pods) const {
  for (const auto& p : pods) {
    if (NodeOf(p).empty()) return false;
  }
  return true;
}

std::vector<std::string> OperatorCluster::Members(const std::string& gang) const {
  std::vector<std::string> out;
  for (const Json& pod : api_->List("pods", "ml")) {
    if (pod.value("/metadata/labels/gangplank.io~1gang"_json_pointer, std::string()) == gang) {
      out.push_back(pod["metadata"]["name"]);
    }
  }
  return out;
}

std::map<std::string, int> OperatorCluster::BoundGpusByQueue() const {
  std::map<std::string, int> out;
  for (const Json& pod : api_->List("pods", "ml")) {
    if (pod.value("/spec/nodeName"_json_pointer, std::string()).empty()) continue;
    const std::string phase = pod.value("/status/phase"_json_pointer, std::string());
    if (phase == "Succeeded" || phase == "Failed") continue;
    const std::string queue = pod.value("/metadata/labels/gangplank.io~1queue"_json_pointer, std::string());
    out[queue] += std::stoi(pod.value("/spec/containers/0/resources/requests/nvidia.com~1gpu"_json_pointer, std::string("0")));
  }
  return out;
}

double OperatorCluster::Metric(std::uint16_t port, const std::string& name) {
  LoopbackClient client(port);
  return gangplank::testing::SumOfMetric(client.Get("/metrics").body, name);
}

std::string OperatorCluster::HalfAdmittedGang() const {
  std::map<std::string, std::vector<Json>> gangs;
  for (const Json& pod : api_->List("pods", "ml")) {
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

std::string OperatorCluster::Logs() const {
  std::string out;
  for (size_t i = 0; i < operators_.size(); ++i) {
    if (operators_[i]) out += "--- operator " + std::to_string(i) + " (tail)\n" + operators_[i]->Log().substr(std::max<long>(0, static_cast<long>(operators_[i]->Log().size()) - 6000));
  }
  if (driver_) {
    const std::string log = driver_->Log();
    out += "--- driver (tail)\n" + log.substr(std::max<long>(0, static_cast<long>(log.size()) - 3000));
  }
  return out;
}

}  // namespace gangplank::op::testing
