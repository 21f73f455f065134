// A hostile tenant on the real control plane: an ordinary user with the usual rights over pods in its
// own namespace (create, update, patch) tries to admit its own gang, pin it to a node, skip the gate or
// change queue. The defences here are Kubernetes' own (the chart's ValidatingAdmissionPolicy, run by the
// real API server) and the operator's webhook; each test is an attack that worked before them.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "net/http_client.h"
#include "tests/support/subprocess.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

class TenantAttacks : public RealClusterTest {
 protected:
  static constexpr const char* kTenant = "tenant-mallory";

  void SetUp() override {
    RealClusterTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // What a namespace's developers usually get: full control of pods, nothing cluster-wide.
    const std::string rbac = R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-developer, namespace: )" + ns() + R"(}
rules:
- apiGroups: [""]
  resources: [pods]
  verbs: [create, get, list, watch, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: pod-developer, namespace: )" + ns() + R"(}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-developer}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: )" + kTenant + R"(}
- {kind: ServiceAccount, name: mallory, namespace: )" + ns() + R"(}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: mallory, namespace: )" + ns() + "}\n";
    const KubectlResult applied = Kubectl(cluster().kubeconfig(), {"apply", "-f", "-"}, rbac);
    ASSERT_EQ(applied.exit_code, 0) << applied.err;
  }

  // kubectl as the tenant (impersonated: the API server authorizes and admits the request as that user).
  KubectlResult AsTenant(std::vector<std::string> args, const std::string& stdin_text = "") {
    args.insert(args.begin(), {"--as", kTenant, "-n", ns()});
    return Kubectl(cluster().kubeconfig(), args, stdin_text);
  }
  KubectlResult TenantCreates(const Json& pod) { return AsTenant({"create", "-o", "json", "-f", "-"}, pod.dump()); }
  KubectlResult TenantPatches(const std::string& pod, const Json& patch, const std::string& type = "merge") {
    return AsTenant({"patch", "pod", pod, "--type", type, "-p", patch.dump()});
  }
};

// Before: a gated 4 x 8-GPU gang created with planned-node and admission-id annotations, in a queue
// limited to 8 GPUs, was released by the operator as a leader's unfinished admission.
TEST_F(TenantAttacks, AGangCreatedWithAForgedPlanIsCreatedWithoutItAndWaitsForItsQueue) {
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a", Json::parse(R"({"pools":[{"name":"pool","guaranteedGPUs":8,"limitGPUs":8}]})"));
  for (int i = 0; i < 4; ++i) {
    const std::string name = "forged-" + std::to_string(i);
    const Json pod = PodObject(name, PodSpec().Gpus(8).Queue("team-a").Gang("forged", 4)
                                         .Annotation("gangplank.io/planned-node", "n" + std::to_string(i))
                                         .Annotation("gangplank.io/admission-id", "4102444800-0badf00d"));
    const KubectlResult created = TenantCreates(pod);
    ASSERT_EQ(created.exit_code, 0) << created.err;
    const Json stored = Json::parse(created.out);
    const Json annotations = stored["metadata"].value("annotations", Json::object());
    EXPECT_FALSE(annotations.contains("gangplank.io/planned-node")) << stored.dump();
    EXPECT_FALSE(annotations.contains("gangplank.io/admission-id")) << stored.dump();
    EXPECT_EQ(annotations.value("gangplank.io/gang-size", ""), "4") << "the tenant's own annotations stay";
  }
  EXPECT_TRUE(WaitFor([&] { return GangCondition("forged-0").value("reason", "") != ""; })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  for (const auto& p : Names("forged", 4)) {
    EXPECT_TRUE(Gated(p)) << p << " was released: " << Logs();
    EXPECT_EQ(NodeOf(p), "") << p;
    EXPECT_EQ(PlannedNodeOf(p), "") << p;
  }
}

// Before: any pod carrying planned-node counted as a reservation in gangplank's books, so a pod of
// another scheduler could block capacity without running; and the webhook does not see such pods.
TEST_F(TenantAttacks, NoPodOfAnySchedulerIsCreatedWithOperatorAnnotations) {
  Node("n0", 8);
  for (const std::string key : {"gangplank.io/planned-node", "gangplank.io/admission-id", "gangplank.io/checkpoint-requested"}) {
    const KubectlResult created =
        TenantCreates(PodObject("squatter", PodSpec().Gpus(0).BoundTo("").Annotation(key, "n0")));
    EXPECT_NE(created.exit_code, 0) << key << " accepted: " << created.out;
    EXPECT_NE(created.err.find("only gangplank's operator may write the annotations " + key), std::string::npos) << created.err;
  }
  EXPECT_FALSE(Pod("squatter").has_value());
}

// Before: the owner of a gated pod could remove the gate (the webhook saw only CREATE), and the
// extender's filter passed the ungated pod; or write a plan or a future admission id onto it (the
// latter made a running gang immune to reclaim and start timeouts).
TEST_F(TenantAttacks, TheOwnerOfAPodCannotUngateItPlanItOrMoveItToAnotherQueue) {
  Node("n0", 8);
  Pool("pool");
  Queue("team-a");
  Queue("team-b");
  const KubectlResult created = TenantCreates(PodObject("mine", PodSpec().Gpus(8).Queue("nobody-has-this-queue")));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  ASSERT_TRUE(Gated("mine"));

  KubectlResult r = TenantPatches("mine", Json{{"spec", {{"schedulingGates", nullptr}}}});
  EXPECT_NE(r.exit_code, 0) << "gate removed: " << r.out;
  EXPECT_NE(r.err.find("only gangplank's operator may remove the scheduling gate gangplank.io/admission"), std::string::npos) << r.err;
  r = TenantPatches("mine", Json::array({{{"op", "replace"}, {"path", "/spec/schedulingGates"}, {"value", Json::array({{{"name", "other.io/gate"}}})}}}), "json");
  EXPECT_NE(r.exit_code, 0) << "gate swapped for another: " << r.out;

  for (const std::string key : {"gangplank.io/planned-node", "gangplank.io/admission-id", "gangplank.io/checkpoint-requested"}) {
    r = TenantPatches("mine", Json{{"metadata", {{"annotations", {{key, "n0"}}}}}});
    EXPECT_NE(r.exit_code, 0) << key << " written: " << r.out;
    EXPECT_NE(r.err.find("only gangplank's operator may set, change or remove the annotations"), std::string::npos) << r.err;
  }
  r = TenantPatches("mine", Json{{"metadata", {{"labels", {{"gangplank.io/queue", "team-a"}}}}}});
  EXPECT_NE(r.exit_code, 0) << "queue changed: " << r.out;
  EXPECT_NE(r.err.find("cannot change after it is created"), std::string::npos) << r.err;

  // What the tenant may do to its own pod still works: its own annotations, checkpoint-done.
  r = TenantPatches("mine", Json{{"metadata", {{"annotations", {{"team", "a"}, {"gangplank.io/checkpoint-done", "now"}}}}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Gated("mine"));
  EXPECT_EQ(PlannedNodeOf("mine"), "");
  EXPECT_EQ(NodeOf("mine"), "");
}

// Before: a pod's own gangplank.io/queue label won, and Queues were not bound to namespaces, so team B
// could spend team A's guarantee, or join A's queue with a higher PriorityClass and evict A's gangs.
// Now the webhook refuses such a pod at creation; one created before its queue closed waits and says why.
TEST_F(TenantAttacks, APodNamingAnotherTeamsQueueOrTooHighAPriorityIsRefusedOrWaits) {
  Node("n0", 8);
  Pool("pool");
  Queue("team-a", Json{{"namespaces", Json::array({"team-a-only"})}});
  Queue("capped", Json{{"namespaces", Json::array({ns()})}, {"maxPriority", 100}});
  const KubectlResult pc = Kubectl(cluster().kubeconfig(), {"apply", "-f", "-"},
                                   "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: tenant-urgent}\nvalue: 1000\n");
  ASSERT_EQ(pc.exit_code, 0) << pc.err;
  const Json borrower = PodObject("borrower", PodSpec().Gpus(8).Queue("team-a"));
  // Server-side dry runs go through the webhook without creating anything: wait for the operator to see the queue.
  ASSERT_TRUE(WaitFor([&] { return AsTenant({"create", "--dry-run=server", "-f", "-"}, borrower.dump()).exit_code != 0; })) << Logs();
  KubectlResult r = TenantCreates(borrower);
  EXPECT_NE(r.exit_code, 0) << "created: " << r.out;
  EXPECT_NE(r.err.find("gangplank: namespace " + ns() + " may not use queue team-a (not in its spec.namespaces)"), std::string::npos) << r.err;
  Json urgent = PodObject("urgent", PodSpec().Gpus(8).Queue("capped"));
  urgent["spec"]["priorityClassName"] = "tenant-urgent";
  r = TenantCreates(urgent);
  EXPECT_NE(r.exit_code, 0) << "created: " << r.out;
  EXPECT_NE(r.err.find("priority 1000 is above queue capped's maxPriority of 100"), std::string::npos) << r.err;
  EXPECT_FALSE(Pod("borrower").has_value());
  EXPECT_FALSE(Pod("urgent").has_value());

  // Created while its queue admitted the namespace; the admin then closes the queue before it fits.
  Queue("closing", Json{{"namespaces", Json::array({ns()})}, {"pools", Json::array({{{"name", "pool"}, {"limitGPUs", 0}}})}});
  ASSERT_TRUE(WaitFor([&] { return AsTenant({"create", "--dry-run=server", "-f", "-"}, PodObject("early", PodSpec().Gpus(8).Queue("closing")).dump()).exit_code == 0; }));
  ASSERT_EQ(TenantCreates(PodObject("early", PodSpec().Gpus(8).Queue("closing"))).exit_code, 0);
  client().Patch(cache::resources::queues(), "", "closing", kube::PatchType::kMerge, Json{{"spec", {{"namespaces", Json::array({"someone-else"})}}}});
  EXPECT_TRUE(WaitFor([&] { return GangCondition("early").value("reason", "") == "QueueForbidden"; })) << Logs();
  EXPECT_EQ(GangCondition("early").value("message", ""), "namespace " + ns() + " may not use queue closing (not in its spec.namespaces)");
  EXPECT_TRUE(Gated("early"));
  Kubectl(cluster().kubeconfig(), {"delete", "priorityclass", "tenant-urgent", "--ignore-not-found"});
}

// The operator's own writes are not the tenant's: a gang in a queue with room is still planned and
// released by the operator (its ServiceAccount is the one the policy lets through), and its members,
// once running, still cannot be re-planned by their owner.
TEST_F(TenantAttacks, TheOperatorStillAdmitsAndTheAdmittedPlanCannotBeRewritten) {
  for (int i = 0; i < 2; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a");
  for (int i = 0; i < 2; ++i) {
    const KubectlResult created = TenantCreates(PodObject("ok-" + std::to_string(i), PodSpec().Gpus(8).Queue("team-a").Gang("ok", 2)));
    ASSERT_EQ(created.exit_code, 0) << created.err;
  }
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("ok", 2)); })) << Logs();
  const std::string planned = PlannedNodeOf("ok-0");
  ASSERT_FALSE(planned.empty());
  const KubectlResult r =
      TenantPatches("ok-0", Json{{"metadata", {{"annotations", {{"gangplank.io/admission-id", "4102444800-0badf00d"}}}}}});
  EXPECT_NE(r.exit_code, 0) << "a future admission id was written on a running pod: " << r.out;
  EXPECT_EQ(PlannedNodeOf("ok-0"), planned);
}

// Before: with the chart's ValidatingAdmissionPolicy off (or its binding deleted), the owner of a gated pod
// could write planned-node and admission-id on it and the operator released the gang as a stopped leader's
// admission. Now a plan counts only with a seal made with the key only the operator and the extender hold.
TEST_F(TenantAttacks, APlanWrittenByATenantWithThePolicyOffIsNoPlan) {
  for (int i = 0; i < 2; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a", Json::parse(R"({"pools":[{"name":"pool","guaranteedGPUs":8,"limitGPUs":8}]})"));
  const std::string binding = "gangplank-pod-admission";
  ASSERT_EQ(Kubectl(cluster().kubeconfig(), {"delete", "validatingadmissionpolicybinding", binding}).exit_code, 0);
  // The binding comes back whatever happens below: the other tests rely on it.
  struct Restore {
    std::string kubeconfig, objects;
    ~Restore() { Kubectl(kubeconfig, {"apply", "-f", objects}); }
  } restore{cluster().kubeconfig(), (cluster().dir() / "chart-objects.yaml").string()};
  // The API server enforces a binding's deletion at once on new requests only once its informer saw it.
  std::this_thread::sleep_for(std::chrono::seconds(2));

  for (int i = 0; i < 2; ++i) {
    const std::string name = "sealless-" + std::to_string(i);
    ASSERT_EQ(TenantCreates(PodObject(name, PodSpec().Gpus(8).Queue("team-a").Gang("sealless", 2))).exit_code, 0);
    const KubectlResult patched = TenantPatches(name, Json{{"metadata", {{"annotations", {
        {"gangplank.io/planned-node", "n" + std::to_string(i)}, {"gangplank.io/admission-id", "4102444800-0badf00d"},
        {"gangplank.io/plan-seal", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}}}}});
    ASSERT_EQ(patched.exit_code, 0) << "the policy is off, so the API server takes it: " << patched.err;
  }
  // The gang needs 16 GPUs in a queue limited to 8: it waits, and says so, instead of being released.
  EXPECT_TRUE(WaitFor([&] { return GangCondition("sealless-0").value("reason", "") != ""; })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  for (const auto& p : Names("sealless", 2)) {
    EXPECT_TRUE(Gated(p)) << p << " was released on a forged plan: " << Logs();
    EXPECT_EQ(NodeOf(p), "") << p;
  }
  EXPECT_NE(GangCondition("sealless-0").value("reason", ""), "Admitted") << GangCondition("sealless-0").dump();
}

// Before: POST /dry-run was plain HTTP on all addresses and answered anyone, reading any owner in any
// namespace with the operator's rights. Now it is on the TLS port and answers a bearer token the API
// server accepts (TokenReview) for the audience gangplank (review item L6: a token issued for the API
// server or another service is no longer taken), about namespaces where that user may create pods
// (SubjectAccessReview).
TEST_F(TenantAttacks, TheDryRunAnswersOnlyATokenTheApiServerVouchesForAboutItsOwnNamespaces) {
  Node("n0", 8);
  Pool("pool");
  Queue("team-a");
  const KubectlResult token =
      Kubectl(cluster().kubeconfig(), {"create", "token", "mallory", "-n", ns(), "--duration", "1h", "--audience", "gangplank"});
  ASSERT_EQ(token.exit_code, 0) << token.err;
  // The same user's token for the API server: what any service the tenant calls with it could replay here.
  const KubectlResult api_token = Kubectl(cluster().kubeconfig(), {"create", "token", "mallory", "-n", ns(), "--duration", "1h"});
  ASSERT_EQ(api_token.exit_code, 0) << api_token.err;
  const auto ask = [&](const std::string& bearer, const std::string& pod_namespace) {
    net::HttpClientOptions options{"https://127.0.0.1:" + std::to_string(cluster().dry_run_port()), {}};
    options.tls.ca_file = cluster().ca_file();
    net::HttpClientRequest request;
    request.method = "POST";
    request.target = "/dry-run";
    request.headers = {{"Content-Type", "application/json"}};
    if (!bearer.empty()) request.headers.emplace_back("Authorization", "Bearer " + bearer);
    Json pod = PodObject("what-if", PodSpec().Gpus(8).Queue("team-a"));
    pod["metadata"]["namespace"] = pod_namespace;
    request.body = Json{{"pods", Json::array({pod})}}.dump();
    return net::MakeHttpClient(options)->Send(request);
  };
  const std::string mallory = token.out.substr(0, token.out.find_last_not_of('\n') + 1);

  const auto anonymous = ask("", ns());
  EXPECT_EQ(anonymous.status, 401) << anonymous.body;
  const auto forged = ask("not-a-token", ns());
  EXPECT_EQ(forged.status, 401) << forged.body;
  const auto replayed = ask(api_token.out.substr(0, api_token.out.find_last_not_of('\n') + 1), ns());
  EXPECT_EQ(replayed.status, 401) << replayed.body;
  // The API server itself refuses it for the audience asked ("is invalid for the target audiences").
  EXPECT_NE(replayed.body.find("gangplank"), std::string::npos) << replayed.body;
  const auto elsewhere = ask(mallory, "kube-system");
  EXPECT_EQ(elsewhere.status, 403) << elsewhere.body;
  EXPECT_NE(elsewhere.body.find("may not create pods in namespace \\\"kube-system\\\""), std::string::npos) << elsewhere.body;
  const auto own = ask(mallory, ns());
  ASSERT_EQ(own.status, 200) << own.body << Logs();
  EXPECT_EQ(Json::parse(own.body).value("admitted", false), true) << own.body;

  // The plain port no longer answers it.
  net::HttpClientRequest plain;
  plain.method = "POST";
  plain.target = "/dry-run";
  plain.body = "{}";
  const auto open = net::MakeHttpClient({"http://127.0.0.1:" + std::to_string(cluster().operator_port()), {}})->Send(plain);
  EXPECT_EQ(open.status, 404) << open.body;
  // Nor the webhook's port: dry-run callers have a listener of their own and never take the connections
  // the API server's webhook calls need.
  net::HttpClientOptions webhook_options{"https://127.0.0.1:" + std::to_string(cluster().webhook_port()), {}};
  webhook_options.tls.ca_file = cluster().ca_file();
  plain.headers = {{"Authorization", "Bearer " + mallory}};
  const auto on_webhook = net::MakeHttpClient(webhook_options)->Send(plain);
  EXPECT_EQ(on_webhook.status, 404) << on_webhook.body;
  EXPECT_NE(on_webhook.body.find("TLS port :" + std::to_string(cluster().dry_run_port())), std::string::npos) << on_webhook.body;

  // The subcommand, as the operator README shows it: token and CA from files.
  const std::filesystem::path dir = cluster().dir();
  std::ofstream(dir / "mallory.token") << token.out;
  Json pod = PodObject("what-if", PodSpec().Gpus(8).Queue("team-a"));
  pod["metadata"]["namespace"] = ns();
  std::ofstream(dir / "gang.json") << Json{{"pods", Json::array({pod})}}.dump();
  const auto cli = gangplank::testing::run_process(
      {GANGPLANK_BUILD_DIR "/operator/gangplank-operator", "dry-run", "--url",
       "https://127.0.0.1:" + std::to_string(cluster().dry_run_port()), "-f", (dir / "gang.json").string(), "--token-file",
       (dir / "mallory.token").string(), "--ca-file", cluster().ca_file()});
  EXPECT_EQ(cli.exit_code, 0) << cli.out << cli.err;
  EXPECT_NE(cli.out.find("\"admitted\":true"), std::string::npos) << cli.out;
}

// Before: both decoders ignored initContainers[].restartPolicy: Always, so a pod with seven GPU sidecars and
// one GPU container was charged one GPU and held eight. Four such one-pod gangs in a queue limited to 8
// GPUs were all admitted (queue usedGPUs 4), the first held a whole node and the others were planned onto
// it and sat Pending. Now each is charged eight (Kubernetes' rule, base/pod_requests.h): one runs, the
// others wait for the queue, gated.
TEST_F(TenantAttacks, GpuSidecarsAreChargedToTheQueueAsKubernetesCountsThem) {
  for (int i = 0; i < 2; ++i) Node("side-" + std::to_string(i), 8);
  Pool("pool");
  Queue("capped", Json::parse(R"({"pools":[{"name":"pool","limitGPUs":8}]})"));
  std::vector<std::string> pods;
  for (int i = 0; i < 4; ++i) {
    Json pod = PodObject("sidecars-" + std::to_string(i), PodSpec().Gpus(1).Queue("capped"));
    Json init = Json::array();
    for (int s = 0; s < 7; ++s) {
      init.push_back({{"name", "helper-" + std::to_string(s)},
                      {"image", "sidecar"},
                      {"restartPolicy", "Always"},
                      {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}});
    }
    pod["spec"]["initContainers"] = init;
    const KubectlResult created = TenantCreates(pod);
    ASSERT_EQ(created.exit_code, 0) << created.err;
    pods.push_back(pod["metadata"]["name"]);
  }
  ASSERT_TRUE(WaitFor([&] { return std::count_if(pods.begin(), pods.end(), [&](const auto& p) { return !NodeOf(p).empty(); }) == 1; }))
      << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(5));  // Long enough for a second admission to slip through.
  int waiting = 0;
  for (const auto& p : pods) {
    if (!NodeOf(p).empty()) continue;
    EXPECT_TRUE(Gated(p)) << p << " was released";
    waiting += GangCondition(p).value("reason", "") == "QueueAtLimit" ? 1 : 0;
  }
  EXPECT_EQ(waiting, 3) << Logs();
}

// Before (f8c5fe5): a pod bound at creation to another team's node and labelled into the tenant's own
// running gang counted as GPUs held there, so gangplank saw a shortfall on that node and asked the other
// team's gang to checkpoint (then restarted it). The fence now refuses such a pod in a tenant namespace;
// here the namespace is exempt (as with the fence off), and fault recovery still counts only what it
// admitted itself: no shortfall, and the other team's gang is left alone.
TEST_F(TenantAttacks, APodBoundIntoAnotherTeamsNodeFakesNoShortfallThere) {
  for (int i = 0; i < 2; ++i) Node("held-" + std::to_string(i), 8);
  Pool("pool", Json{{"faultRecovery", {{"nodeGraceSeconds", 1}, {"checkpointGraceSeconds", 600}}}});
  Queue("team-a");
  CreateGang("victim", 1, PodSpec().Gpus(8).Queue("team-a"));
  CreateGang("mine", 1, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"victim-0", "mine-0"}); })) << Logs();
  const std::string theirs = NodeOf("victim-0");
  ExemptFromFence();
  PodSpec faker = PodSpec().Gpus(8).Queue("team-a").Gang("mine", 1);
  faker.node = theirs;  // gangplank's scheduler named, bound at creation: the webhook leaves bound pods be.
  const KubectlResult created = TenantCreates(PodObject("mine-faker", faker));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  ASSERT_TRUE(WaitFor([&] { return Running("mine-faker"); })) << "KWOK did not run the bound pod";
  // Past the node grace and a fault look (every 10 s): a shortfall would have asked by now.
  std::this_thread::sleep_for(std::chrono::seconds(15));
  EXPECT_TRUE(AnnotationOf("victim-0", "gangplank.io/checkpoint-requested").empty()) << Logs();
  EXPECT_FALSE(Said("CheckpointRequested", theirs)) << Logs();
  EXPECT_FALSE(Said("GangRestarted", theirs)) << Logs();
  EXPECT_EQ(NodeOf("victim-0"), theirs) << "the other team's gang was moved";
}

// Before: a GPU pod outside gangplank (another scheduler's, bound at creation) in a namespace the fence
// exempts held its GPUs charged to no queue, so its namespace's queue admitted its whole limit beside it
// (the review's replay: 8 GPUs running, usedGPUs 0). Now it is charged to its namespace's queue (the
// admin's namespace label; its own queue label is the pod owner's word and is not believed): that queue's
// gang waits at its limit until the pod goes.
TEST_F(TenantAttacks, AGpuPodOutsideGangplankIsChargedToItsNamespacesQueue) {
  for (int i = 0; i < 2; ++i) Node("outside-" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a", Json::parse(R"({"pools":[{"name":"pool","limitGPUs":8}]})"));
  Queue("team-b");
  ExemptFromFence();
  client().Patch(kube::resources::Namespaces(), "", ns(), kube::PatchType::kMerge,
                 Json{{"metadata", {{"labels", {{"gangplank.io/queue", "team-a"}}}}}});
  PodSpec outside = PodSpec().Gpus(8).Queue("team-b");
  outside.scheduler = "default-scheduler";
  outside.node = "outside-0";
  const KubectlResult created = TenantCreates(PodObject("outside", outside));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  ASSERT_TRUE(WaitFor([&] { return Running("outside"); })) << "KWOK did not run the bound pod";

  CreateGang("inside", 1, PodSpec().Gpus(8));
  ASSERT_TRUE(WaitFor([&] { return GangCondition("inside-0").value("reason", "") == "QueueAtLimit"; }))
      << GangCondition("inside-0").dump() << Logs();
  EXPECT_TRUE(Gated("inside-0"));
  EXPECT_NE(GangCondition("inside-0").value("message", "").find("queue team-a at its limit of 8 GPUs"), std::string::npos)
      << GangCondition("inside-0").dump();

  kube::DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(client().Remove(kube::resources::Pods(), ns(), "outside", now));
  EXPECT_TRUE(WaitFor([&] { return !NodeOf("inside-0").empty(); })) << "the queue's room came back" << Logs();
}

}  // namespace
}  // namespace gangplank::real_cluster
