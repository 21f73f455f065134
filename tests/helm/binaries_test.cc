// The chart's Deployments started for real: the extender's and the operator's containers as rendered
// (command, arguments, mounted certificate Secrets) become the real binaries built by CMake, talking to
// the real kube-apiserver (scripts/real-cluster.sh --no-gangplank) through a FaultProxy that records
// their requests. Only what a cluster supplies is substituted: the in-cluster credentials (a kubeconfig
// through the binaries' environment variables) and the mount paths (the rendered Secrets' files in a
// temporary folder). Then: both pass /readyz; the extender answers over TLS
// as kube-scheduler reaches it (its caFile and serverName); the webhook gates a pod over TLS as the API
// server reaches it (caBundle, Service name); the operator takes its Lease and admits a waiting gang;
// every API call either binary made is one its rendered RBAC allows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "kube/client.h"
#include "tests/extender/support/free_port.h"
#include "tests/support/shared_control_plane.h"
#include "tests/support/fault_proxy/fault_proxy.h"
#include "tests/support/subprocess.h"
#include "tests/support/yaml_json.h"
#include "tests/helm/support/child_process.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rbac_rules.h"
#include "tests/helm/support/rendered_objects.h"
#include "tests/helm/support/secret_files.h"

namespace gangplank::helm_testing {
namespace {

namespace fs = std::filesystem;
using gangplank::testing::run_process;

constexpr const char* kNamespace = "gangplank-system";
const kube::ResourceDescriptor kGpuPools{"gangplank.io", "v1alpha1", "gpupools", "GPUPool", false};
const kube::ResourceDescriptor kServiceAccounts{"", "v1", "serviceaccounts", "ServiceAccount", true};


// A container of a rendered pod, run on this machine: its secret volumes written out, its arguments'
// mount paths pointed at them.
struct LocalContainer {
  std::string binary;
  std::vector<std::string> args;
};

LocalContainer localize(const RenderedObjects& objects, const json& deployment, const std::string& container_name,
                        const std::string& binary, const fs::path& root) {
  const json& pod = deployment["spec"]["template"]["spec"];
  const json c = container_named(pod, container_name);
  std::map<std::string, fs::path> mounts;  // mountPath -> local folder
  for (const auto& vm : c.value("volumeMounts", json::array())) {
    for (const auto& v : pod.value("volumes", json::array())) {
      if (v["name"] != vm["name"] || !v.contains("secret")) continue;
      const fs::path local = root / (container_name + "-" + v["name"].get<std::string>());
      json secret = objects.get("Secret", v["secret"]["secretName"]);
      if (v["secret"].contains("items")) {  // only the projected keys, under their paths
        json projected = json::object();
        for (const auto& item : v["secret"]["items"]) projected[item["path"].get<std::string>()] = secret["data"][item["key"].get<std::string>()];
        secret["data"] = projected;
      }
      write_secret_files(secret, local);
      mounts[vm["mountPath"]] = local;
    }
  }
  LocalContainer out{binary, {}};
  EXPECT_EQ(fs::path(c["command"][0].get<std::string>()).filename(), fs::path(binary).filename())
      << "the image runs " << c["command"][0] << ", the build makes " << binary;
  for (const auto& a : c.value("args", json::array())) {
    std::string arg = a;
    for (const auto& [path, local] : mounts) {
      const auto at = arg.find(path + "/");
      if (at != std::string::npos) arg.replace(at, path.size(), local.string());
    }
    out.args.push_back(arg);
  }
  return out;
}

// curl, trusting only `ca` and resolving `host` to 127.0.0.1, as the cluster's DNS would to the Service.
// With `client`, presents <client>/tls.crt and tls.key (kube-scheduler's client certificate).
ProcessResult curl(const std::string& url, const std::string& host, int port, const fs::path& ca, const std::string& body = "",
                   const fs::path& client = {}) {
  std::vector<std::string> argv = {"/usr/bin/env", "curl", "--silent", "--show-error", "--max-time", "5", "--write-out", "\n%{http_code}"};
  if (!ca.empty()) argv.insert(argv.end(), {"--cacert", ca.string(), "--resolve", host + ":" + std::to_string(port) + ":127.0.0.1"});
  if (!client.empty()) argv.insert(argv.end(), {"--cert", (client / "tls.crt").string(), "--key", (client / "tls.key").string()});
  if (!body.empty()) argv.insert(argv.end(), {"-H", "Content-Type: application/json", "--data-binary", body});
  argv.push_back(url);
  return run_process(argv, "", std::chrono::seconds(10));
}

std::string http_code(const ProcessResult& r) { return r.out.size() >= 3 ? r.out.substr(r.out.size() - 3) : ""; }

template <class Predicate>
bool eventually(Predicate ok, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ok();
}

class ChartBinariesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = helm3().unavailable_reason();
    if (!why.empty()) FAIL() << why;
    if (run_process({"/usr/bin/env", "curl", "--version"}).exit_code != 0) FAIL() << "curl is needed (scripts/install-deps.sh installs it)";
    GANGPLANK_SET_UP_REAL_TARGET(plane_);
    dir_ = fs::temp_directory_path() / ("gangplank-chart-binaries-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (plane_ != nullptr) gangplank::testing::CleanUpRealTarget(*plane_, "ml", {"namespace/" + std::string(kNamespace)});
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  // Creates `object` on the real API server (kubectl, so any kind the cluster serves).
  void create(const json& object) {
    const auto r = real_cluster::Kubectl(plane_->kubeconfig(), {"create", "-f", "-"}, object.dump());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::optional<json> get(const kube::ResourceDescriptor& resource, const std::string& ns, const std::string& name) {
    return plane_->client().TryGet(resource, ns, name);
  }
  real_cluster::ControlPlane* plane_ = nullptr;
  fs::path dir_;
};

TEST_F(ChartBinariesTest, RenderedContainersRunTheRealBinariesReadyOverTlsWithinTheirRbac) {
  const std::uint16_t extender_port = extender::testing::FreePort();
  const std::uint16_t health_port = extender::testing::FreePort();
  const std::uint16_t operator_port = extender::testing::FreePort();
  const std::uint16_t webhook_port = extender::testing::FreePort();
  const std::uint16_t dry_run_port = extender::testing::FreePort();
  RenderOptions options;
  options.sets = {"extender.port=" + std::to_string(extender_port), "extender.healthPort=" + std::to_string(health_port),
                  "operator.port=" + std::to_string(operator_port),
                  "operator.webhook.port=" + std::to_string(webhook_port),
                  "operator.webhook.dryRunPort=" + std::to_string(dry_run_port)};
  const RenderedObjects objects(helm3().render_ok(options));

  // The binaries' API server: the real one, through a proxy that records every request.
  gangplank::testing::FaultProxy api(plane_->ProxyUpstream());
  api.Start();
  std::ofstream(dir_ / "kubeconfig") << api.KubeconfigYaml();
  // The cluster the chart is installed into: its namespace, its CRDs, a GPU node (kept Ready by KWOK), a
  // pool, a queue, and a pod of gangplank's that the webhook has gated.
  for (const char* ns : {kNamespace, "ml"}) {
    ASSERT_EQ(real_cluster::Kubectl(plane_->kubeconfig(), {"create", "namespace", ns}).exit_code, 0);
  }
  const auto crds = real_cluster::Kubectl(plane_->kubeconfig(), {"apply", "--server-side", "-f", chart_dir() + "/crds"});
  ASSERT_EQ(crds.exit_code, 0) << crds.err;
  ASSERT_EQ(real_cluster::Kubectl(plane_->kubeconfig(), {"wait", "--for", "condition=Established", "--timeout", "60s",
                                                         "crd/gpupools.gangplank.io", "crd/queues.gangplank.io"}).exit_code, 0);
  create({{"apiVersion", "v1"}, {"kind", "Node"},
          {"metadata", {{"name", "gpu-0"}, {"labels", {{"kubernetes.io/hostname", "gpu-0"}, {"nvidia.com/gpu.product", "A100"}}},
                        {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
          {"status", {{"allocatable", {{"cpu", "32"}, {"memory", "256Gi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}}},
                      {"capacity", {{"cpu", "32"}, {"memory", "256Gi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}}}}}});
  ASSERT_TRUE(gangplank::testing::WaitUntil([&] {
    const auto node = get(kube::resources::Nodes(), "", "gpu-0");
    return node && gangplank::real_cluster::ReadyAndUntainted(*node);
  })) << "KWOK did not make gpu-0 Ready";
  create({{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"}, {"metadata", {{"name", "a100"}}},
          {"spec", {{"gpuModel", "A100"}, {"topologyLevels", {"kubernetes.io/hostname"}}}}});
  create({{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "Queue"}, {"metadata", {{"name", "team-a"}}},
          {"spec", {{"weight", 1}, {"namespaces", nlohmann::json::array({"*"})}}}});
  ASSERT_TRUE(gangplank::testing::WaitUntil([&] { return get(kServiceAccounts, "ml", "default").has_value(); }));
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"},
              {"metadata", {{"name", "train-0"}, {"namespace", "ml"}, {"labels", {{"gangplank.io/queue", "team-a"}}}}}};
  json container = {{"name", "main"}, {"image", "trainer"}};
  container["resources"]["requests"] = {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "2"}};
  container["resources"]["limits"] = {{"nvidia.com/gpu", "2"}};
  pod["spec"]["schedulerName"] = "gangplank";
  pod["spec"]["schedulingGates"] = json::array({{{"name", "gangplank.io/admission"}}});
  pod["spec"]["containers"] = json::array({container});
  create(pod);

  const json extender_deployment = objects.get("Deployment", "gangplank-extender");
  const json operator_deployment = objects.get("Deployment", "gangplank-operator");
  const LocalContainer ext = localize(objects, extender_deployment, "extender", GANGPLANK_EXTENDER_BINARY, dir_);
  const LocalContainer op = localize(objects, operator_deployment, "operator", GANGPLANK_OPERATOR_BINARY, dir_);
  const std::string kubeconfig = (dir_ / "kubeconfig").string();
  ChildProcess extender(ext.binary, ext.args, {{"GANGPLANK_EXTENDER_KUBECONFIG", kubeconfig}}, (dir_ / "extender.log").string());
  ChildProcess operator_(op.binary, op.args,
                         {{"GANGPLANK_OPERATOR_KUBECONFIG", kubeconfig}},
                         (dir_ / "operator.log").string());

  // kube-scheduler's view of the extender: the rendered urlPrefix, caFile (ca.crt of the extender's
  // Secret) and serverName.
  const json scheduler_cm = objects.get("ConfigMap", "gangplank-scheduler");
  const json entry = gangplank::testing::ParseYamlDocuments(scheduler_cm["data"]["config.yaml"].get<std::string>()).front()["extenders"][0];
  const std::string url_prefix = entry["urlPrefix"];
  const std::string server_name = entry["tlsConfig"]["serverName"];
  write_secret_files(objects.get("Secret", "gangplank-extender-tls"), dir_ / "scheduler-ca");
  const fs::path scheduler_ca = dir_ / "scheduler-ca" / "ca.crt";
  // kubelet's probes go to the health port, which asks for no client certificate.
  const std::string health_ready = "https://" + server_name + ":" + std::to_string(health_port) + "/readyz";
  EXPECT_TRUE(eventually([&] { return http_code(curl(health_ready, server_name, health_port, scheduler_ca)) == "200"; },
                         std::chrono::seconds(30)))
      << curl(health_ready, server_name, health_port, scheduler_ca).err << "\n" << extender.log();
  // The verbs' port asks for kube-scheduler's client certificate (tlsConfig certFile/keyFile).
  write_secret_files(objects.get("Secret", "gangplank-scheduler-client-tls"), dir_ / "scheduler-client");
  const fs::path scheduler_client = dir_ / "scheduler-client";
  const std::string operator_ready = "http://127.0.0.1:" + std::to_string(operator_port) + "/readyz";
  EXPECT_TRUE(eventually([&] { return http_code(curl(operator_ready, "", 0, {})) == "200"; }, std::chrono::seconds(30)))
      << operator_.log();

  // A filter call as kube-scheduler makes it, over the same TLS.
  const std::string filter_body =
      R"({"Pod":{"metadata":{"name":"p","namespace":"ml","uid":"u-1"},"spec":{"containers":[{"resources":{"requests":{"nvidia.com/gpu":"1"}}}]}},"Nodes":null,"NodeNames":["gpu-0"]})";
  const std::string filter_url = url_prefix + "/" + entry["filterVerb"].get<std::string>();
  const ProcessResult filter = curl(filter_url, server_name, extender_port, scheduler_ca, filter_body, scheduler_client);
  EXPECT_EQ(http_code(filter), "200") << filter.out << filter.err;
  EXPECT_EQ(http_code(curl(filter_url, server_name, extender_port, scheduler_ca, filter_body)), "000")
      << "a caller without kube-scheduler's certificate is refused at the handshake";
  // The extender's own serving certificate: the same CA signed it (for client auth too), but not for
  // kube-scheduler's name (--client-cert-name), so it is refused as well (review item L7).
  EXPECT_EQ(http_code(curl(filter_url, server_name, extender_port, scheduler_ca, filter_body, dir_ / "scheduler-ca")), "000")
      << "a certificate of the chart's CA for another service is refused at the handshake";
  EXPECT_NE(filter.out.find(R"("NodeNames":["gpu-0"])"), std::string::npos) << filter.out;

  // The API server's view of the webhook: caBundle, Service name, port 443 -> the webhook port, path.
  const json hook = objects.get("MutatingWebhookConfiguration", "gangplank-operator")["webhooks"][0];
  std::ofstream(dir_ / "ca-bundle.crt") << Base64Decode(hook["clientConfig"]["caBundle"].get<std::string>());
  const std::string webhook_host = hook["clientConfig"]["service"]["name"].get<std::string>() + "." + kNamespace + ".svc";
  const json review = {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"},
                       {"request", {{"uid", "r-1"}, {"operation", "CREATE"}, {"namespace", "ml"},
                                    {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                                    {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
                                    {"object", {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "w"}, {"namespace", "ml"}}},
                                                {"spec", {{"schedulerName", "gangplank"}, {"containers", {{{"name", "m"}, {"image", "x"}}}}}}}}}}};
  const std::string webhook_url = "https://" + webhook_host + ":" + std::to_string(webhook_port) + hook["clientConfig"]["service"]["path"].get<std::string>();
  const ProcessResult gated = curl(webhook_url, webhook_host, webhook_port, dir_ / "ca-bundle.crt", review.dump());
  ASSERT_EQ(http_code(gated), "200") << gated.out << gated.err << operator_.log();
  const json answer = json::parse(gated.out.substr(0, gated.out.size() - 4));
  EXPECT_EQ(answer["response"]["uid"], "r-1");
  EXPECT_TRUE(answer["response"]["allowed"].get<bool>());
  EXPECT_NE(Base64Decode(answer["response"]["patch"].get<std::string>()).find("gangplank.io/admission"), std::string::npos);
  // The dry run is on its own port, under the webhook's certificate, and asks for a token first; the
  // webhook's port says where it went.
  const std::string dry_run_url = "https://" + webhook_host + ":" + std::to_string(dry_run_port) + "/dry-run";
  const ProcessResult anonymous = curl(dry_run_url, webhook_host, dry_run_port, dir_ / "ca-bundle.crt", R"({"pods":[]})");
  EXPECT_EQ(http_code(anonymous), "401") << anonymous.out << anonymous.err << operator_.log();
  const std::string moved_url = "https://" + webhook_host + ":" + std::to_string(webhook_port) + "/dry-run";
  const ProcessResult moved = curl(moved_url, webhook_host, webhook_port, dir_ / "ca-bundle.crt", R"({"pods":[]})");
  EXPECT_EQ(http_code(moved), "404") << moved.out;
  EXPECT_NE(moved.out.find(":" + std::to_string(dry_run_port)), std::string::npos) << moved.out;

  // The operator leads on its own Lease in the release namespace and admits the waiting gang.
  EXPECT_TRUE(eventually([&] {
    const auto lease = get(kube::resources::Leases(), kNamespace, "gangplank-operator");
    return lease && !lease->value("/spec/holderIdentity"_json_pointer, std::string()).empty();
  }, std::chrono::seconds(20))) << operator_.log();
  EXPECT_TRUE(eventually([&] {
    const auto pod = get(kube::resources::Pods(), "ml", "train-0");
    return pod && pod->value("/spec/schedulingGates"_json_pointer, json::array()).empty() &&
           pod->value("/metadata/annotations/gangplank.io~1planned-node"_json_pointer, std::string()) == "gpu-0";
  }, std::chrono::seconds(30))) << get(kube::resources::Pods(), "ml", "train-0").value_or(json()).dump() << "\n" << operator_.log();
  EXPECT_TRUE(eventually([&] {
    const auto pool = get(kGpuPools, "", "a100");
    return pool && pool->value("/status/capacityGPUs"_json_pointer, 0) == 8;
  }, std::chrono::seconds(20))) << get(kGpuPools, "", "a100").value_or(json()).dump();

  // Custom resources do not gate readiness (their CRD may be missing), so an informer's watch may come a
  // moment after the checks above on a loaded machine (seen in CI: no watch of queues yet): let each
  // binary make its calls before it is stopped and they are judged.
  const auto made = [&](const std::string& agent, const std::string& verb, const std::string& resource) {
    for (const auto& r : api.Requests()) {
      const RequestAttributes a = attributes_of(r.method, r.path, r.query);
      if (a.resource_request && r.user_agent.rfind(agent, 0) == 0 && a.verb == verb && a.resource == resource) return true;
    }
    return false;
  };
  EXPECT_TRUE(eventually([&] { return made("gangplank/", "watch", "queues") && made("gangplank/", "watch", "nodes"); },
                         std::chrono::seconds(30)))
      << extender.log();
  EXPECT_EQ(extender.terminate(), 0) << extender.log();
  EXPECT_EQ(operator_.terminate(), 0) << operator_.log();
  api.Stop();

  // Every call each binary made is allowed by the RBAC the chart gives its ServiceAccount; and the calls
  // cover the informers, the Lease, the admission writes and the status writes.
  const auto extender_grants = grants_of(objects, kNamespace, extender_deployment["spec"]["template"]["spec"]["serviceAccountName"]);
  const auto operator_grants = grants_of(objects, kNamespace, operator_deployment["spec"]["template"]["spec"]["serviceAccountName"]);
  std::set<std::string> extender_calls, operator_calls;
  for (const auto& r : api.Requests()) {
    const RequestAttributes a = attributes_of(r.method, r.path, r.query);
    if (!a.resource_request) continue;
    if (r.user_agent.rfind("gangplank-operator/", 0) == 0) {
      EXPECT_TRUE(allowed(operator_grants, a)) << "operator: " << a.text() << " (" << r.method << " " << r.path << "?" << r.query << ")";
      operator_calls.insert(a.verb + " " + a.resource);
    } else if (r.user_agent.rfind("gangplank/", 0) == 0) {
      EXPECT_TRUE(allowed(extender_grants, a)) << "extender: " << a.text() << " (" << r.method << " " << r.path << "?" << r.query << ")";
      extender_calls.insert(a.verb + " " + a.resource);
    }
  }
  for (const char* call : {"list nodes", "watch nodes", "list pods", "watch pods", "list namespaces", "list gpupools", "watch queues"}) {
    EXPECT_TRUE(extender_calls.count(call)) << "the extender made no " << call;
  }
  for (const char* call : {"list nodes", "watch pods", "list gpupools", "list queues", "create leases", "update leases", "patch pods",
                           "get gpupools", "update gpupools/status"}) {
    EXPECT_TRUE(operator_calls.count(call)) << "the operator made no " << call;
  }
}

}  // namespace
}  // namespace gangplank::helm_testing
