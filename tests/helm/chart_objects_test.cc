// What the chart renders, object by object (Helm 3): hardened pods with probes and requests, spread and
// budgeted replicas, RBAC that grants exactly what each binary calls, the webhook the operator README
// argues for, certificates that chain to the CA the clients trust, the extender's flags agreeing with
// kube-scheduler's extender entry, and monitoring objects that use the binaries' real metric names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/yaml_json.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rbac_rules.h"
#include "tests/helm/support/rendered_objects.h"
#include "tests/helm/support/secret_files.h"

namespace gangplank::helm_testing {
namespace {

namespace fs = std::filesystem;

RenderedObjects render(const std::vector<std::string>& values = {}, const std::vector<std::string>& sets = {}) {
  RenderOptions options;
  for (const auto& v : values) options.values_files.push_back(chart_dir() + "/ci/" + v + "-values.yaml");
  options.sets = sets;
  return RenderedObjects(helm3().render_ok(options));
}


json scheduler_config(const RenderedObjects& objects, const std::string& name = "gangplank-scheduler") {
  const json cm = objects.get("ConfigMap", name);
  auto docs = gangplank::testing::ParseYamlDocuments(cm.value("/data/config.yaml"_json_pointer, std::string()));
  return docs.empty() ? json::object() : docs.front();
}

class ChartObjectsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = helm3().unavailable_reason();
    if (!why.empty()) FAIL() << why;
  }
};

TEST_F(ChartObjectsTest, EveryPodIsNonRootReadOnlyWithoutEscalationProbedAndRequested) {
  std::vector<std::string> sets = {""};
  for (const auto& f : ci_values_files()) sets.push_back(values_name(f));
  for (const auto& name : sets) {
    const RenderedObjects objects = name.empty() ? render() : render({name});
    ASSERT_FALSE(objects.of_kind("Deployment").empty()) << name;
    for (const auto& d : objects.of_kind("Deployment")) {
      const std::string where = name + " " + d["metadata"].value("name", "");
      const json& pod = d["spec"]["template"]["spec"];
      EXPECT_TRUE(pod.value("/securityContext/runAsNonRoot"_json_pointer, false)) << where;
      EXPECT_GT(pod.value("/securityContext/runAsUser"_json_pointer, 0), 0) << where;
      EXPECT_FALSE(pod.value("serviceAccountName", "").empty()) << where;
      std::set<std::string> port_names;  // unique in the pod, so a Service's named targetPort is unambiguous
      for (const auto& c : pod["containers"]) {
        for (const auto& p : c.value("ports", json::array())) EXPECT_TRUE(port_names.insert(p.value("name", "")).second) << where << " port " << p;
      }
      for (const auto& c : pod["containers"]) {
        const std::string at = where + "/" + c.value("name", "");
        EXPECT_FALSE(c.value("/securityContext/allowPrivilegeEscalation"_json_pointer, true)) << at;
        EXPECT_TRUE(c.value("/securityContext/readOnlyRootFilesystem"_json_pointer, false)) << at;
        EXPECT_TRUE(c.value("/securityContext/runAsNonRoot"_json_pointer, false)) << at;
        EXPECT_EQ(c.value("/securityContext/capabilities/drop"_json_pointer, json::array()), json({"ALL"})) << at;
        EXPECT_TRUE(c.contains("/resources/requests/cpu"_json_pointer)) << at;
        EXPECT_TRUE(c.contains("/resources/requests/memory"_json_pointer)) << at;
        EXPECT_EQ(c.value("/livenessProbe/httpGet/path"_json_pointer, std::string()), "/healthz") << at;
        EXPECT_EQ(c.value("/readinessProbe/httpGet/path"_json_pointer, std::string()), "/readyz") << at;
        // Probes name a port the container declares.
        const json probe_port = c["readinessProbe"]["httpGet"]["port"];
        bool declared = false;
        for (const auto& p : c.value("ports", json::array())) declared |= p.value("name", "") == probe_port;
        EXPECT_TRUE(declared) << at << " probes port " << probe_port;
      }
    }
  }
}

// Review item L8: every GPU pod waits on these pods (the webhook fails closed, the scheduler binds), so a
// tenant's high-priority pod must not preempt them: system-cluster-critical by default, "" for none.
TEST_F(ChartObjectsTest, GangplanksOwnPodsAreClusterCriticalByDefault) {
  const RenderedObjects objects = render();
  ASSERT_EQ(objects.of_kind("Deployment").size(), 3u);
  for (const auto& d : objects.of_kind("Deployment")) {
    EXPECT_EQ(d.value("/spec/template/spec/priorityClassName"_json_pointer, std::string()), "system-cluster-critical")
        << d["metadata"].value("name", "");
  }
  const RenderedObjects plain = render({}, {"operator.priorityClassName=", "extender.priorityClassName=", "scheduler.priorityClassName="});
  for (const auto& d : plain.of_kind("Deployment")) {
    EXPECT_FALSE(d.contains("/spec/template/spec/priorityClassName"_json_pointer)) << d["metadata"].value("name", "");
  }
}

TEST_F(ChartObjectsTest, ReplicasSpreadOverNodesWithBudgetsAndLeaderElection) {
  const RenderedObjects objects = render();
  for (const char* component : {"extender", "operator", "scheduler"}) {
    const json d = objects.get("Deployment", std::string("gangplank-") + component);
    EXPECT_EQ(d["spec"]["replicas"], 2) << component;
    const json& labels = d["spec"]["template"]["metadata"]["labels"];
    const json term = d.value("/spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/podAffinityTerm"_json_pointer,
                              json::object());
    EXPECT_EQ(term.value("topologyKey", ""), "kubernetes.io/hostname") << component;
    const json match = term.value("/labelSelector/matchLabels"_json_pointer, json::object());
    ASSERT_FALSE(match.empty()) << component;
    for (const auto& [k, v] : match.items()) {
      EXPECT_EQ(labels.value(k, ""), v) << component << " anti-affinity selects other pods";
    }
    const json pdb = objects.get("PodDisruptionBudget", std::string("gangplank-") + component);
    EXPECT_EQ(pdb["spec"]["maxUnavailable"], 1) << component;
    for (const auto& [k, v] : pdb["spec"]["selector"]["matchLabels"].items()) EXPECT_EQ(labels.value(k, ""), v) << component;
    EXPECT_EQ(d["spec"]["selector"]["matchLabels"], pdb["spec"]["selector"]["matchLabels"]) << component;
  }
  const json op = container_named(objects.get("Deployment", "gangplank-operator")["spec"]["template"]["spec"], "operator");
  EXPECT_TRUE(has_flag(op, "--leader-elect"));
  EXPECT_EQ(arg_value(op, "--leader-election-namespace"), "gangplank-system");
  EXPECT_EQ(arg_value(op, "--leader-election-name"), "gangplank-operator");
  const json le = scheduler_config(objects)["leaderElection"];
  EXPECT_EQ(le["leaderElect"], true);
  EXPECT_EQ(le["resourceName"], "gangplank-scheduler");
  EXPECT_EQ(le["resourceNamespace"], "gangplank-system");

  const RenderedObjects single = render({"single-replica"});
  EXPECT_TRUE(single.of_kind("PodDisruptionBudget").empty());
  const json single_op = container_named(single.get("Deployment", "gangplank-operator")["spec"]["template"]["spec"], "operator");
  EXPECT_TRUE(has_flag(single_op, "--no-leader-elect"));
  EXPECT_FALSE(single.find("Role", "gangplank-operator-leader-election"));
}

std::set<std::string> grant_texts(const std::set<Grant>& grants) {
  std::set<std::string> out;
  for (const auto& g : grants) out.insert(g.text());
  return out;
}

// (group, plural) of every owner kind the operator reads to size a gang: the kinds named in
// cache/objects/gang_identity.cc, pluralised as operator/gangs/kube_object_reader.cc does.
std::set<std::pair<std::string, std::string>> owner_kinds_in_source() {
  const std::string source = read_text_file(source_dir() + "/cache/objects/gang_identity.cc");
  std::set<std::pair<std::string, std::string>> out;
  const std::regex kind_then_version("\"([A-Z][A-Za-z]+)\", \"([a-z0-9.-]+)/(v[0-9a-z]+)\"");
  const std::regex version_then_kind("\"([a-z0-9.-]+)/(v[0-9a-z]+)\", \"([A-Z][A-Za-z]+)\"");
  auto plural = [](std::string kind) {
    for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return kind + "s";
  };
  for (std::sregex_iterator it(source.begin(), source.end(), kind_then_version), end; it != end; ++it) {
    out.insert({(*it)[2], plural((*it)[1])});
  }
  for (std::sregex_iterator it(source.begin(), source.end(), version_then_kind), end; it != end; ++it) {
    out.insert({(*it)[1], plural((*it)[3])});
  }
  return out;
}

TEST_F(ChartObjectsTest, RbacGrantsExactlyTheCallsEachBinaryMakes) {
  const RenderedObjects objects = render();
  // extender: informers (cache/feed/shared_informers.cc, cluster_state_feed.cc) list and watch; nothing else.
  std::set<std::string> extender;
  std::set<std::string> dra;  // DRA's objects (the GPUs of claims), for both.
  for (const char* r : {"resource.k8s.io/resourceslices", "resource.k8s.io/deviceclasses", "resource.k8s.io/resourceclaims",
                        "resource.k8s.io/resourceclaimtemplates"}) {
    dra.insert(std::string(r) + " list");
    dra.insert(std::string(r) + " watch");
  }
  for (const char* r : {"core/nodes", "core/namespaces", "core/pods", "gangplank.io/gpupools", "gangplank.io/queues"}) {
    extender.insert(std::string(r) + " list");
    extender.insert(std::string(r) + " watch");
  }
  extender.insert(dra.begin(), dra.end());
  EXPECT_EQ(grant_texts(grants_of(objects, "gangplank-system", "gangplank-extender")), extender);

  // operator: informers, admission writes, evictions, budgets, status, events, owners, its Lease.
  std::set<std::string> op = {
      "core/nodes list", "core/nodes watch", "core/namespaces list", "core/namespaces watch",
      "core/pods get", "core/pods list", "core/pods watch", "core/pods patch", "core/pods delete", "core/pods/status patch",
      "core/pods/eviction create", "core/events create", "core/events patch", "policy/poddisruptionbudgets list",
      "gangplank.io/gpupools get", "gangplank.io/gpupools list", "gangplank.io/gpupools watch",
      "gangplank.io/queues get", "gangplank.io/queues list", "gangplank.io/queues watch",
      "gangplank.io/gpupools/status update", "gangplank.io/queues/status update",
      // The dry run asks who calls and whether they may (operator/service/dry_run_access.cc).
      "authentication.k8s.io/tokenreviews create", "authorization.k8s.io/subjectaccessreviews create",
      "[gangplank-system] coordination.k8s.io/leases create",
      "[gangplank-system] coordination.k8s.io/leases get gangplank-operator",
      "[gangplank-system] coordination.k8s.io/leases update gangplank-operator",
      // Autoscaled pools' placeholder pods, in its own namespace only (operator/autoscaling).
      "[gangplank-system] core/pods create",
      // Kubernetes' own gangs: the PodGroup's terms (read and watched), its Workload's wording, the
      // condition in its status (operator/gangs/gang_size_resolver.cc, operator/service/controller.cc,
      // operator/writer/kube_cluster_writer.cc).
      "scheduling.k8s.io/podgroups get", "scheduling.k8s.io/podgroups list", "scheduling.k8s.io/podgroups watch",
      "scheduling.k8s.io/workloads get", "scheduling.k8s.io/podgroups/status patch"};
  op.insert(dra.begin(), dra.end());
  const auto owners = owner_kinds_in_source();
  ASSERT_GE(owners.size(), 10u);  // Job, JobSet, PodGroup, RayCluster, the Kubeflow kinds
  for (const auto& [group, plural] : owners) op.insert((group.empty() ? "core" : group) + "/" + plural + " get");
  EXPECT_EQ(grant_texts(grants_of(objects, "gangplank-system", "gangplank-operator")), op);

  // kube-scheduler: the cluster's own roles for schedulers, plus its Lease.
  std::vector<std::string> builtin;
  const auto scheduler = grants_of(objects, "gangplank-system", "gangplank-scheduler", &builtin);
  EXPECT_EQ(std::set<std::string>(builtin.begin(), builtin.end()),
            (std::set<std::string>{"ClusterRole/system:kube-scheduler", "ClusterRole/system:volume-scheduler",
                                   "ClusterRole/system:auth-delegator", "Role/extension-apiserver-authentication-reader in kube-system"}));
  EXPECT_EQ(grant_texts(scheduler), (std::set<std::string>{"[gangplank-system] coordination.k8s.io/leases create",
                                                           "[gangplank-system] coordination.k8s.io/leases get gangplank-scheduler",
                                                           "[gangplank-system] coordination.k8s.io/leases update gangplank-scheduler"}));

  // Nothing anywhere reads Secrets or uses a wildcard.
  for (const char* kind : {"ClusterRole", "Role"}) {
    for (const auto& role : objects.of_kind(kind)) {
      EXPECT_EQ(role.dump().find("\"*\""), std::string::npos) << role.dump();
      EXPECT_EQ(role.dump().find("secrets"), std::string::npos) << role.dump();
    }
  }

  // With bindVerb the extender creates Bindings (and reads the pod back); as a sidecar it runs under the
  // scheduler's ServiceAccount, which then holds the extender's rules too.
  const RenderedObjects sidecar = render({"sidecar"});
  const auto sidecar_grants = grant_texts(grants_of(sidecar, "gangplank-system", "gangplank-scheduler"));
  for (const char* g : {"core/pods get", "core/pods/binding create", "core/nodes watch", "gangplank.io/queues list"}) {
    EXPECT_TRUE(sidecar_grants.count(g)) << g;
  }
  EXPECT_FALSE(sidecar.find("ServiceAccount", "gangplank-extender"));
  EXPECT_FALSE(sidecar.find("Deployment", "gangplank-extender"));
}

TEST_F(ChartObjectsTest, WebhookFailsClosedOnlyForGangplankPodsOutsideSystemNamespaces) {
  const RenderedObjects objects = render();
  const json config = objects.get("MutatingWebhookConfiguration", "gangplank-operator");
  ASSERT_EQ(config["webhooks"].size(), 1u);
  const json& hook = config["webhooks"][0];
  EXPECT_EQ(hook["failurePolicy"], "Fail");
  EXPECT_EQ(hook["sideEffects"], "None");
  EXPECT_EQ(hook["admissionReviewVersions"], json({"v1"}));
  EXPECT_EQ(hook["rules"][0]["operations"], json({"CREATE"}));
  EXPECT_EQ(hook["rules"][0]["resources"], json({"pods"}));
  EXPECT_EQ(hook["matchConditions"][0]["expression"], "object.spec.schedulerName == 'gangplank'");
  const json& expr = hook["namespaceSelector"]["matchExpressions"][0];
  EXPECT_EQ(expr["key"], "kubernetes.io/metadata.name");
  EXPECT_EQ(expr["operator"], "NotIn");
  EXPECT_EQ(expr["values"], json({"kube-system", "gangplank-system"}));

  // The service, port and path lead to the operator container's webhook listener.
  const json& svc_ref = hook["clientConfig"]["service"];
  const json svc = objects.get("Service", svc_ref["name"]);
  EXPECT_EQ(svc_ref["namespace"], "gangplank-system");
  std::string target;
  for (const auto& p : svc["spec"]["ports"]) {
    if (p["port"] == svc_ref["port"]) target = p["targetPort"];
  }
  const json op = container_named(objects.get("Deployment", "gangplank-operator")["spec"]["template"]["spec"], "operator");
  std::string container_port;
  for (const auto& p : op["ports"]) {
    if (p["name"] == target) container_port = std::to_string(p["containerPort"].get<int>());
  }
  EXPECT_EQ(container_port, arg_value(op, "--webhook-port"));
  EXPECT_EQ(svc_ref["path"], arg_value(op, "--webhook-path"));
  EXPECT_EQ(arg_value(op, "--scheduler-name"), "gangplank");

  const RenderedObjects tuned = render({"tuned"});
  const json tuned_hook = tuned.get("MutatingWebhookConfiguration", "gpu-sched-operator")["webhooks"][0];
  EXPECT_EQ(tuned_hook["failurePolicy"], "Ignore");
  EXPECT_EQ(tuned_hook["matchConditions"][0]["expression"], "object.spec.schedulerName == 'gpu-gang'");
  EXPECT_EQ(tuned_hook["namespaceSelector"]["matchExpressions"][0]["values"], json({"kube-system", "gangplank-system", "monitoring"}));
  EXPECT_TRUE(render({"no-webhook"}).of_kind("MutatingWebhookConfiguration").empty());
}

bool openssl_verify(const std::vector<std::string>& args) {
  std::string cmd = "openssl verify";
  for (const auto& a : args) cmd += " '" + a + "'";
  return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0;
}

TEST_F(ChartObjectsTest, SelfSignedCertificatesChainToTheCaEachClientTrusts) {
  if (std::system("openssl version >/dev/null 2>&1") != 0) GTEST_SKIP() << "openssl is not installed";
  const RenderedObjects objects = render();
  const fs::path dir = fs::temp_directory_path() / ("gangplank-chart-tls-" + std::to_string(::getpid()));
  write_secret_files(objects.get("Secret", "gangplank-webhook-tls"), dir / "webhook");
  write_secret_files(objects.get("Secret", "gangplank-extender-tls"), dir / "extender");
  const std::string ca_bundle =
      Base64Decode(objects.get("MutatingWebhookConfiguration", "gangplank-operator")["webhooks"][0]["clientConfig"]["caBundle"].get<std::string>());
  EXPECT_EQ(ca_bundle, read_text_file((dir / "webhook" / "ca.crt").string()));  // the API server trusts the webhook's CA
  EXPECT_EQ(ca_bundle, read_text_file((dir / "extender" / "ca.crt").string()));  // kube-scheduler trusts the same CA
  const std::string ca = (dir / "webhook" / "ca.crt").string();
  EXPECT_TRUE(openssl_verify({"-CAfile", ca, "-verify_hostname", "gangplank-operator.gangplank-system.svc",
                              (dir / "webhook" / "tls.crt").string()}));
  // kube-scheduler checks the extender's certificate against tlsConfig.serverName (service mode) or
  // 127.0.0.1 (sidecar mode): both are in it.
  const std::string server_name = scheduler_config(objects)["extenders"][0]["tlsConfig"]["serverName"];
  EXPECT_TRUE(openssl_verify({"-CAfile", ca, "-verify_hostname", server_name, (dir / "extender" / "tls.crt").string()}));
  EXPECT_TRUE(openssl_verify({"-CAfile", ca, "-verify_ip", "127.0.0.1", (dir / "extender" / "tls.crt").string()}));
  EXPECT_FALSE(openssl_verify({"-CAfile", ca, "-verify_hostname", "gangplank-extender.other.svc", (dir / "extender" / "tls.crt").string()}));
  EXPECT_FALSE(openssl_verify({"-CAfile", ca, "-verify_hostname", server_name, (dir / "webhook" / "tls.crt").string()}));
  fs::remove_all(dir);
}

TEST_F(ChartObjectsTest, CertManagerIssuesTheSecretsThePodsMountAndInjectsTheCaBundle) {
  const RenderedObjects objects = render({"cert-manager"});
  // The only Secret the chart writes itself is the plan seal's key (no certificate, no private key).
  ASSERT_EQ(objects.of_kind("Secret").size(), 1u);
  EXPECT_EQ(objects.of_kind("Secret")[0]["metadata"]["name"], "gangplank-plan-seal");
  const json ca = objects.get("Certificate", "gangplank-ca");
  EXPECT_TRUE(ca["spec"]["isCA"].get<bool>());
  EXPECT_EQ(ca["spec"]["issuerRef"]["name"], "gangplank-selfsigned");
  EXPECT_TRUE(objects.get("Issuer", "gangplank-selfsigned")["spec"].contains("selfSigned"));
  EXPECT_EQ(objects.get("Issuer", "gangplank-ca")["spec"]["ca"]["secretName"], ca["spec"]["secretName"]);
  const json config = objects.get("MutatingWebhookConfiguration", "gangplank-operator");
  EXPECT_EQ(config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"], "gangplank-system/gangplank-webhook-tls");
  EXPECT_FALSE(config["webhooks"][0]["clientConfig"].contains("caBundle"));
  const json webhook_cert = objects.get("Certificate", "gangplank-webhook-tls");
  EXPECT_EQ(webhook_cert["spec"]["issuerRef"]["name"], "gangplank-ca");
  const json dns = webhook_cert["spec"]["dnsNames"];
  EXPECT_NE(std::find(dns.begin(), dns.end(), "gangplank-operator.gangplank-system.svc"), dns.end());
  const json extender_cert = objects.get("Certificate", "gangplank-extender-tls");
  EXPECT_EQ(extender_cert["spec"]["ipAddresses"], json({"127.0.0.1"}));
  // Every Secret a pod mounts is one a Certificate writes.
  std::set<std::string> issued;
  for (const auto& c : objects.of_kind("Certificate")) issued.insert(c["spec"]["secretName"]);
  issued.insert("gangplank-plan-seal");
  for (const auto& d : objects.of_kind("Deployment")) {
    for (const auto& v : d["spec"]["template"]["spec"].value("volumes", json::array())) {
      if (v.contains("secret")) {
        EXPECT_TRUE(issued.count(v["secret"]["secretName"])) << v.dump();
      }
    }
  }
  const RenderedObjects external = render({"cert-manager-issuer"});
  EXPECT_TRUE(external.of_kind("Issuer").empty());
  EXPECT_EQ(external.get("Certificate", "gangplank-webhook-tls")["spec"]["issuerRef"],
            json({{"name", "cluster-ca"}, {"kind", "ClusterIssuer"}, {"group", "cert-manager.io"}}));
  EXPECT_EQ(external.get("Certificate", "gangplank-webhook-tls")["spec"]["duration"], "720h");
}

// The extender serves what kube-scheduler's extenders entry calls: same host, port, path, verbs,
// managed resources; its CA file comes from the extender's certificate Secret.
void expect_extender_agrees_with_scheduler(const RenderedObjects& objects, const std::string& prefix) {
  const json ext = scheduler_config(objects, prefix + "-scheduler")["extenders"][0];
  const auto holder = objects.deployment_with_container("extender");
  ASSERT_TRUE(holder);
  const json& pod = (*holder)["spec"]["template"]["spec"];
  const json c = container_named(pod, "extender");
  const std::string url = ext["urlPrefix"];
  const std::smatch m = [&] {
    std::smatch match;
    std::regex_match(url, match, std::regex("(https?)://([^:/]+):([0-9]+)(/.*)?"));
    return match;
  }();
  ASSERT_EQ(m.size(), 5u) << url;
  EXPECT_EQ(m[1].str() == "https", ext.value("enableHTTPS", false)) << url;
  EXPECT_EQ(m[1].str() == "https", has_flag(c, "--tls-cert-file")) << url;
  EXPECT_EQ(m[3].str(), arg_value(c, "--port"));
  EXPECT_EQ(m[4].str(), arg_value(c, "--path-prefix"));
  EXPECT_EQ(ext.value("filterVerb", ""), arg_value(c, "--filter-verb"));
  EXPECT_EQ(ext.value("prioritizeVerb", ""), arg_value(c, "--prioritize-verb"));
  EXPECT_EQ(ext.value("preemptVerb", ""), arg_value(c, "--preempt-verb"));
  EXPECT_EQ(ext.value("bindVerb", ""), arg_value(c, "--bind-verb"));
  std::string managed;
  for (const auto& r : ext.value("managedResources", json::array())) {
    managed += (managed.empty() ? "" : ",") + r["name"].get<std::string>();
  }
  EXPECT_EQ(managed, arg_value(c, "--managed-resource"));
  if (m[2].str() == "127.0.0.1") {
    EXPECT_FALSE(container_named(pod, "kube-scheduler").empty()) << "sidecar outside the scheduler";
  } else {
    const json svc = objects.get("Service", prefix + "-extender");
    EXPECT_EQ(m[2].str(), prefix + "-extender.gangplank-system.svc");
    EXPECT_EQ(std::to_string(svc["spec"]["ports"][0]["port"].get<int>()), m[3].str());
    for (const auto& [k, v] : svc["spec"]["selector"].items()) EXPECT_EQ((*holder)["spec"]["template"]["metadata"]["labels"].value(k, ""), v);
    EXPECT_EQ(svc["spec"]["sessionAffinity"], "ClientIP");
  }
  if (ext.value("enableHTTPS", false)) {
    const std::string ca_file = ext["tlsConfig"]["caFile"];
    const json scheduler_pod = objects.get("Deployment", prefix + "-scheduler")["spec"]["template"]["spec"];
    const json sched = container_named(scheduler_pod, "kube-scheduler");
    std::string volume;
    for (const auto& vm : sched["volumeMounts"]) {
      if (ca_file.rfind(vm["mountPath"].get<std::string>() + "/", 0) == 0) volume = vm["name"];
    }
    ASSERT_FALSE(volume.empty()) << ca_file << " is not under a mounted volume";
    for (const auto& v : scheduler_pod["volumes"]) {
      if (v["name"] == volume) {
        EXPECT_EQ(v["secret"]["secretName"], prefix + "-extender-tls");
      }
    }
  }
}

TEST_F(ChartObjectsTest, ExtenderFlagsAgreeWithKubeSchedulersExtenderEntry) {
  expect_extender_agrees_with_scheduler(render(), "gangplank");
  expect_extender_agrees_with_scheduler(render({"sidecar"}), "gangplank");
  expect_extender_agrees_with_scheduler(render({"no-webhook"}), "gangplank");
  expect_extender_agrees_with_scheduler(render({"tuned"}), "gpu-sched");
  const json tuned = container_named(render({"tuned"}).get("Deployment", "gpu-sched-extender")["spec"]["template"]["spec"], "extender");
  EXPECT_EQ(arg_value(tuned, "--topology-keys"), "topology.kubernetes.io/zone,nvidia.com/gpu.clique,kubernetes.io/hostname");
  const auto args = parse_args(tuned);
  EXPECT_EQ(args.count("--queue"), 2u);
  EXPECT_TRUE(has_flag(tuned, "--workload-sample"));
}

// The extender and the operator charge a pod naming no queue alike only if both get the same
// --default-queue: one value (defaultQueue, or operator.defaultQueue, its old name) feeds both.
TEST_F(ChartObjectsTest, ExtenderAndOperatorGetTheSameDefaultQueue) {
  auto default_queues = [](const RenderedObjects& objects) {
    const auto extender = objects.deployment_with_container("extender");
    const auto op = objects.deployment_with_container("operator");
    EXPECT_TRUE(extender && op);
    if (!extender || !op) return std::make_pair(std::string("?"), std::string("?"));
    return std::make_pair(arg_value(container_named((*extender)["spec"]["template"]["spec"], "extender"), "--default-queue"),
                          arg_value(container_named((*op)["spec"]["template"]["spec"], "operator"), "--default-queue"));
  };
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(default_queues(render()), Pair("", ""));
  EXPECT_EQ(default_queues(render({"tuned"})), Pair("default", "default"));
  EXPECT_EQ(default_queues(render({"sidecar"}, {"defaultQueue=shared"})), Pair("shared", "shared"));
  EXPECT_EQ(default_queues(render({}, {"operator.defaultQueue=legacy"})), Pair("legacy", "legacy"));
  RenderOptions conflicting;
  conflicting.sets = {"defaultQueue=a", "operator.defaultQueue=b"};
  const ProcessResult r = helm3().render(conflicting);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("defaultQueue and operator.defaultQueue (its old name) differ"), std::string::npos) << r.err;
}

std::set<std::string> metric_names_in_source() {
  std::set<std::string> names;
  const std::regex name("Name\\(\"(gangplank_[a-z_]+)\"\\)");
  for (const char* file : {"/extender/service/extender_metrics.cc", "/operator/metrics/operator_metrics.cc",
                           "/operator/metrics/usage_metrics.cc"}) {
    const std::string text = read_text_file(source_dir() + file);
    for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it) names.insert((*it)[1]);
  }
  return names;
}

// gangplank_* series an expression reads, with histogram suffixes taken off.
std::set<std::string> metrics_in(const std::string& expression) {
  std::set<std::string> out;
  const std::regex series("gangplank_[a-z_]+");
  for (std::sregex_iterator it(expression.begin(), expression.end(), series), end; it != end; ++it) {
    std::string n = it->str();
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string s = suffix;
      if (n.size() > s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0) n = n.substr(0, n.size() - s.size());
    }
    out.insert(n);
  }
  return out;
}

TEST_F(ChartObjectsTest, DashboardAndAlertsReadTheMetricsTheBinariesExport) {
  const std::set<std::string> exported = metric_names_in_source();
  ASSERT_GE(exported.size(), 18u);
  const RenderedObjects objects = render({"monitoring"});
  const json cm = objects.get("ConfigMap", "gangplank-dashboard");
  EXPECT_EQ(cm["metadata"]["namespace"], "monitoring");
  EXPECT_EQ(cm["metadata"]["labels"]["grafana_dashboard"], "1");
  const json dashboard = json::parse(cm["data"]["gangplank.json"].get<std::string>());
  std::set<std::string> used, titles;
  for (const auto& panel : dashboard["panels"]) {
    titles.insert(panel.value("title", ""));
    for (const auto& t : panel.value("targets", json::array())) {
      const auto m = metrics_in(t.value("expr", ""));
      EXPECT_FALSE(m.empty()) << panel["title"];
      used.insert(m.begin(), m.end());
    }
  }
  for (const auto& m : used) EXPECT_TRUE(exported.count(m)) << "dashboard reads " << m << ", which no binary exports";
  for (const char* topic : {"gangplank_operator_queue_fair_share_gpus", "gangplank_operator_pending_gangs", "gangplank_operator_gang_wait_seconds",
                            "gangplank_operator_pool_gpus", "gangplank_operator_pool_fragmentation_ratio",
                            "gangplank_extender_request_duration_seconds", "gangplank_operator_evictions_total"}) {
    EXPECT_TRUE(used.count(topic)) << "the dashboard shows no " << topic;
  }
  EXPECT_TRUE(titles.count("Extender latency per verb (p50, p99)"));

  const json rule = objects.get("PrometheusRule", "gangplank");
  std::map<std::string, json> alerts;
  for (const auto& group : rule["spec"]["groups"]) {
    for (const auto& r : group["rules"]) {
      alerts[r["alert"]] = r;
      for (const auto& m : metrics_in(r["expr"].get<std::string>())) EXPECT_TRUE(exported.count(m)) << r["alert"] << " reads " << m;
    }
  }
  ASSERT_TRUE(alerts.count("GangplankGangStuck"));
  EXPECT_NE(alerts["GangplankGangStuck"]["expr"].get<std::string>().find("gangplank_operator_oldest_pending_seconds) > 1800"), std::string::npos);
  ASSERT_TRUE(alerts.count("GangplankPreemptionStorm"));
  EXPECT_NE(alerts["GangplankPreemptionStorm"]["expr"].get<std::string>().find("[1h])) > 10"), std::string::npos);
  EXPECT_NE(alerts["GangplankPreemptionStorm"]["annotations"]["summary"].get<std::string>().find("{{ $labels.pool }}"), std::string::npos);
  EXPECT_TRUE(alerts.count("GangplankNoOperatorLeader"));
  EXPECT_NE(alerts["GangplankExtenderSlow"]["expr"].get<std::string>().find("> 0.5 * 5"), std::string::npos);

  // ServiceMonitors select the Services by their labels and scrape ports those Services have.
  for (const auto& sm : objects.of_kind("ServiceMonitor")) {
    const std::string component = sm["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"];
    const json svc = objects.get("Service", "gangplank-" + component);
    for (const auto& [k, v] : sm["spec"]["selector"]["matchLabels"].items()) EXPECT_EQ(svc["metadata"]["labels"].value(k, ""), v);
    bool port = false;
    for (const auto& p : svc["spec"]["ports"]) port |= p["name"] == sm["spec"]["endpoints"][0]["port"];
    EXPECT_TRUE(port) << component;
  }
  EXPECT_EQ(objects.of_kind("ServiceMonitor").size(), 2u);
  const RenderedObjects defaults = render();
  EXPECT_TRUE(defaults.of_kind("ServiceMonitor").empty());
  EXPECT_TRUE(defaults.of_kind("PrometheusRule").empty());
}

}  // namespace
}  // namespace gangplank::helm_testing
