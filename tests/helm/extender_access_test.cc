// Who may call the extender, as the chart sets it up (issue 23): kube-scheduler presents a client
// certificate the chart issues (self-signed and cert-manager), the extender asks for one signed by the
// chart's CA, a NetworkPolicy admits only the scheduler's pods to the verb port, and a sidecar extender
// listens on 127.0.0.1 only; probes and metrics use a health port that asks for no certificate.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/yaml_json.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"

namespace gangplank::helm_testing {
namespace {

RenderedObjects Render(std::vector<std::string> sets = {}, std::vector<std::string> values_files = {}) {
  RenderOptions options;
  options.sets = std::move(sets);
  options.values_files = std::move(values_files);
  return RenderedObjects(helm3().render_ok(options));
}

json SchedulerConfig(const RenderedObjects& objects) {
  for (const auto& cm : objects.of_kind("ConfigMap")) {
    if (cm.contains("/data/config.yaml"_json_pointer)) {
      return gangplank::testing::ParseYamlDocuments(cm["data"]["config.yaml"].get<std::string>()).front();
    }
  }
  return json();
}

json PodSpecOf(const RenderedObjects& objects, const std::string& container) {
  const auto deployment = objects.deployment_with_container(container);
  return deployment ? (*deployment)["spec"]["template"]["spec"] : json::object();
}

// The volume mounted at `path` in `container`, resolved to its volume entry (empty when none).
json VolumeAt(const json& pod_spec, const std::string& container, const std::string& path) {
  for (const auto& mount : container_named(pod_spec, container).value("volumeMounts", json::array())) {
    if (mount["mountPath"] != path) continue;
    for (const auto& volume : pod_spec["volumes"]) {
      if (volume["name"] == mount["name"]) return volume;
    }
  }
  return json::object();
}

std::string Decoded(const json& secret, const std::string& key) {
  const std::string file = ::testing::TempDir() + "/b64-" + std::to_string(::getpid()) + "-" +
                           secret["metadata"]["name"].get<std::string>() + "-" + key;
  std::ofstream(file) << secret["data"][key].get<std::string>();
  const std::string out = file + ".pem";
  EXPECT_EQ(std::system(("base64 -d " + file + " > " + out).c_str()), 0);
  return out;
}

class ExtenderAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = helm3().unavailable_reason(); !why.empty()) FAIL() << why;
  }
};

TEST_F(ExtenderAccess, KubeSchedulerPresentsAClientCertificateTheExtenderRequires) {
  const RenderedObjects objects = Render();
  const json tls = SchedulerConfig(objects)["extenders"][0]["tlsConfig"];
  EXPECT_EQ(tls["certFile"], "/etc/gangplank/scheduler-client/tls.crt");
  EXPECT_EQ(tls["keyFile"], "/etc/gangplank/scheduler-client/tls.key");
  const json scheduler = PodSpecOf(objects, "kube-scheduler");
  const json client_volume = VolumeAt(scheduler, "kube-scheduler", "/etc/gangplank/scheduler-client");
  ASSERT_TRUE(client_volume.contains("secret")) << scheduler.dump(2);
  const json client_secret = objects.get("Secret", client_volume["secret"]["secretName"]);

  const json extender_pod = PodSpecOf(objects, "extender");
  const json extender = container_named(extender_pod, "extender");
  EXPECT_EQ(arg_value(extender, "--client-ca-file"), "/etc/gangplank/tls/ca.crt");
  const json extender_volume = VolumeAt(extender_pod, "extender", "/etc/gangplank/tls");
  ASSERT_TRUE(extender_volume.contains("secret"));
  EXPECT_NE(extender_volume["secret"]["items"].dump().find("\"ca.crt\""), std::string::npos) << "the CA is mounted";
  const json extender_secret = objects.get("Secret", extender_volume["secret"]["secretName"]);
  // The client certificate is signed by the CA the extender trusts, and is good for client auth.
  const std::string ca = Decoded(extender_secret, "ca.crt"), cert = Decoded(client_secret, "tls.crt");
  EXPECT_EQ(std::system(("openssl verify -purpose sslclient -CAfile " + ca + " " + cert + " >/dev/null 2>&1").c_str()), 0);
  // ... and names what the extender asks of it; its own serving certificate does not.
  const std::string name = arg_value(extender, "--client-cert-name");
  EXPECT_EQ(name, "gangplank-scheduler");
  const auto names = [&](const std::string& pem) {
    return std::system(("openssl x509 -noout -checkhost " + name + " -in " + pem + " | grep -q 'does match'").c_str()) == 0;
  };
  EXPECT_TRUE(names(cert));
  EXPECT_FALSE(names(Decoded(extender_secret, "tls.crt")));
}

TEST_F(ExtenderAccess, CertManagerIssuesTheClientCertificateFromTheSameIssuer) {
  const RenderedObjects objects = Render({}, {source_dir() + "/helm/gangplank/ci/cert-manager-values.yaml"});
  const json client = objects.get("Certificate", "gangplank-scheduler-client-tls");
  const json serving = objects.get("Certificate", "gangplank-extender-tls");
  EXPECT_EQ(client["spec"]["issuerRef"], serving["spec"]["issuerRef"]);
  EXPECT_NE(client["spec"]["usages"].dump().find("client auth"), std::string::npos) << client.dump(2);
  EXPECT_EQ(client["spec"]["secretName"], "gangplank-scheduler-client-tls");
}

TEST_F(ExtenderAccess, ClientAuthOffRendersNoClientCertificateAnywhere) {
  const RenderedObjects objects = Render({"extender.tls.clientAuth=false"});
  EXPECT_FALSE(SchedulerConfig(objects)["extenders"][0]["tlsConfig"].contains("certFile"));
  EXPECT_FALSE(has_flag(container_named(PodSpecOf(objects, "extender"), "extender"), "--client-ca-file"));
  EXPECT_FALSE(objects.find("Secret", "gangplank-scheduler-client-tls").has_value());
}

TEST_F(ExtenderAccess, OnlySchedulerPodsReachTheVerbPortAndProbesUseTheHealthPort) {
  const RenderedObjects objects = Render();
  const json policy = objects.get("NetworkPolicy", "gangplank-extender");
  const json extender_pod = *objects.deployment_with_container("extender");
  const json scheduler_pod = *objects.deployment_with_container("kube-scheduler");
  EXPECT_EQ(policy["spec"]["podSelector"]["matchLabels"], extender_pod["spec"]["selector"]["matchLabels"]);
  const json& ingress = policy["spec"]["ingress"];
  ASSERT_EQ(ingress.size(), 2u);
  EXPECT_EQ(ingress[0]["from"][0]["podSelector"]["matchLabels"], scheduler_pod["spec"]["selector"]["matchLabels"]);
  EXPECT_EQ(ingress[0]["ports"][0]["port"], 8888);
  EXPECT_EQ(ingress[1]["from"][0]["namespaceSelector"]["matchExpressions"][0]["values"], json::array({"monitoring"}))
      << "the health port admits Prometheus' namespace, not every tenant pod";
  EXPECT_EQ(ingress[1]["ports"][0]["port"], 8889);
  const json extender = container_named(extender_pod["spec"]["template"]["spec"], "extender");
  EXPECT_EQ(arg_value(extender, "--health-port"), "8889");
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
    EXPECT_EQ(extender[probe]["httpGet"]["port"], "extender-health") << probe;
  }
  EXPECT_FALSE(Render({"networkPolicy.enabled=false"}).find("NetworkPolicy", "gangplank-extender").has_value());
}

TEST_F(ExtenderAccess, ASidecarExtenderListensOnLoopbackOnly) {
  const RenderedObjects objects = Render({}, {source_dir() + "/helm/gangplank/ci/sidecar-values.yaml"});
  const json pod = PodSpecOf(objects, "kube-scheduler");
  const json extender = container_named(pod, "extender");
  EXPECT_EQ(arg_value(extender, "--listen-address"), "127.0.0.1");
  EXPECT_EQ(SchedulerConfig(objects)["extenders"][0]["urlPrefix"].get<std::string>().rfind("https://127.0.0.1:", 0), 0u);
  EXPECT_FALSE(objects.find("NetworkPolicy", "gangplank-extender").has_value()) << "nothing but loopback reaches its verbs";
  const json service = objects.get("Service", "gangplank-extender");
  ASSERT_EQ(service["spec"]["ports"].size(), 1u) << "only the health port is published";
  EXPECT_EQ(service["spec"]["ports"][0]["targetPort"], "extender-health");
}

}  // namespace
}  // namespace gangplank::helm_testing
