// The fence around GPU nodes on the real control plane: a tenant (a ServiceAccount with the built-in `edit`
// role in its own namespace, and the right to patch pods/status that many frameworks' roles carry) tries
// to take GPUs past gangplank's queues — a pod bound to a node at creation, a pod of another scheduler,
// a pod whose GPUs come through a resource claim, a gangplank pod without the gate while the webhook is
// off — or to move its pod to another gang through the pod or its status. The defence is the chart's
// ValidatingAdmissionPolicies (<release>-gpu-fence, <release>-pod-admission), run by the real API server;
// each attack worked before them. What the fence leaves alone stays possible: CPU pods of any scheduler,
// and GPU pods in a namespace a cluster admin exempts.
#include <gtest/gtest.h>

#include <thread>

#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

class TenantFence : public RealClusterTest {
 protected:
  void SetUp() override {
    RealClusterTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::string rbac = R"(
apiVersion: v1
kind: ServiceAccount
metadata: {name: tenant, namespace: )" + ns() + R"(}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: tenant-edit, namespace: )" + ns() + R"(}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects:
- {kind: ServiceAccount, name: tenant, namespace: )" + ns() + R"(}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-status-writer, namespace: )" + ns() + R"(}
rules:
- apiGroups: [""]
  resources: [pods/status]
  verbs: [get, update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: pod-status-writer, namespace: )" + ns() + R"(}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-status-writer}
subjects:
- {kind: ServiceAccount, name: tenant, namespace: )" + ns() + "}\n";
    const KubectlResult applied = Kubectl(cluster().kubeconfig(), {"apply", "-f", "-"}, rbac);
    ASSERT_EQ(applied.exit_code, 0) << applied.err;
  }

  // kubectl as the tenant's ServiceAccount (impersonated: the API server authorizes and admits the request
  // as that user).
  KubectlResult AsTenant(std::vector<std::string> args, const std::string& stdin_text = "") {
    args.insert(args.begin(), {"--as", "system:serviceaccount:" + ns() + ":tenant", "-n", ns()});
    return Kubectl(cluster().kubeconfig(), args, stdin_text);
  }
  KubectlResult TenantCreates(const Json& pod) { return AsTenant({"create", "-o", "json", "-f", "-"}, pod.dump()); }

  // The pod is refused, the message saying `part`, and nothing was created.
  void ExpectRefused(const Json& pod, const std::string& part) {
    const std::string name = pod["metadata"]["name"];
    const KubectlResult r = TenantCreates(pod);
    EXPECT_NE(r.exit_code, 0) << name << " was created: " << r.out;
    EXPECT_NE(r.err.find(part), std::string::npos) << name << ": " << r.err;
    EXPECT_FALSE(Pod(name).has_value()) << name;
  }

  static constexpr const char* kWhere = "gangplank governs the GPUs of namespace ";
};

// Before: a pod created with spec.nodeName skipped the scheduler, the webhook (which skips bound pods),
// the gate and the queues: it ran with 8 GPUs on a node gangplank planned for others, charged to no queue.
TEST_F(TenantFence, ATenantPodBoundToAGpuNodeAtCreationIsRefused) {
  Node("n0", 8);
  ExpectRefused(PodObject("squat", PodSpec().Gpus(8).BoundTo("n0")),
                kWhere + ns() + ": a pod asking for GPUs (nvidia.com/gpu) waits for its queue in gangplank, so remove "
                "spec.nodeName (n0) and set spec.schedulerName to gangplank (not default-scheduler)");
  // Naming gangplank does not make a bound pod gangplank's.
  Json named = PodObject("named", PodSpec().Gpus(8));
  named["spec"]["nodeName"] = "n0";
  const KubectlResult r = TenantCreates(named);
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_FALSE(Pod("named").has_value());
}

// Before: the default scheduler placed a pod tolerating the GPU taint on a GPU node, outside the queues;
// so it did for MIG slices and GPU shares.
TEST_F(TenantFence, ADefaultSchedulerPodAskingForGpusIsRefused) {
  Node("n0", 8);
  Json tolerant = PodObject("tolerant", PodSpec().Gpus(8));
  tolerant["spec"]["schedulerName"] = "default-scheduler";
  tolerant["spec"]["tolerations"] = Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}});
  ExpectRefused(tolerant, "so set spec.schedulerName to gangplank (not default-scheduler); pods that must bypass gangplank");
  for (const auto& [name, resource] : {std::pair{"slice", "nvidia.com/mig-1g.10gb"}, std::pair{"share", "gangplank.io/gpu-milli"}}) {
    Json pod = PodObject(name, PodSpec().Gpus(0));
    pod["spec"]["schedulerName"] = "my-own-scheduler";
    pod["spec"]["containers"][0]["resources"]["requests"][resource] = "1";
    pod["spec"]["containers"][0]["resources"]["limits"][resource] = "1";
    ExpectRefused(pod, std::string("(") + (name == std::string("slice") ? "nvidia.com/mig-*" : resource) + ")");
  }
}

// Before: a pod asking for GPUs only through a resource claim, with another scheduler, had the claim
// allocated by that scheduler: DRA GPUs outside gangplank.
TEST_F(TenantFence, AClaimOnlyPodOfAnotherSchedulerIsRefused) {
  ClaimTemplate("eight", "gpu.nvidia.com", 8);
  PodSpec spec = PodSpec().ClaimTemplate("eight");
  spec.scheduler = "default-scheduler";
  ExpectRefused(PodObject("claimer", spec), "a pod asking for GPUs (spec.resourceClaims) waits for its queue in gangplank");
}

// Before: with the webhook off (or failing open under failurePolicy Ignore) a pod naming gangplank was
// created without the gate, and the extender passed it unplanned, subject only to its queue's limit.
TEST_F(TenantFence, AGangplankPodWithoutTheGateIsRefusedWhenTheWebhookIsOff) {
  const std::string webhook = "gangplank-operator";
  ASSERT_EQ(Kubectl(cluster().kubeconfig(), {"delete", "mutatingwebhookconfiguration", webhook}).exit_code, 0);
  const Json ungated = PodObject("ungated", PodSpec().Gpus(8).Queue("team-a"));
  // The webhook comes back whatever happens below, gating again before the next test: the others rely on it.
  struct Restore {
    std::string kubeconfig, objects, probe;
    ~Restore() {
      Kubectl(kubeconfig, {"apply", "-f", objects});
      WaitFor([&] {
        const KubectlResult r = Kubectl(kubeconfig, {"create", "--dry-run=server", "-o", "json", "-f", "-"}, probe);
        return r.exit_code == 0 && Json::parse(r.out)["spec"].contains("schedulingGates");
      });
    }
  } restore{cluster().kubeconfig(), (cluster().dir() / "chart-objects.yaml").string(), ungated.dump()};
  // Until the API server's informer sees the deletion, the webhook still gates.
  ASSERT_TRUE(WaitFor([&] {
    const KubectlResult probe = AsTenant({"create", "--dry-run=server", "-o", "json", "-f", "-"}, ungated.dump());
    return probe.exit_code != 0 || !Json::parse(probe.out)["spec"].contains("schedulingGates");
  }));
  ExpectRefused(ungated, "a pod naming the scheduler gangplank is created with the scheduling gate gangplank.io/admission");
  ExpectRefused(PodObject("ungated-cpu", PodSpec().Gpus(0)), "add {name: gangplank.io/admission} to spec.schedulingGates");
  // A template that carries the gate itself, as the chart's values say when the webhook is off, is fine.
  Json carried = PodObject("carried", PodSpec().Gpus(8).Queue("team-a"));
  carried["spec"]["schedulingGates"] = Json::array({{{"name", "gangplank.io/admission"}}});
  const KubectlResult created = TenantCreates(carried);
  EXPECT_EQ(created.exit_code, 0) << created.err;
  EXPECT_TRUE(Gated("carried"));
}

// Before: only the queue and gang labels were pinned, and only on the pod itself: the owner of a pod could
// move it to another pool, PodGroup or gang size, and through pods/status change even its queue.
TEST_F(TenantFence, AGangCannotBeRelabelledThroughThePodOrItsStatus) {
  Node("n0", 8);
  const Json pod = PodObject("member", PodSpec().Gpus(8).Queue("team-a").Label("gangplank.io/pool", "h100")
                                           .Label("scheduling.x-k8s.io/pod-group", "train")
                                           .Annotation("gangplank.io/gang-size", "4"));
  const KubectlResult created = TenantCreates(pod);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  ASSERT_TRUE(Gated("member"));
  const auto patch = [&](const std::string& subresource, const Json& metadata) {
    std::vector<std::string> args{"patch", "pod", "member", "--type", "merge", "-p", Json{{"metadata", metadata}}.dump()};
    if (!subresource.empty()) args.insert(args.end(), {"--subresource", subresource});
    return AsTenant(args);
  };
  for (const std::string subresource : {"", "status"}) {
    const std::string via = subresource.empty() ? "the pod" : "pods/status";
    for (const auto& [key, message] : {std::pair{"gangplank.io/pool", "(label gangplank.io/pool)"},
                                       std::pair{"scheduling.x-k8s.io/pod-group", "(label scheduling.x-k8s.io/pod-group)"}}) {
      const KubectlResult r = patch(subresource, Json{{"labels", {{key, "other"}}}});
      EXPECT_NE(r.exit_code, 0) << key << " changed through " << via;
      EXPECT_NE(r.err.find(std::string("the gang of a pod cannot change after it is created ") + message), std::string::npos) << r.err;
    }
    KubectlResult r = patch(subresource, Json{{"annotations", {{"gangplank.io/gang-size", "1"}}}});
    EXPECT_NE(r.exit_code, 0) << "gang size changed through " << via;
    EXPECT_NE(r.err.find("(annotation gangplank.io/gang-size)"), std::string::npos) << r.err;
    r = patch(subresource, Json{{"labels", {{"gangplank.io/queue", "team-b"}}}});
    EXPECT_NE(r.exit_code, 0) << "queue changed through " << via;
    EXPECT_NE(r.err.find("cannot change after it is created"), std::string::npos) << r.err;
    r = patch(subresource, Json{{"annotations", {{"gangplank.io/planned-node", "n0"}}}});
    EXPECT_NE(r.exit_code, 0) << "a plan written through " << via;
    // The tenant may write pods/status (the refusals above are the policy's, not RBAC's), and its own labels.
    r = patch(subresource, Json{{"labels", {{"team", subresource.empty() ? "pod" : "status"}}}});
    EXPECT_EQ(r.exit_code, 0) << via << ": " << r.err;
  }
  const auto stored = Pod("member");
  ASSERT_TRUE(stored);
  const Json labels = stored->value("/metadata/labels"_json_pointer, Json::object());
  EXPECT_EQ(labels.value("gangplank.io/pool", ""), "h100");
  EXPECT_EQ(labels.value("scheduling.x-k8s.io/pod-group", ""), "train");
  EXPECT_EQ(labels.value("gangplank.io/queue", ""), "team-a");
  EXPECT_EQ(labels.value("team", ""), "status");
  EXPECT_EQ(AnnotationOf("member", "gangplank.io/gang-size"), "4");
  EXPECT_EQ(PlannedNodeOf("member"), "");
}

// What the fence leaves alone: a namespace a cluster admin exempts (labelled gangplank.io/fence=exempt,
// which a tenant cannot do itself, or named in fence.exemptNamespaces: kube-system by default) still runs
// GPU pods outside gangplank.
TEST_F(TenantFence, ANamespaceAnAdminExemptsStillRunsGpuPodsOutsideGangplank) {
  Node("n0", 8);
  const Json system_pod = PodObject("system", PodSpec().Gpus(8).BoundTo("n0"));
  ExpectRefused(system_pod, kWhere + ns());
  const KubectlResult self_service = AsTenant({"label", "namespace", ns(), "gangplank.io/fence=exempt"});
  EXPECT_NE(self_service.exit_code, 0) << "a tenant exempted its own namespace";
  EXPECT_NE(self_service.err.find("forbidden"), std::string::npos) << self_service.err;

  ExemptFromFence();
  const KubectlResult created = TenantCreates(system_pod);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_TRUE(WaitFor([&] { return Running("system"); })) << "KWOK did not run the exempt pod";

  Json kube_system = PodObject("gpu-validator", PodSpec().Gpus(1).BoundTo("n0"));
  kube_system["metadata"]["namespace"] = "kube-system";
  const KubectlResult r = Kubectl(cluster().kubeconfig(), {"create", "--dry-run=server", "-f", "-"}, kube_system.dump());
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// What the fence leaves alone: pods that ask for no GPU, of any scheduler, bound at creation or not.
TEST_F(TenantFence, ACpuPodOfAnotherSchedulerIsStillCreated) {
  Node("n0", 8);
  ExpectRefused(PodObject("web-gpu", PodSpec().Gpus(1).BoundTo("n0")), kWhere + ns());
  const KubectlResult scheduled = TenantCreates(PodObject("web", PodSpec().Gpus(0).BoundTo("")));
  EXPECT_EQ(scheduled.exit_code, 0) << scheduled.err;
  const KubectlResult bound = TenantCreates(PodObject("web-bound", PodSpec().Gpus(0).BoundTo("n0")));
  ASSERT_EQ(bound.exit_code, 0) << bound.err;
  EXPECT_TRUE(WaitFor([&] { return Running("web-bound"); })) << "KWOK did not run the CPU pod";
  EXPECT_FALSE(Gated("web"));
}

}  // namespace
}  // namespace gangplank::real_cluster
