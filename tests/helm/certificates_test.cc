// The chart's own certificates (certificates.mode=selfSigned) as `helm template` renders them, with Helm 3
// and Helm 4: a CA whose key is kept in its own Secret (kept by Helm on uninstall too), every leaf signed
// by it and trusted through it, each Secret's gangplank.io/not-after equal to its certificate's expiry,
// the CA's and the leaves' validities set apart, kube-scheduler's checksum taken over exactly what it
// reads, and the values that would make a leaf outlive its CA refused. What `lookup` keeps on an upgrade
// is tested against the real API server (tests/real-cluster/chart_on_real_apiserver_test.cc).
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "tests/helm/support/certificate_checks.h"
#include "tests/helm/support/each_helm.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"
#include "tests/helm/support/secret_files.h"

namespace gangplank::helm_testing {
namespace {

constexpr std::time_t kDay = 86400;
const char kCaSecret[] = "gangplank-self-signed-ca";
const char kNotAfter[] = "gangplank.io/not-after";

// A rendered Secret's key, decoded ("" when absent).
std::string Data(const json& secret, const std::string& key) {
  return Base64Decode(secret.value("/data"_json_pointer, json::object()).value(key, std::string()));
}
std::string Annotation(const json& object, const std::string& key) {
  return object.value("/metadata/annotations"_json_pointer, json::object()).value(key, std::string());
}
// The rendered certificate Secrets (other Secrets, such as the plan seal's key, left out).
std::vector<std::string> TlsSecretNames(const RenderedObjects& objects) {
  std::vector<std::string> names;
  for (const auto& s : objects.of_kind("Secret")) {
    if (s.value("type", "") == "kubernetes.io/tls") names.push_back(s["metadata"]["name"]);
  }
  return names;
}

class SelfSignedCertificates : public EachHelm {
 protected:
  void SetUp() override {
    EachHelm::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::string no_openssl = openssl_unavailable_reason();
    if (!no_openssl.empty()) GTEST_SKIP() << no_openssl;
  }
  RenderedObjects Render(const std::vector<std::string>& sets = {}, const std::string& values = "") const {
    RenderOptions options;
    options.sets = sets;
    if (!values.empty()) options.values_files.push_back(chart_dir() + "/ci/" + values + "-values.yaml");
    return RenderedObjects(tool().render_ok(options));
  }
  ProcessResult RenderFails(const std::vector<std::string>& sets) const {
    RenderOptions options;
    options.sets = sets;
    return tool().render(options);
  }

  // The certificate of `secret` ends `days` after now (give or take the render's duration), and its
  // gangplank.io/not-after says when.
  static void ExpectValidFor(const json& secret, std::time_t days, std::time_t rendered_at) {
    const std::string name = secret["metadata"]["name"];
    const auto end = not_after(Data(secret, "tls.crt"));
    ASSERT_TRUE(end) << name;
    EXPECT_GE(*end, rendered_at + days * kDay - 60) << name;
    EXPECT_LE(*end, std::time(nullptr) + days * kDay + 60) << name;
    const auto annotated = parse_utc_time(Annotation(secret, kNotAfter));
    ASSERT_TRUE(annotated) << name << ": " << kNotAfter << " is '" << Annotation(secret, kNotAfter) << "'";
    EXPECT_LE(std::abs(static_cast<long>(*annotated - *end)), 5L) << name << ": the annotation is not the certificate's notAfter";
  }
};

TEST_P(SelfSignedCertificates, TheCaAndItsKeyAreKeptInTheirOwnSecretWhichOutlivesTheRelease) {
  const RenderedObjects objects = Render();
  const json ca = objects.get("Secret", kCaSecret);
  EXPECT_EQ(ca["type"], "kubernetes.io/tls");
  EXPECT_EQ(Annotation(ca, "helm.sh/resource-policy"), "keep");
  EXPECT_EQ(ca.value("/metadata/labels/app.kubernetes.io~1instance"_json_pointer, std::string()), "gangplank");
  const std::string ca_cert = Data(ca, "tls.crt"), ca_key = Data(ca, "tls.key");
  ASSERT_NE(ca_cert.find("BEGIN CERTIFICATE"), std::string::npos);
  ASSERT_NE(ca_key.find("PRIVATE KEY"), std::string::npos) << "the CA's key is not kept";
  EXPECT_TRUE(is_ca(ca_cert));
  EXPECT_TRUE(key_matches(ca_cert, ca_key)) << "tls.key is not the CA certificate's key";
  EXPECT_EQ(ca["data"].size(), 2u) << ca["data"].dump();

  // Every leaf carries that CA as ca.crt, chains to it, and the API server trusts it for the webhook.
  const std::map<std::string, std::string> leaves = {{"gangplank-webhook-tls", "gangplank-operator.gangplank-system.svc"},
                                                     {"gangplank-extender-tls", "gangplank-extender.gangplank-system.svc"},
                                                     {"gangplank-scheduler-client-tls", ""}};
  for (const auto& [name, host] : leaves) {
    const json leaf = objects.get("Secret", name);
    EXPECT_EQ(Data(leaf, "ca.crt"), ca_cert) << name;
    EXPECT_TRUE(chains_to(Data(leaf, "tls.crt"), ca_cert, host)) << name;
    EXPECT_TRUE(key_matches(Data(leaf, "tls.crt"), Data(leaf, "tls.key"))) << name;
    EXPECT_FALSE(is_ca(Data(leaf, "tls.crt"))) << name;
    EXPECT_EQ(Annotation(leaf, "helm.sh/resource-policy"), "") << name << " must go with the release";
  }
  const json hook = objects.get("MutatingWebhookConfiguration", "gangplank-operator");
  EXPECT_EQ(Base64Decode(hook["webhooks"][0]["clientConfig"]["caBundle"].get<std::string>()), ca_cert);
}

TEST_P(SelfSignedCertificates, TheCaAndTheLeavesHaveTheirOwnValidity) {
  const std::time_t before = std::time(nullptr);
  const RenderedObjects defaults = Render();
  ExpectValidFor(defaults.get("Secret", kCaSecret), 3650, before);
  for (const char* leaf : {"gangplank-webhook-tls", "gangplank-extender-tls", "gangplank-scheduler-client-tls"}) {
    ExpectValidFor(defaults.get("Secret", leaf), 365, before);
  }
  // ci/tuned-values.yaml: caValidityDays 1825, validityDays 90.
  const RenderedObjects tuned = Render({}, "tuned");
  ExpectValidFor(tuned.get("Secret", "gpu-sched-self-signed-ca"), 1825, before);
  ExpectValidFor(tuned.get("Secret", "gpu-sched-webhook-tls"), 90, before);
  ExpectValidFor(tuned.get("Secret", "gpu-sched-extender-tls"), 90, before);
  // A leaf may last as long as its CA, not longer.
  const RenderedObjects equal = Render({"certificates.caValidityDays=400", "certificates.validityDays=400"});
  ExpectValidFor(equal.get("Secret", kCaSecret), 400, before);
  ExpectValidFor(equal.get("Secret", "gangplank-extender-tls"), 400, before);
}

TEST_P(SelfSignedCertificates, ACaSecretOnlyWhereACertificateIsNeeded) {
  EXPECT_EQ(TlsSecretNames(Render({}, "no-webhook")), std::vector<std::string>{}) << "no TLS at all: no CA either";
  EXPECT_EQ(TlsSecretNames(Render({}, "cert-manager")), std::vector<std::string>{}) << "cert-manager keeps its own CA";
  EXPECT_EQ(TlsSecretNames(Render({"extender.tls.enabled=false"})), (std::vector<std::string>{kCaSecret, "gangplank-webhook-tls"}));
  EXPECT_EQ(TlsSecretNames(Render({"operator.webhook.enabled=false"})),
            (std::vector<std::string>{kCaSecret, "gangplank-extender-tls", "gangplank-scheduler-client-tls"}));
  EXPECT_EQ(TlsSecretNames(Render({"operator.webhook.enabled=false", "extender.tls.clientAuth=false"})),
            (std::vector<std::string>{kCaSecret, "gangplank-extender-tls"}));
}

// kube-scheduler reads the extender's CA and its own client certificate only at start: its pods' checksum
// covers exactly those two, so a kept CA and client certificate keep it, and a new one of either rolls it,
// while a re-issued extender certificate (same CA) does not.
TEST_P(SelfSignedCertificates, TheSchedulersChecksumCoversTheCaAndItsClientCertificateOnly) {
  for (const bool client_auth : {true, false}) {
    const RenderedObjects objects = Render({std::string("extender.tls.clientAuth=") + (client_auth ? "true" : "false")});
    const json scheduler = objects.get("Deployment", "gangplank-scheduler");
    const std::string checksum = scheduler.value("/spec/template/metadata/annotations/checksum~1extender-tls"_json_pointer, std::string());
    const std::string ca = Data(objects.get("Secret", kCaSecret), "tls.crt");
    const std::string client = client_auth ? Data(objects.get("Secret", "gangplank-scheduler-client-tls"), "tls.crt") : "";
    EXPECT_EQ(checksum, sha256_hex(ca + client)) << "clientAuth=" << client_auth;
  }
  EXPECT_FALSE(Render({"extender.tls.enabled=false"})
                   .get("Deployment", "gangplank-scheduler")
                   .value("/spec/template/metadata/annotations"_json_pointer, json::object())
                   .contains("checksum/extender-tls"));
}

TEST_P(SelfSignedCertificates, ValiditiesThatWouldOutliveTheCaOrRenewOnEveryUpgradeAreRefused) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"certificates.validityDays=4000"},
       "certificates.validityDays (4000) is longer than certificates.caValidityDays (3650): a certificate cannot outlive the CA that signs it"},
      {{"certificates.caValidityDays=100"}, "certificates.validityDays (365) is longer than certificates.caValidityDays (100)"},
      {{"certificates.renewBeforeDays=365"},
       "certificates.renewBeforeDays (365) must be shorter than certificates.validityDays (365), or every upgrade re-issues the "
       "certificates"},
      {{"certificates.caValidityDays=0"}, "caValidityDays"},
      {{"certificates.renewBeforeDays=0"}, "renewBeforeDays"},
      {{"certificates.validityDays=ten"}, "validityDays"},
  };
  for (const auto& [sets, message] : refused) {
    const ProcessResult r = RenderFails(sets);
    EXPECT_NE(r.exit_code, 0) << sets.front() << " was accepted";
    EXPECT_NE(r.err.find(message), std::string::npos) << sets.front() << ":\n" << r.err;
  }
  // cert-manager issues its own: the selfSigned validities are not checked there.
  RenderOptions options;
  options.sets = {"certificates.mode=certManager", "certificates.caValidityDays=100"};
  EXPECT_EQ(tool().render(options).exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Helm, SelfSignedCertificates, ::testing::Values(3, 4), EachHelmName);

}  // namespace
}  // namespace gangplank::helm_testing
