// The extender binding pods itself (the chart's extender.bindVerb=bind): the real kube-scheduler hands
// each pod to the extender's bind verb, which creates the Binding through the real API server with only
// the chart's RBAC (pods/binding); each pod lands on its planned node, and KWOK runs it. The real
// kube-scheduler reaches the verbs over mutual TLS with its client certificate (the chart's tlsConfig
// certFile/keyFile), and nobody else does (issue 23: an anonymous POST bound another namespace's pod).
#include <gtest/gtest.h>

#include "net/http_client.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

class BindVerbOnRealCluster : public RealClusterTest {
 public:
  static void SetUpTestSuite() {
    StartControlPlane({"--chart-set", "extender.bindVerb=bind", "--extender-arg", "--bind-verb=bind"});
  }
};

TEST_F(BindVerbOnRealCluster, KubeSchedulerHandsEveryPodToTheExtendersBindVerbWhichBindsItOnItsPlannedNode) {
  Node("n0", 8);
  Node("n1", 8);
  Pool("pool");
  Queue("team-a");
  Create(PodObject("via-bind-a", PodSpec().Gpus(6).Queue("team-a")));
  Create(PodObject("via-bind-b", PodSpec().Gpus(6).Queue("team-a")));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"via-bind-a", "via-bind-b"}); })) << Logs();
  EXPECT_NE(NodeOf("via-bind-a"), NodeOf("via-bind-b")) << "both 6-GPU pods were put on the same 8-GPU node";
  EXPECT_EQ(NodeOf("via-bind-a"), PlannedNodeOf("via-bind-a"));
  EXPECT_EQ(NodeOf("via-bind-b"), PlannedNodeOf("via-bind-b"));
  EXPECT_EQ(cluster().ExtenderMetric("gangplank_extender_requests_total", {"verb=\"bind\"", "code=\"200\""}), 2) << "kube-scheduler bound without the extender's bind verb\n" << Logs();
  EXPECT_TRUE(WaitFor([&] { return Running("via-bind-a") && Running("via-bind-b"); }));
}

// POSTs `body` to the extender's bind verb presenting the client certificate <pki>/<client>.crt ("" for
// none): the reply's Error, or "refused at the handshake" when the connection fails.
std::string BindAs(ControlPlane& cluster, const std::string& client, const Json& body) {
  net::HttpClientOptions options;
  options.base_url = "https://127.0.0.1:" + std::to_string(cluster.extender_port());
  options.tls.ca_file = cluster.ca_file();
  if (!client.empty()) {
    options.tls.client_cert_file = (cluster.dir() / "pki" / (client + ".crt")).string();
    options.tls.client_key_file = (cluster.dir() / "pki" / (client + ".key")).string();
  }
  net::HttpClientRequest request;
  request.method = "POST";
  request.target = "/gangplank/bind";
  request.body = body.dump();
  request.headers = {{"Content-Type", "application/json"}};
  request.timeout = std::chrono::seconds(10);
  try {
    const auto reply = net::MakeHttpClient(options)->Send(request);
    return reply.status == 200 ? Json::parse(reply.body).value("Error", "") : "HTTP " + std::to_string(reply.status);
  } catch (const net::TransportError&) {
    return "refused at the handshake";
  }
}

TEST_F(BindVerbOnRealCluster, OnlyKubeSchedulersCertificateReachesTheVerbsAndItMayBindOnlyPodsGangplankSchedules) {
  Node("n0", 8);
  // Another tenant's pod for the default scheduler (none runs here, so it stays pending), and a
  // gangplank pod whose UID an attacker guesses wrong.
  Json web = PodObject("web", PodSpec().Gpus(0));  // with GPUs, the chart's fence would refuse it
  web["spec"]["schedulerName"] = "default-scheduler";
  const std::string web_uid = Create(web)["metadata"]["uid"];
  const Json steal{{"PodName", "web"}, {"PodNamespace", ns()}, {"PodUID", web_uid}, {"Node", "n0"}};
  EXPECT_EQ(BindAs(cluster(), "", steal), "refused at the handshake") << "no client certificate";
  EXPECT_EQ(BindAs(cluster(), "admin", steal), "refused at the handshake") << "the cluster CA's admin is not kube-scheduler";
  const std::string as_scheduler = BindAs(cluster(), "scheduler-client", steal);
  EXPECT_NE(as_scheduler.find("names schedulerName \"default-scheduler\""), std::string::npos) << as_scheduler;
  Json anonymous_uid = steal;
  anonymous_uid.erase("PodUID");
  EXPECT_NE(BindAs(cluster(), "scheduler-client", anonymous_uid).find("names no PodUID"), std::string::npos);
  Pool("pool");
  Queue("team-a");
  const std::string gpu_uid = Create(PodObject("gated", PodSpec().Gpus(2).Queue("team-a")))["metadata"]["uid"];
  const Json wrong_uid{{"PodName", "gated"}, {"PodNamespace", ns()}, {"PodUID", gpu_uid + "x"}, {"Node", "n0"}};
  EXPECT_TRUE(WaitFor([&] {
    return BindAs(cluster(), "scheduler-client", wrong_uid).find("is not the UID of the pod of that name") != std::string::npos;
  })) << "once the informer knows the pod, a made-up UID is named as such";
  EXPECT_EQ(NodeOf("web"), "") << "the other tenant's pod was bound\n" << Logs();
}

}  // namespace
}  // namespace gangplank::real_cluster
