// The Helm chart, the CRDs and the plain manifests against a real kube-apiserver (scripts/real-cluster.sh
// --no-gangplank: no nodes and no scheduler, so the chart's pods stay Pending and no pod ever names
// gangplank's scheduler, so nothing calls a webhook the chart registers). One control plane for the binary.
//   * every values set (the defaults, each helm/gangplank/ci file, and the two layouts with only one TLS
//     Secret) with Helm 3 and Helm 4: install, upgrade with the same values (certificates kept, no
//     Deployment rewritten), upgrade with a changed value; with the chart's own CA, the README's
//     rotations: one leaf Secret deleted (re-issued by the same CA, nothing else changes), one near its
//     expiry (renewed), the CA's Secret deleted (a new CA, every leaf re-issued, kube-scheduler rolled);
//     uninstall (the release's objects gone but the CA's Secret) and a reinstall signing with the kept CA;
//   * the CRDs' schemas and CEL rules: the examples are accepted, invalid objects refused with the exact
//     lines kubectl prints;
//   * manifests/ passes a server-side dry run once its namespace and cert-manager's CRDs are there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/time_format.h"
#include "tests/helm/support/certificate_checks.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"
#include "tests/helm/support/secret_files.h"
#include "tests/real-cluster/support/control_plane.h"

namespace gangplank::real_cluster {
namespace {

using helm_testing::HelmTool;
using helm_testing::RenderedObjects;
using helm_testing::RenderOptions;
using nlohmann::json;

// --- The shared control plane ---------------------------------------------------------------------

struct SharedCluster {
  std::unique_ptr<ControlPlane> plane;
  std::string start_error;
};

SharedCluster& Shared() {
  static SharedCluster cluster;
  return cluster;
}

class ControlPlaneEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (!ControlPlane::UnavailableReason().empty()) return;
    Shared().plane = std::make_unique<ControlPlane>();
    Shared().start_error = Shared().plane->Start({"--no-gangplank"});
  }
  void TearDown() override { Shared().plane.reset(); }
};

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new ControlPlaneEnvironment);

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::string Source(const std::string& path) { return helm_testing::source_dir() + "/" + path; }

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class OnRealApiServer : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = ControlPlane::UnavailableReason();
    if (!why.empty()) {
      if (ControlPlane::Required()) FAIL() << "GANGPLANK_REQUIRE_REAL_CLUSTER=1 but the control plane cannot run: " << why;
      GTEST_SKIP() << "real-cluster tests skipped: " << why;
    }
    ASSERT_EQ(Shared().start_error, "") << "the real control plane did not start";
  }

  // The control plane is up (TearDown cleans up only then).
  static bool Running() { return Shared().plane && Shared().start_error.empty(); }
  static std::string Kubeconfig() { return Shared().plane->kubeconfig(); }
  static KubectlResult Kc(const std::vector<std::string>& args, const std::string& stdin_text = "") {
    return Kubectl(Kubeconfig(), args, stdin_text);
  }
  // kubectl that must succeed: its stdout.
  static std::string KcOk(const std::vector<std::string>& args, const std::string& stdin_text = "") {
    const KubectlResult r = Kc(args, stdin_text);
    EXPECT_EQ(r.exit_code, 0) << "kubectl " << ::testing::PrintToString(args) << "\n" << r.out << r.err;
    return r.out;
  }
  // Helm compares a chart's kubeVersion with the server's gitVersion, which a kube-apiserver built
  // without version stamping reports as v0.0.0-master.
  static void ExpectReleaseVersion() {
    const json version = json::parse(KcOk({"get", "--raw", "/version"}));
    const std::string git = version.value("gitVersion", "");
    ASSERT_EQ(git.rfind("v1.", 0), 0u) << "kube-apiserver reports version " << git
                                        << ": built without version stamping, so Helm refuses the chart's kubeVersion; "
                                           "rebuild it with scripts/build-kube-binaries.sh";
  }
  static void EnsureNamespace(const std::string& name) {
    if (Kc({"get", "namespace", name}).exit_code != 0) KcOk({"create", "namespace", name});
  }
  // Applies a file of CRDs and waits until the apiserver serves them.
  static void ApplyCrds(const std::string& file) {
    KcOk({"apply", "-f", file});
    KcOk({"wait", "--for", "condition=Established", "--timeout", "60s", "-f", file});
  }
};

// --- Helm: install, upgrade, uninstall ------------------------------------------------------------

struct ReleaseCase {
  int helm = 3;
  std::string name;         // the values set: "default", a ci/ file's name, or a TLS layout
  std::string values_file;  // "" for the chart's defaults
  std::vector<std::string> sets;
};

void PrintTo(const ReleaseCase& c, std::ostream* os) { *os << "Helm " << c.helm << " " << c.name; }

// The chart's defaults under both Helms; every other values set under one of them, taken in turn, so each
// Helm runs the whole lifecycle (its lookup of kept certificates, Helm 4's server-side apply) on several
// layouts while the suite pays once per layout. What each Helm renders from every values set is checked
// offline by tests/helm.
std::vector<ReleaseCase> ReleaseCases() {
  std::vector<ReleaseCase> layouts;
  for (const auto& f : helm_testing::ci_values_files()) layouts.push_back({0, helm_testing::values_name(f), f, {}});
  // One TLS Secret only: the other must not be needed for the CA to survive an upgrade.
  layouts.push_back({0, "webhook-tls-only", "", {"extender.tls.enabled=false"}});
  layouts.push_back({0, "extender-tls-only", "", {"operator.webhook.enabled=false"}});
  std::vector<ReleaseCase> cases = {{3, "default", "", {}}, {4, "default", "", {}}};
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    layouts[i].helm = i % 2 == 0 ? 4 : 3;
    cases.push_back(layouts[i]);
  }
  return cases;
}

const std::set<std::string>& ClusterScopedKinds() {
  static const std::set<std::string> kinds = {"Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding",
                                              "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                                              "ClusterIssuer", "PriorityClass", "ValidatingAdmissionPolicy",
                                              "ValidatingAdmissionPolicyBinding"};
  return kinds;
}

// What a release holds in the cluster, for comparing before and after an upgrade.
struct Snapshot {
  std::map<std::string, json> secret_data;         // Secret -> .data
  std::map<std::string, std::string> not_after;    // Secret -> its gangplank.io/not-after annotation
  std::string ca_bundle;                           // the webhook's caBundle ("" without one)
  std::map<std::string, long> generations;         // Deployment -> metadata.generation

  // One key of a Secret's data, decoded ("" when absent).
  std::string Pem(const std::string& secret, const std::string& key) const {
    const auto it = secret_data.find(secret);
    return it == secret_data.end() ? "" : helm_testing::Base64Decode(it->second.value(key, std::string()));
  }
};

const char kNotAfter[] = "gangplank.io/not-after";

class ChartRelease : public OnRealApiServer, public ::testing::WithParamInterface<ReleaseCase> {
 protected:
  void SetUp() override {
    OnRealApiServer::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const HelmTool& tool = helm();
    if (GetParam().helm == 4 && !std::filesystem::exists(tool.path())) GTEST_SKIP() << "Helm 4 is not installed at " << tool.path();
    ASSERT_EQ(tool.unavailable_reason(), "");
    ASSERT_NO_FATAL_FAILURE(ExpectReleaseVersion());
    release_ = "h" + std::to_string(GetParam().helm) + "-" + GetParam().name;
  }
  void TearDown() override {
    if (!Running() || release_.empty()) return;
    helm().run({"uninstall", release_, "--namespace", release_, "--kubeconfig", Kubeconfig(), "--ignore-not-found"});
    Kc({"delete", "namespace", release_, "--ignore-not-found", "--wait=false"});
  }

  const HelmTool& helm() const { return GetParam().helm == 4 ? helm_testing::helm4() : helm_testing::helm3(); }

  std::vector<std::string> ValuesArgs(const std::vector<std::string>& extra_sets = {}) const {
    std::vector<std::string> args = {"--namespace", release_, "--kubeconfig", Kubeconfig()};
    if (!GetParam().values_file.empty()) args.insert(args.end(), {"--values", GetParam().values_file});
    for (const auto& s : GetParam().sets) args.insert(args.end(), {"--set", s});
    for (const auto& s : extra_sets) args.insert(args.end(), {"--set", s});
    return args;
  }
  // `helm <verb> <release> [chart] <values>` that must succeed.
  void HelmOk(std::vector<std::string> args, const std::vector<std::string>& extra_sets = {}) const {
    const auto values = ValuesArgs(extra_sets);
    args.insert(args.end(), values.begin(), values.end());
    const auto r = helm().run(args);
    ASSERT_EQ(r.exit_code, 0) << helm().label() << " " << ::testing::PrintToString(args) << "\n" << r.out << r.err;
  }

  RenderedObjects Render() const {
    RenderOptions options;
    options.release = release_;
    options.namespace_name = release_;
    if (!GetParam().values_file.empty()) options.values_files.push_back(GetParam().values_file);
    options.sets = GetParam().sets;
    return RenderedObjects(helm().render_ok(options));
  }

  std::string NamespaceOf(const json& object) const {
    if (ClusterScopedKinds().count(object.value("kind", ""))) return "";
    return object.value("/metadata/namespace"_json_pointer, release_);
  }
  static std::string ResourceOf(const json& object) {
    std::string kind = object.value("kind", "");
    std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string api = object.value("apiVersion", "");
    const auto slash = api.find('/');
    const std::string group = slash == std::string::npos ? "" : "." + api.substr(0, slash);
    return kind + group + "/" + object["metadata"].value("name", "");
  }
  // Rendered objects as `kubectl get` arguments, by namespace ("" = cluster-scoped).
  std::map<std::string, std::vector<std::string>> ByNamespace(const RenderedObjects& objects) const {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& o : objects.all()) out[NamespaceOf(o)].push_back(ResourceOf(o));
    return out;
  }

  // Namespaces the values name besides the release's (e.g. the dashboard's), and the CRDs of
  // cert-manager and the Prometheus Operator when the values use their kinds.
  void Prerequisites(const RenderedObjects& objects) const {
    bool cert_manager = false, prometheus = false;
    for (const auto& o : objects.all()) {
      const std::string ns = NamespaceOf(o);
      if (!ns.empty() && ns != release_) EnsureNamespace(ns);
      const std::string api = o.value("apiVersion", "");
      cert_manager = cert_manager || api.rfind("cert-manager.io/", 0) == 0;
      prometheus = prometheus || api.rfind("monitoring.coreos.com/", 0) == 0;
    }
    if (cert_manager) ApplyCrds(Source("tests/helm/testdata/crds/cert-manager.crds.yaml"));
    if (prometheus) ApplyCrds(Source("tests/helm/testdata/crds/prometheus-operator.crds.yaml"));
  }

  void ExpectAllPresent(const RenderedObjects& objects) const {
    for (const auto& [ns, resources] : ByNamespace(objects)) {
      std::vector<std::string> args = {"get", "-o", "name"};
      args.insert(args.end(), resources.begin(), resources.end());
      if (!ns.empty()) args.insert(args.end(), {"--namespace", ns});
      const KubectlResult r = Kc(args);
      EXPECT_EQ(r.exit_code, 0) << "missing after install in namespace '" << ns << "':\n" << r.err;
      EXPECT_EQ(Lines(r.out).size(), resources.size()) << r.out;
    }
  }

  // Every rendered object but the `kept` ones (kubectl's "secret/<name>") is gone.
  void ExpectAllGone(const RenderedObjects& objects, const std::set<std::string>& kept = {}) const {
    for (const auto& [ns, all] : ByNamespace(objects)) {
      std::vector<std::string> resources;
      for (const auto& r : all) {
        if (!kept.count(r)) resources.push_back(r);
      }
      if (resources.empty()) continue;
      std::vector<std::string> args = {"get", "-o", "name", "--ignore-not-found"};
      args.insert(args.end(), resources.begin(), resources.end());
      if (!ns.empty()) args.insert(args.end(), {"--namespace", ns});
      const KubectlResult r = Kc(args);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, "") << "left behind by helm uninstall in namespace '" << ns << "'";
    }
  }

  Snapshot Snap(const RenderedObjects& objects) const {
    Snapshot s;
    for (const auto& o : objects.of_kind("Secret")) {
      const std::string name = o["metadata"]["name"];
      const json secret = json::parse(KcOk({"get", "secret", name, "--namespace", release_, "-o", "json"}));
      s.secret_data[name] = secret.value("data", json::object());
      s.not_after[name] = secret.value("/metadata/annotations"_json_pointer, json::object()).value(kNotAfter, "");
    }
    for (const auto& o : objects.of_kind("MutatingWebhookConfiguration")) {
      const json hook = json::parse(KcOk({"get", "mutatingwebhookconfiguration", o["metadata"]["name"], "-o", "json"}));
      s.ca_bundle = hook["webhooks"][0]["clientConfig"].value("caBundle", "");
    }
    for (const auto& o : objects.of_kind("Deployment")) {
      const std::string name = o["metadata"]["name"];
      s.generations[name] =
          json::parse(KcOk({"get", "deployment", name, "--namespace", release_, "-o", "json"}))["metadata"]["generation"].get<long>();
    }
    return s;
  }

  // The release's revision and status as `helm status` reports them.
  std::pair<int, std::string> Status() const {
    const auto r = helm().run({"status", release_, "--namespace", release_, "--kubeconfig", Kubeconfig(), "-o", "json"});
    if (r.exit_code != 0) return {0, r.err};
    const json status = json::parse(r.out);
    return {status.value("version", 0), status["info"].value("status", "")};
  }

  static std::string DeploymentEndingIn(const RenderedObjects& objects, const std::string& suffix) {
    for (const auto& d : objects.of_kind("Deployment")) {
      const std::string name = d["metadata"]["name"];
      if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) return name;
    }
    return "";
  }
  // The chart's own certificates (selfSigned) and a TLS extender: the scheduler's pods carry their checksum.
  static bool RollsOnTls(const RenderedObjects& objects, const std::string& deployment) {
    for (const auto& d : objects.of_kind("Deployment")) {
      if (d["metadata"]["name"] == deployment) {
        return d.value("/spec/template/metadata/annotations"_json_pointer, json::object()).contains("checksum/extender-tls");
      }
    }
    return false;
  }

  // The Secret of the chart's own CA (selfSigned, some TLS Secret needed); "" without one.
  static std::string CaSecret(const RenderedObjects& objects) {
    for (const auto& s : objects.of_kind("Secret")) {
      if (EndsWith(s["metadata"]["name"], "-self-signed-ca")) return s["metadata"]["name"];
    }
    return "";
  }
  // The certificate Secrets signed by the chart's CA (type kubernetes.io/tls, the CA's own left out).
  static std::vector<std::string> Leaves(const RenderedObjects& objects, const std::string& ca_secret) {
    std::vector<std::string> out;
    for (const auto& s : objects.of_kind("Secret")) {
      if (s.value("type", "") == "kubernetes.io/tls" && s["metadata"]["name"] != ca_secret) out.push_back(s["metadata"]["name"]);
    }
    return out;
  }
  // The first rendered Secret whose name ends in one of `suffixes`, in their order ("" if none).
  static std::string FirstSecret(const RenderedObjects& objects, const std::vector<std::string>& suffixes) {
    for (const auto& suffix : suffixes) {
      for (const auto& s : objects.of_kind("Secret")) {
        if (EndsWith(s["metadata"]["name"], suffix)) return s["metadata"]["name"];
      }
    }
    return "";
  }
  // The webhook trusts the chart's CA (not a caBundle of the values: ci/out-of-cluster-webhook).
  static bool CaBundleIsTheChartsCa(const RenderedObjects& objects, const std::string& ca_secret) {
    for (const auto& hook : objects.of_kind("MutatingWebhookConfiguration")) {
      const std::string bundle = hook["webhooks"][0]["clientConfig"].value("caBundle", "");
      return helm_testing::Base64Decode(bundle) == helm_testing::Base64Decode(objects.get("Secret", ca_secret)["data"]["tls.crt"].get<std::string>());
    }
    return false;
  }
  // Every leaf carries the CA of `ca_secret` as its ca.crt and chains to it, and the webhook's caBundle
  // is that CA.
  static void ExpectSignedByTheCa(const Snapshot& s, const std::vector<std::string>& leaves, const std::string& ca_secret,
                                  bool in_ca_bundle) {
    const std::string ca = s.Pem(ca_secret, "tls.crt");
    ASSERT_NE(ca, "") << ca_secret;
    for (const auto& name : leaves) {
      EXPECT_EQ(s.Pem(name, "ca.crt"), ca) << name;
      EXPECT_TRUE(helm_testing::chains_to(s.Pem(name, "tls.crt"), ca)) << name << " is not signed by " << ca_secret;
    }
    if (in_ca_bundle) {
      EXPECT_EQ(helm_testing::Base64Decode(s.ca_bundle), ca);
    }
  }
  // What kube-scheduler's pods carry for the certificates they read at start.
  std::string SchedulerChecksum(const std::string& scheduler) const {
    const json d = json::parse(KcOk({"get", "deployment", scheduler, "--namespace", release_, "-o", "json"}));
    return d.value("/spec/template/metadata/annotations"_json_pointer, json::object()).value("checksum/extender-tls", "");
  }

  std::string OperatorDeployment(const RenderedObjects& objects) const {
    for (const auto& d : objects.of_kind("Deployment")) {
      const std::string name = d["metadata"]["name"];
      if (name.size() > 9 && name.compare(name.size() - 9, 9, "-operator") == 0) return name;
    }
    return "";
  }

  std::string release_;
};

TEST_P(ChartRelease, InstallsUpgradesKeepingItsCertificatesAndUninstalls) {
  const RenderedObjects objects = Render();
  ASSERT_FALSE(objects.all().empty());
  ASSERT_NO_FATAL_FAILURE(Prerequisites(objects));

  ASSERT_NO_FATAL_FAILURE(HelmOk({"install", release_, helm_testing::chart_dir(), "--create-namespace"}));
  EXPECT_EQ(Status(), std::make_pair(1, std::string("deployed")));
  ExpectAllPresent(objects);
  KcOk({"wait", "--for", "condition=Established", "--timeout", "60s", "crd/gpupools.gangplank.io", "crd/queues.gangplank.io"});
  const Snapshot installed = Snap(objects);

  // The same values again: Helm re-renders, and the chart must find its certificates (lookup) instead
  // of issuing new ones; no Deployment's spec changes.
  ASSERT_NO_FATAL_FAILURE(HelmOk({"upgrade", release_, helm_testing::chart_dir()}));
  EXPECT_EQ(Status(), std::make_pair(2, std::string("deployed")));
  const Snapshot same = Snap(objects);
  EXPECT_EQ(same.secret_data, installed.secret_data) << "the upgrade issued new certificates";
  EXPECT_EQ(same.not_after, installed.not_after);
  EXPECT_EQ(same.ca_bundle, installed.ca_bundle) << "the upgrade changed the webhook's caBundle";
  EXPECT_EQ(same.generations, installed.generations) << "an upgrade with the same values rewrote a Deployment";

  // A changed value reaches the operator's Deployment; the certificates still stay.
  ASSERT_NO_FATAL_FAILURE(HelmOk({"upgrade", release_, helm_testing::chart_dir()}, {"operator.logLevel=error"}));
  EXPECT_EQ(Status(), std::make_pair(3, std::string("deployed")));
  const Snapshot changed = Snap(objects);
  EXPECT_EQ(changed.secret_data, installed.secret_data);
  EXPECT_EQ(changed.ca_bundle, installed.ca_bundle);
  const std::string operator_deployment = OperatorDeployment(objects);
  ASSERT_NE(operator_deployment, "");
  EXPECT_EQ(changed.generations.at(operator_deployment), installed.generations.at(operator_deployment) + 1);
  const std::string args = KcOk({"get", "deployment", operator_deployment, "--namespace", release_, "-o",
                                 "jsonpath={.spec.template.spec.containers[?(@.name==\"operator\")].args}"});
  EXPECT_NE(args.find("--log-level=error"), std::string::npos) << args;

  // The chart's own CA (selfSigned, some TLS Secret needed): the rotations of the chart README.
  const std::string ca_secret = CaSecret(objects);
  const std::string scheduler = DeploymentEndingIn(objects, "-scheduler");
  const bool rolls = !scheduler.empty() && RollsOnTls(objects, scheduler);
  Snapshot last = changed;
  if (ca_secret.empty()) {
    EXPECT_EQ(Leaves(objects, ""), std::vector<std::string>{}) << "certificates rendered without the chart's CA Secret";
  } else {
    ASSERT_EQ(helm_testing::openssl_unavailable_reason(), "");
    const bool in_ca_bundle = CaBundleIsTheChartsCa(objects, ca_secret);
    const std::vector<std::string> leaves = Leaves(objects, ca_secret);
    EXPECT_NE(changed.Pem(ca_secret, "tls.key").find("PRIVATE KEY"), std::string::npos) << "the CA's key is not kept";
    ExpectSignedByTheCa(changed, leaves, ca_secret, in_ca_bundle);
    const std::string checksum = rolls ? SchedulerChecksum(scheduler) : "";

    // One certificate: delete its Secret and upgrade. The kept CA signs a new one and nothing else
    // changes: not the other Secrets, not the caBundle, no Deployment (kube-scheduler's CA is the same).
    const std::string leaf = FirstSecret(objects, {"-extender-tls", "-webhook-tls"});
    ASSERT_NE(leaf, "");
    KcOk({"delete", "secret", leaf, "--namespace", release_});
    ASSERT_NO_FATAL_FAILURE(HelmOk({"upgrade", release_, helm_testing::chart_dir()}, {"operator.logLevel=error"}));
    const Snapshot one = Snap(objects);
    EXPECT_NE(one.Pem(leaf, "tls.crt"), changed.Pem(leaf, "tls.crt")) << leaf << " was not re-issued";
    EXPECT_NE(one.Pem(leaf, "tls.key"), changed.Pem(leaf, "tls.key")) << leaf << " kept its key";
    for (const auto& [name, data] : changed.secret_data) {
      if (name != leaf) {
        EXPECT_EQ(one.secret_data.at(name), data) << name << " changed with " << leaf;
      }
    }
    EXPECT_EQ(one.ca_bundle, changed.ca_bundle);
    EXPECT_EQ(one.generations, changed.generations) << "re-issuing " << leaf << " rewrote a Deployment";
    ExpectSignedByTheCa(one, leaves, ca_secret, in_ca_bundle);

    // One certificate near its expiry (its not-after within renewBeforeDays): the next upgrade renews it
    // for a whole validityDays, signed by the same CA; nothing else changes. The annotation written here
    // stands in for the months passing; Helm 4 applies server-side and would refuse to take over a field
    // kubectl wrote without --force-conflicts.
    const std::string expiring = FirstSecret(objects, {"-webhook-tls", "-extender-tls"});
    KcOk({"annotate", "secret", expiring, "--namespace", release_, "--overwrite", std::string(kNotAfter) + "=" + base::FormatEpochSeconds(std::time(nullptr) + 86400)});
    std::vector<std::string> upgrade = {"upgrade", release_, helm_testing::chart_dir()};
    if (GetParam().helm == 4) upgrade.push_back("--force-conflicts");
    ASSERT_NO_FATAL_FAILURE(HelmOk(upgrade, {"operator.logLevel=error"}));
    const Snapshot renewed = Snap(objects);
    EXPECT_NE(renewed.Pem(expiring, "tls.crt"), one.Pem(expiring, "tls.crt")) << expiring << " was not renewed";
    const auto until = helm_testing::parse_utc_time(renewed.not_after.at(expiring));
    ASSERT_TRUE(until) << renewed.not_after.at(expiring);
    EXPECT_GT(*until, std::time(nullptr) + 80 * 86400) << "renewed for less than validityDays";  // 90 in ci/tuned, 365 else
    EXPECT_LE(std::abs(static_cast<long>(helm_testing::not_after(renewed.Pem(expiring, "tls.crt")).value_or(0) - *until)), 5L)
        << "gangplank.io/not-after is not the certificate's notAfter";
    for (const auto& [name, data] : one.secret_data) {
      if (name != expiring) {
        EXPECT_EQ(renewed.secret_data.at(name), data) << name << " changed with " << expiring;
      }
    }
    EXPECT_EQ(renewed.ca_bundle, one.ca_bundle);
    EXPECT_EQ(renewed.generations, one.generations);
    ExpectSignedByTheCa(renewed, leaves, ca_secret, in_ca_bundle);

    // The CA: delete its Secret and upgrade. A new CA, every certificate re-issued by it, the caBundle
    // follows, and kube-scheduler, which reads the CA only at start, is rolled.
    KcOk({"delete", "secret", ca_secret, "--namespace", release_});
    ASSERT_NO_FATAL_FAILURE(HelmOk({"upgrade", release_, helm_testing::chart_dir()}, {"operator.logLevel=error"}));
    const Snapshot rotated = Snap(objects);
    EXPECT_NE(rotated.Pem(ca_secret, "tls.crt"), renewed.Pem(ca_secret, "tls.crt")) << "no new CA was issued";
    for (const auto& name : leaves) {
      EXPECT_NE(rotated.secret_data.at(name), renewed.secret_data.at(name)) << name << " was not re-issued with the new CA";
      EXPECT_FALSE(helm_testing::chains_to(rotated.Pem(name, "tls.crt"), renewed.Pem(ca_secret, "tls.crt"))) << name;
    }
    ExpectSignedByTheCa(rotated, leaves, ca_secret, in_ca_bundle);
    if (in_ca_bundle) {
      EXPECT_NE(rotated.ca_bundle, renewed.ca_bundle);
    }
    if (rolls) {
      EXPECT_NE(SchedulerChecksum(scheduler), checksum);
      EXPECT_EQ(rotated.generations.at(scheduler), renewed.generations.at(scheduler) + 1) << "kube-scheduler was not rolled";
    }
    last = rotated;
  }

  const auto uninstalled = helm().run({"uninstall", release_, "--namespace", release_, "--kubeconfig", Kubeconfig()});
  ASSERT_EQ(uninstalled.exit_code, 0) << uninstalled.err;
  EXPECT_NE(Status().second.find("not found"), std::string::npos) << "the release is still there";
  ExpectAllGone(objects, ca_secret.empty() ? std::set<std::string>{} : std::set<std::string>{"secret/" + ca_secret});

  if (!ca_secret.empty()) {
    // helm.sh/resource-policy: keep: the CA outlives the release, and a new install under the same name
    // adopts it and signs with it.
    const json kept = json::parse(KcOk({"get", "secret", ca_secret, "--namespace", release_, "-o", "json"}));
    EXPECT_EQ(kept.value("data", json::object()), last.secret_data.at(ca_secret)) << "uninstall changed the CA";
    ASSERT_NO_FATAL_FAILURE(HelmOk({"install", release_, helm_testing::chart_dir()}));
    EXPECT_EQ(Status(), std::make_pair(1, std::string("deployed")));
    const Snapshot reinstalled = Snap(objects);
    EXPECT_EQ(reinstalled.secret_data.at(ca_secret), last.secret_data.at(ca_secret)) << "the reinstall issued a new CA";
    ExpectSignedByTheCa(reinstalled, Leaves(objects, ca_secret), ca_secret, CaBundleIsTheChartsCa(objects, ca_secret));
  }

  // Helm never deletes what it installed from crds/.
  KcOk({"get", "crd/gpupools.gangplank.io", "crd/queues.gangplank.io"});
}

INSTANTIATE_TEST_SUITE_P(ValuesSets, ChartRelease, ::testing::ValuesIn(ReleaseCases()),
                         [](const ::testing::TestParamInfo<ReleaseCase>& info) {
                           std::string name = "Helm" + std::to_string(info.param.helm) + "_" + info.param.name;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// Two releases cannot own the same cluster-scoped objects: the API server holds one ClusterRole per
// name, and Helm refuses to adopt one another release owns.
class ChartReleaseConflicts : public OnRealApiServer {
 protected:
  void TearDown() override {
    if (!Running()) return;
    for (const char* r : {"owner-a", "owner-b"}) {
      helm_testing::helm3().run({"uninstall", r, "--namespace", r, "--kubeconfig", Kubeconfig(), "--ignore-not-found"});
      Kc({"delete", "namespace", r, "--ignore-not-found", "--wait=false"});
    }
  }
  static helm_testing::ProcessResult Install(const std::string& release) {
    return helm_testing::helm3().run({"install", release, helm_testing::chart_dir(), "--namespace", release, "--create-namespace",
                                      "--kubeconfig", Kubeconfig(), "--set", "fullnameOverride=gp-shared"});
  }
};

TEST_F(ChartReleaseConflicts, SecondReleaseWithTheSameClusterScopedNamesIsRefused) {
  ASSERT_EQ(helm_testing::helm3().unavailable_reason(), "");
  ASSERT_NO_FATAL_FAILURE(ExpectReleaseVersion());
  const auto first = Install("owner-a");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto again = Install("owner-a");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("cannot re-use a name that is still in use"), std::string::npos) << again.err;

  const auto second = Install("owner-b");
  EXPECT_NE(second.exit_code, 0) << "a second release took over owner-a's cluster-scoped objects";
  EXPECT_NE(second.err.find("exists and cannot be imported into the current release: invalid ownership metadata"), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("annotation validation error: key \"meta.helm.sh/release-namespace\" must equal \"owner-b\": "
                            "current value is \"owner-a\""), std::string::npos) << second.err;
  // owner-a still owns its ClusterRole.
  EXPECT_EQ(KcOk({"get", "clusterrole", "gp-shared-operator", "-o", "jsonpath={.metadata.annotations.meta\\.helm\\.sh/release-name}"}),
            "owner-a");
}

// The notes Helm prints after an install warn when the chart's kube-scheduler is outside Kubernetes'
// version-skew policy for the cluster it is installed on (review item L8): never newer than the API
// server, at most one minor version older. Judged against this cluster's own version.
using ChartNotes = OnRealApiServer;

TEST_F(ChartNotes, WarnWhenTheSchedulerImageIsOutsideTheVersionSkewPolicy) {
  ASSERT_EQ(helm_testing::helm3().unavailable_reason(), "");
  ASSERT_NO_FATAL_FAILURE(ExpectReleaseVersion());
  const json version = json::parse(KcOk({"get", "--raw", "/version"}));
  const int minor = std::stoi(version.value("minor", "0"));
  const auto notes = [&](int scheduler_minor) {
    const std::string tag = "v1." + std::to_string(scheduler_minor) + ".0";
    const auto r = helm_testing::helm3().run({"install", "skew", helm_testing::chart_dir(), "--namespace", "skew",
                                              "--kubeconfig", Kubeconfig(), "--dry-run=server", "--set",
                                              "scheduler.image.tag=" + tag});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return r.out;
  };
  const std::string warning = "is outside Kubernetes' version-skew policy";
  EXPECT_EQ(notes(minor).find(warning), std::string::npos) << notes(minor);
  EXPECT_EQ(notes(minor - 1).find(warning), std::string::npos) << "one minor older is allowed";
  const std::string newer = notes(minor + 1);
  EXPECT_NE(newer.find("WARNING: scheduler.image.tag v1." + std::to_string(minor + 1) + ".0 " + warning), std::string::npos)
      << newer;
  EXPECT_NE(newer.find("Set scheduler.image.tag to the cluster's version (v1." + std::to_string(minor) + ".x)"),
            std::string::npos) << newer;
  EXPECT_NE(notes(minor - 2).find(warning), std::string::npos) << "two minors older is outside the policy";
  EXPECT_NE(Kc({"get", "namespace", "skew"}).exit_code, 0) << "a dry run created the release's namespace";
}

// --- The CRDs: schema and CEL rules ---------------------------------------------------------------

// An invalid object and the lines kubectl prints when the API server refuses it, in any order (the
// apiserver does not keep the order of a schema's causes from one request to the next).
struct InvalidObject {
  std::string name;
  std::string manifest;
  std::vector<std::string> lines;
};

std::string Pool(const std::string& name, const std::string& spec) {
  return "apiVersion: gangplank.io/v1alpha1\nkind: GPUPool\nmetadata:\n  name: " + name + "\n" + spec;
}
std::string Queue(const std::string& name, const std::string& spec) {
  return "apiVersion: gangplank.io/v1alpha1\nkind: Queue\nmetadata:\n  name: " + name + "\n" + spec;
}
std::string Invalid(const std::string& kind, const std::string& name) { return "The " + kind + " \"" + name + "\" is invalid: "; }
const char kUnchecked[] =
    "* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the "
    "existing errors to complete validation";

std::vector<InvalidObject> InvalidGpuPools() {
  const std::string minimum = " in body should be greater than or equal to 0";
  return {
      {"no spec", Pool("p-nospec", ""), {Invalid("GPUPool", "p-nospec") + "spec: Required value"}},
      {"capacityType enum", Pool("p-capacity", "spec: {capacityType: Sometimes}"),
       {Invalid("GPUPool", "p-capacity") + "spec.capacityType: Unsupported value: \"Sometimes\": supported values: \"OnDemand\", \"Spot\""}},
      {"reclaimPolicy enum", Pool("p-reclaim", "spec: {spot: {reclaimPolicy: Drain}}"),
       {Invalid("GPUPool", "p-reclaim") +
        "spec.spot.reclaimPolicy: Unsupported value: \"Drain\": supported values: \"CheckpointThenEvict\", \"Evict\""}},
      {"every minimum",
       Pool("p-minimums",
            "spec:\n  admission: {gangTimeoutSeconds: -1, startTimeoutSeconds: -1, reserveAfterSeconds: -1}\n"
            "  preemption: {minWaitSeconds: -1, minRuntimeSeconds: -1, maxGangsPerHour: -1, maxLostGPUHours: -0.5}\n"
            "  spot: {checkpointGraceSeconds: -1}\n"),
       {Invalid("GPUPool", "p-minimums"),
        "* spec.admission.gangTimeoutSeconds: Invalid value: -1: spec.admission.gangTimeoutSeconds" + minimum,
        "* spec.admission.startTimeoutSeconds: Invalid value: -1: spec.admission.startTimeoutSeconds" + minimum,
        "* spec.admission.reserveAfterSeconds: Invalid value: -1: spec.admission.reserveAfterSeconds" + minimum,
        "* spec.preemption.minWaitSeconds: Invalid value: -1: spec.preemption.minWaitSeconds" + minimum,
        "* spec.preemption.minRuntimeSeconds: Invalid value: -1: spec.preemption.minRuntimeSeconds" + minimum,
        "* spec.preemption.maxGangsPerHour: Invalid value: -1: spec.preemption.maxGangsPerHour" + minimum,
        "* spec.preemption.maxLostGPUHours: Invalid value: -0.5: spec.preemption.maxLostGPUHours" + minimum,
        "* spec.spot.checkpointGraceSeconds: Invalid value: -1: spec.spot.checkpointGraceSeconds" + minimum}},
      {"topologyLevels items and set", Pool("p-levels", "spec: {topologyLevels: ['', a, a]}"),
       {Invalid("GPUPool", "p-levels"),
        "* spec.topologyLevels[0]: Invalid value: \"\": spec.topologyLevels[0] in body should be at least 1 chars long",
        "* spec.topologyLevels[2]: Duplicate value: \"a\""}},
      {"topologyLevels maxItems", Pool("p-levels-many", "spec: {topologyLevels: [a, b, c, d, e, f, g, h, i]}"),
       {Invalid("GPUPool", "p-levels-many") + "spec.topologyLevels: Too many: 9: must have at most 8 items"}},
      {"nodeSelector maxProperties",
       Pool("p-selector",
            "spec:\n  nodeSelector: {a: '1', b: '1', c: '1', d: '1', e: '1', f: '1', g: '1', h: '1', i: '1', j: '1', k: '1', "
            "l: '1', m: '1', n: '1', o: '1', p: '1', q: '1'}\n"),
       {Invalid("GPUPool", "p-selector") + "spec.nodeSelector: Too many: 17: must have at most 16 items"}},
      {"nodeSelector value maxLength", Pool("p-selector-value", "spec: {nodeSelector: {pool: " + std::string(64, 'x') + "}}"),
       {Invalid("GPUPool", "p-selector-value") + "spec.nodeSelector.pool: Too long: may not be more than 63 bytes"}},
      {"gpuModel maxLength", Pool("p-model", "spec: {gpuModel: " + std::string(129, 'm') + "}"),
       {Invalid("GPUPool", "p-model") + "spec.gpuModel: Too long: may not be more than 128 bytes"}},
      // kube-apiserver 1.37 checks `format: int32` itself, and says so twice.
      {"types", Pool("p-types", "spec: {capacityType: 5, preemption: {reclaim: 'yes'}, admission: {gangTimeoutSeconds: 1.5}}"),
       {Invalid("GPUPool", "p-types"),
        "* spec.admission.gangTimeoutSeconds: Invalid value: \"float64\": spec.admission.gangTimeoutSeconds in body must be of "
        "type int32: \"float64\"",
        "* <nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in spec.admission.gangTimeoutSeconds",
        "* spec.capacityType: Invalid value: \"integer\": spec.capacityType in body must be of type string: \"integer\"",
        "* spec.capacityType: Unsupported value: 5: supported values: \"OnDemand\", \"Spot\"",
        "* spec.preemption.reclaim: Invalid value: \"string\": spec.preemption.reclaim in body must be of type boolean: \"string\""}},
      {"unknown field", Pool("p-unknown", "spec: {colour: red}"),
       {"Error from server (BadRequest): error when creating \"STDIN\": GPUPool in version \"v1alpha1\" cannot be handled as a "
        "GPUPool: strict decoding error: unknown field \"spec.colour\""}},
  };
}

std::vector<InvalidObject> InvalidQueues() {
  const std::string own_parent = "spec.parent: Invalid value: a queue cannot be its own parent";
  const std::string limit = "Invalid value: limitGPUs must not be below guaranteedGPUs";
  return {
      {"no spec", Queue("q-nospec", ""), {Invalid("Queue", "q-nospec"), "* spec: Required value", kUnchecked}},
      {"CEL: its own parent", Queue("q-self", "spec: {parent: q-self}"), {Invalid("Queue", "q-self") + own_parent}},
      {"CEL: limit below guarantee", Queue("q-limit", "spec:\n  pools: [{name: h100, guaranteedGPUs: 8, limitGPUs: 4}]\n"),
       {Invalid("Queue", "q-limit") + "spec.pools[0]: " + limit}},
      {"CEL: both rules, twice the second",
       Queue("q-two-cel", "spec:\n  parent: q-two-cel\n  pools: [{name: a, guaranteedGPUs: 2, limitGPUs: 1}, "
                          "{name: b, guaranteedGPUs: 3, limitGPUs: 0}]\n"),
       {Invalid("Queue", "q-two-cel"), "* " + own_parent, "* spec.pools[0]: " + limit, "* spec.pools[1]: " + limit}},
      {"CEL after a schema error in the same item", Queue("q-limit-negative", "spec:\n  pools: [{name: h100, limitGPUs: -1}]\n"),
       {Invalid("Queue", "q-limit-negative"),
        "* spec.pools[0].limitGPUs: Invalid value: -1: spec.pools[0].limitGPUs in body should be greater than or equal to 0",
        "* spec.pools[0]: " + limit}},
      {"parent pattern", Queue("q-parent", "spec: {parent: Research_Team}"),
       {Invalid("Queue", "q-parent") +
        "spec.parent: Invalid value: \"Research_Team\": spec.parent in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"}},
      {"parent maxLength", Queue("q-parent-long", "spec: {parent: " + std::string(64, 'a') + "}"),
       {Invalid("Queue", "q-parent-long"), "* spec.parent: Too long: may not be more than 63 bytes", kUnchecked}},
      {"weight minimum", Queue("q-weight", "spec: {weight: -0.5}"),
       {Invalid("Queue", "q-weight") + "spec.weight: Invalid value: -0.5: spec.weight in body should be greater than or equal to 0"}},
      {"pool name required and minLength, guarantee minimum",
       Queue("q-pools", "spec:\n  pools: [{guaranteedGPUs: 2}, {name: '', guaranteedGPUs: -1}]\n"),
       {Invalid("Queue", "q-pools"), "* spec.pools[0].name: Required value",
        "* spec.pools[1].guaranteedGPUs: Invalid value: -1: spec.pools[1].guaranteedGPUs in body should be greater than or equal to 0",
        "* spec.pools[1].name: Invalid value: \"\": spec.pools[1].name in body should be at least 1 chars long", kUnchecked}},
      {"pools map keys unique", Queue("q-dup", "spec:\n  pools: [{name: h100}, {name: h100}]\n"),
       {Invalid("Queue", "q-dup") + "spec.pools[1]: Duplicate value: {\"name\":\"h100\"}"}},
      {"preemption enum and minimum", Queue("q-preemption", "spec: {preemption: {withinQueue: Always, minRuntimeSeconds: -1}}"),
       {Invalid("Queue", "q-preemption"),
        "* spec.preemption.minRuntimeSeconds: Invalid value: -1: spec.preemption.minRuntimeSeconds in body should be greater than "
        "or equal to 0",
        "* spec.preemption.withinQueue: Unsupported value: \"Always\": supported values: \"Never\", \"LowerPriority\"", kUnchecked}},
  };
}

std::vector<InvalidObject> InvalidObjects() {
  auto all = InvalidGpuPools();
  for (auto& q : InvalidQueues()) all.push_back(std::move(q));
  return all;
}

const char* const kValidExamples[] = {"examples/gpupools.yaml", "examples/queues.yaml", "examples/local/1-pool-and-queue.yaml"};

class CustomResourceValidation : public OnRealApiServer {
 protected:
  void SetUp() override {
    OnRealApiServer::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (const char* crd : {"crds/gpupool.gangplank.io.yaml", "crds/queue.gangplank.io.yaml"}) ApplyCrds(Source(crd));
  }
  void TearDown() override {
    if (!Running()) return;
    for (const char* example : kValidExamples) Kc({"delete", "-f", Source(example), "--ignore-not-found", "--wait=false"});
    Kc({"delete", "queue", "q-update", "--ignore-not-found"});
  }
};

TEST_F(CustomResourceValidation, EveryExampleIsAcceptedAndComesBackDefaulted) {
  for (const char* example : kValidExamples) {
    const KubectlResult r = Kc({"apply", "-f", Source(example)});
    EXPECT_EQ(r.exit_code, 0) << example << "\n" << r.err;
    EXPECT_EQ(r.err, "") << example;
  }
  EXPECT_EQ(KcOk({"get", "gpupools", "-o", "name"}), "gpupool.gangplank.io/a100-spot\ngpupool.gangplank.io/h100\n");
  EXPECT_EQ(KcOk({"get", "queues", "-o", "name"}),
            "queue.gangplank.io/research\nqueue.gangplank.io/team-a\nqueue.gangplank.io/team-llm\nqueue.gangplank.io/team-vision\n");
  const json h100 = json::parse(KcOk({"get", "gpupool", "h100", "-o", "json"}));
  EXPECT_EQ(h100["spec"]["capacityType"], "OnDemand");
  EXPECT_EQ(h100["spec"]["admission"]["startTimeoutSeconds"], 600);
  EXPECT_EQ(h100["spec"]["preemption"]["maxLostGPUHours"], 8);
  const json team = json::parse(KcOk({"get", "queue", "team-a", "-o", "json"}));
  EXPECT_EQ(team["spec"]["weight"], 1);
  EXPECT_EQ(team["spec"]["preemption"]["withinQueue"], "Never");
}

TEST_F(CustomResourceValidation, InvalidObjectsAreRefusedWithTheirExactMessages) {
  for (const auto& c : InvalidObjects()) {
    const KubectlResult r = Kc({"apply", "-f", "-"}, c.manifest);
    EXPECT_NE(r.exit_code, 0) << c.name << ": accepted";
    EXPECT_EQ(Sorted(Lines(r.err)), Sorted(c.lines)) << c.name << ":\n" << r.err;
    EXPECT_EQ(r.out, "") << c.name;
  }
  EXPECT_EQ(KcOk({"get", "gpupools,queues", "-o", "name"}), "") << "an invalid object was stored";
}

TEST_F(CustomResourceValidation, CelRuleAlsoRefusesAnUpdate) {
  KcOk({"apply", "-f", "-"}, Queue("q-update", "spec: {parent: research}"));
  const KubectlResult r = Kc({"apply", "-f", "-"}, Queue("q-update", "spec: {parent: q-update}"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.err, Invalid("Queue", "q-update") + "spec.parent: Invalid value: a queue cannot be its own parent\n");
  EXPECT_EQ(KcOk({"get", "queue", "q-update", "-o", "jsonpath={.spec.parent}"}), "research");
}

const char kBadCondition[] = R"({"status":{"conditions":[{"type":"Ready","status":"Maybe"}]}})";

// The Queue's root CEL rule does not run on an object with a schema error, which the apiserver says too.
TEST_F(CustomResourceValidation, StatusSubresourceEnforcesItsSchema) {
  KcOk({"apply", "-f", "-"}, Queue("q-update", "spec: {}"));
  const KubectlResult r = Kc({"patch", "queue", "q-update", "--subresource", "status", "--type", "merge", "-p", kBadCondition});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(Sorted(Lines(r.err)),
            Sorted({Invalid("Queue", "q-update"),
                    "* status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"True\", \"False\", \"Unknown\"",
                    kUnchecked}))
      << r.err;
  EXPECT_EQ(KcOk({"get", "queue", "q-update", "-o", "jsonpath={.status}"}), "");
}

// --- manifests/: a server-side dry run --------------------------------------------------------------

class ManifestsDryRun : public OnRealApiServer {
 protected:
  void TearDown() override {
    if (Running()) Kc({"delete", "namespace", "gangplank-system", "--ignore-not-found", "--wait=false"});
  }
  static KubectlResult DryRun() { return Kc({"apply", "--dry-run=server", "-f", Source("manifests/")}); }
};

TEST_F(ManifestsDryRun, PassesOnceItsNamespaceAndCertManagersCrdsExist) {
  const std::string manifest = helm_testing::read_text_file(Source("manifests/gangplank.yaml"));
  const RenderedObjects objects(manifest);
  ASSERT_FALSE(objects.all().empty());
  ApplyCrds(Source("tests/helm/testdata/crds/cert-manager.crds.yaml"));
  std::size_t namespaced = 0;
  for (const auto& o : objects.all()) namespaced += o.value("/metadata/namespace"_json_pointer, std::string()) == "gangplank-system";
  ASSERT_GT(namespaced, 0u);

  // A dry run creates nothing, not even the Namespace its other objects go to.
  ASSERT_NE(Kc({"get", "namespace", "gangplank-system"}).exit_code, 0) << "gangplank-system exists before the test";
  const KubectlResult without = DryRun();
  EXPECT_NE(without.exit_code, 0);
  const std::string missing =
      "Error from server (NotFound): error when creating \"" + Source("manifests/gangplank.yaml") + "\": namespaces \"gangplank-system\" not found";
  EXPECT_EQ(Lines(without.err), std::vector<std::string>(namespaced, missing)) << without.err;

  KcOk({"create", "namespace", "gangplank-system", "--save-config"});
  const KubectlResult with = DryRun();
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(with.err, "");
  const auto lines = Lines(with.out);
  EXPECT_EQ(lines.size(), objects.all().size()) << with.out;
  for (const auto& line : lines) EXPECT_NE(line.find(" (server dry run)"), std::string::npos) << line;
  EXPECT_EQ(KcOk({"get", "deployments,secrets,certificates.cert-manager.io", "--namespace", "gangplank-system", "-o", "name"}), "")
      << "a dry run stored objects";
}

}  // namespace
}  // namespace gangplank::real_cluster
