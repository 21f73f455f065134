// The chart's two ValidatingAdmissionPolicies, rendered by Helm 3 and run on the project's CEL
// (support/validating_policy.h): <release>-pod-admission (only the operator admits; a pod's queue, gang
// and the rest of its gang identity stay as created, through pods/status too) and <release>-gpu-fence (no
// governed GPU outside gangplank, the gate required at creation), with the values that shape or remove
// them. tests/real-cluster/tenant_fence_test.cc proves the same rules on the real kube-apiserver.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"
#include "tests/helm/support/validating_policy.h"

namespace gangplank::helm_testing {
namespace {

constexpr char kOperator[] = "system:serviceaccount:gangplank-system:gangplank-operator";

RenderedObjects Render(const std::vector<std::string>& sets = {}, const std::string& ci_values = "") {
  RenderOptions options;
  options.sets = sets;
  if (!ci_values.empty()) options.values_files.push_back(chart_dir() + "/ci/" + ci_values + "-values.yaml");
  return RenderedObjects(helm3().render_ok(options));
}

// A pod with one container asking for `resources` (limits), as the API server hands it to admission
// (defaults applied: schedulerName).
json Pod(const std::string& scheduler, const json& limits = json::object()) {
  json container{{"name", "main"}, {"image", "trainer"}};
  if (!limits.empty()) container["resources"] = {{"limits", limits}, {"requests", limits}};
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"labels", json::object()}, {"annotations", json::object()}}},
              {"spec", {{"schedulerName", scheduler}, {"containers", json::array({container})}}}};
}

json Gated(json pod) {
  pod["spec"]["schedulingGates"] = json::array({{{"name", "gangplank.io/admission"}}});
  return pod;
}

const json kEightGpus{{"nvidia.com/gpu", "8"}};

PolicyRequest Create(const json& pod, const std::string& ns = "team-a") {
  PolicyRequest r;
  r.namespace_name = ns;
  r.object = pod;
  return r;
}

PolicyRequest Update(const json& old_pod, const json& pod, const std::string& subresource = "") {
  PolicyRequest r;
  r.operation = "UPDATE";
  r.subresource = subresource;
  r.old_object = old_pod;
  r.object = pod;
  return r;
}

class ChartPolicies : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = helm3().unavailable_reason();
    if (!why.empty()) FAIL() << why;
  }
};

// --- The fence around GPU nodes. ---

TEST_F(ChartPolicies, TheFenceRefusesAGpuPodBoundAtCreationOrOfAnotherSchedulerSayingWhatToDo) {
  const ValidatingPolicy fence(Render().get("ValidatingAdmissionPolicy", "gangplank-gpu-fence"));
  json bound = Pod("default-scheduler", kEightGpus);
  bound["spec"]["nodeName"] = "gpu-7";
  EXPECT_EQ(fence.Denial(Create(bound)),
            "gangplank governs the GPUs of namespace team-a: a pod asking for GPUs (nvidia.com/gpu) waits for its queue in "
            "gangplank, so remove spec.nodeName (gpu-7) and set spec.schedulerName to gangplank (not default-scheduler); "
            "pods that must bypass gangplank (system pods) belong in a namespace a cluster admin exempts (label "
            "gangplank.io/fence=exempt)");
  const auto foreign = fence.Denial(Create(Pod("default-scheduler", kEightGpus)));
  ASSERT_TRUE(foreign);
  EXPECT_NE(foreign->find("so set spec.schedulerName to gangplank (not default-scheduler);"), std::string::npos) << *foreign;
  // Bound at creation while naming gangplank: the webhook's gate makes the API server refuse it too.
  json bound_gangplank = Gated(Pod("gangplank", kEightGpus));
  bound_gangplank["spec"]["nodeName"] = "gpu-7";
  const auto pinned = fence.Denial(Create(bound_gangplank));
  ASSERT_TRUE(pinned);
  EXPECT_NE(pinned->find("so remove spec.nodeName (gpu-7);"), std::string::npos) << *pinned;
  // gangplank's own, gated: through.
  EXPECT_EQ(fence.Denial(Create(Gated(Pod("gangplank", kEightGpus)))), std::nullopt);
}

TEST_F(ChartPolicies, EveryWayToAskForAGpuIsFenced) {
  const ValidatingPolicy fence(Render().get("ValidatingAdmissionPolicy", "gangplank-gpu-fence"));
  for (const std::string name : {"nvidia.com/gpu", "gangplank.io/gpu-milli", "nvidia.com/mig-1g.10gb",
                                 "deviceclass.resource.kubernetes.io/gpu.nvidia.com"}) {
    EXPECT_TRUE(fence.Denial(Create(Pod("default-scheduler", {{name, "1"}})))) << name;
  }
  // Limits alone, an init container, a sidecar, the pod's own resources.
  json limits_only = Pod("default-scheduler");
  limits_only["spec"]["containers"][0]["resources"] = {{"limits", kEightGpus}};
  EXPECT_TRUE(fence.Denial(Create(limits_only)));
  json sidecar = Pod("default-scheduler");
  sidecar["spec"]["initContainers"] = json::array(
      {{{"name", "side"}, {"image", "x"}, {"restartPolicy", "Always"}, {"resources", {{"limits", kEightGpus}}}}});
  const auto side = fence.Denial(Create(sidecar));
  ASSERT_TRUE(side);
  EXPECT_NE(side->find("asking for GPUs (nvidia.com/gpu)"), std::string::npos) << *side;
  json pod_level = Pod("default-scheduler");
  pod_level["spec"]["resources"] = {{"requests", kEightGpus}};
  EXPECT_TRUE(fence.Denial(Create(pod_level)));
  // A resource claim, whatever it asks for.
  json claims = Pod("default-scheduler");
  claims["spec"]["resourceClaims"] = json::array({{{"name", "gpus"}, {"resourceClaimTemplateName", "eight"}}});
  const auto claimed = fence.Denial(Create(claims));
  ASSERT_TRUE(claimed);
  EXPECT_NE(claimed->find("asking for GPUs (spec.resourceClaims)"), std::string::npos) << *claimed;
  // Several at once are all named.
  json many = Pod("default-scheduler", {{"nvidia.com/gpu", "1"}, {"nvidia.com/mig-3g.40gb", "1"}});
  many["spec"]["resourceClaims"] = claims["spec"]["resourceClaims"];
  const auto all = fence.Denial(Create(many));
  ASSERT_TRUE(all);
  EXPECT_NE(all->find("asking for GPUs (nvidia.com/gpu, nvidia.com/mig-*, spec.resourceClaims)"), std::string::npos) << *all;
}

TEST_F(ChartPolicies, TheFenceLetsCpuPodsOfOtherSchedulersAndExemptNamespacesThrough) {
  const ValidatingPolicy fence(Render().get("ValidatingAdmissionPolicy", "gangplank-gpu-fence"));
  EXPECT_EQ(fence.Denial(Create(Pod("default-scheduler", {{"cpu", "2"}, {"memory", "1Gi"}}))), std::nullopt);
  EXPECT_EQ(fence.Denial(Create(Pod("default-scheduler"))), std::nullopt);
  json bound = Pod("default-scheduler", kEightGpus);
  bound["spec"]["nodeName"] = "gpu-7";
  for (const std::string ns : {"kube-system", "gangplank-system"}) {
    EXPECT_FALSE(fence.Selects(Create(bound, ns))) << ns;
  }
  PolicyRequest labelled = Create(bound, "gpu-operator");
  EXPECT_TRUE(fence.Denial(labelled));
  labelled.namespace_labels["gangplank.io/fence"] = "exempt";
  EXPECT_FALSE(fence.Selects(labelled));
  labelled.namespace_labels["gangplank.io/fence"] = "yes-please";
  EXPECT_TRUE(fence.Selects(labelled)) << "only the value exempt exempts";
  // It looks at creations only: a pod's resources, scheduler and claims do not change afterwards.
  EXPECT_FALSE(fence.Selects(Update(Gated(Pod("gangplank")), Pod("gangplank"))));
}

TEST_F(ChartPolicies, EveryPodNamingGangplankIsCreatedWithTheGate) {
  const ValidatingPolicy fence(Render().get("ValidatingAdmissionPolicy", "gangplank-gpu-fence"));
  const std::string message =
      "a pod naming the scheduler gangplank is created with the scheduling gate gangplank.io/admission, which gangplank's "
      "webhook adds (is it running? a namespace it leaves out must write the gate into its pod templates): add {name: "
      "gangplank.io/admission} to spec.schedulingGates; gangplank's operator removes it when the gang is admitted";
  EXPECT_EQ(fence.Denial(Create(Pod("gangplank", kEightGpus))), message);
  EXPECT_EQ(fence.Denial(Create(Pod("gangplank", {{"cpu", "1"}}))), message) << "CPU pods of gangplank too";
  EXPECT_EQ(fence.Denial(Create(Gated(Pod("gangplank", {{"cpu", "1"}})))), std::nullopt);
  json other_gate = Pod("gangplank", kEightGpus);
  other_gate["spec"]["schedulingGates"] = json::array({{{"name", "example.com/hold"}}});
  EXPECT_EQ(fence.Denial(Create(other_gate)), message);
}

// tuned: scheduler gpu-gang, more exempt namespaces and GPU names, claims and the gate for CPU pods off.
TEST_F(ChartPolicies, TheFencesValuesShapeItAndTurnItsPartsOff) {
  const RenderedObjects tuned = Render({}, "tuned");
  const ValidatingPolicy fence(tuned.get("ValidatingAdmissionPolicy", "gpu-sched-gpu-fence"));
  EXPECT_EQ(tuned.get("ValidatingAdmissionPolicyBinding", "gpu-sched-gpu-fence")["spec"]["policyName"], "gpu-sched-gpu-fence");
  const auto wrong = fence.Denial(Create(Gated(Pod("gangplank", kEightGpus))));
  ASSERT_TRUE(wrong);
  EXPECT_NE(wrong->find("set spec.schedulerName to gpu-gang (not gangplank)"), std::string::npos) << *wrong;
  EXPECT_EQ(fence.Denial(Create(Gated(Pod("gpu-gang", kEightGpus)))), std::nullopt);
  EXPECT_TRUE(fence.Denial(Create(Pod("default-scheduler", {{"amd.com/gpu", "1"}}))));
  EXPECT_TRUE(fence.Denial(Create(Pod("default-scheduler", {{"example.com/anything", "1"}}))));
  EXPECT_EQ(fence.Denial(Create(Pod("default-scheduler", {{"amd.com/gpu-partition", "1"}}))), std::nullopt)
      << "a name without * is exact";
  json claims = Pod("default-scheduler");
  claims["spec"]["resourceClaims"] = json::array({{{"name", "nic"}, {"resourceClaimTemplateName", "rdma"}}});
  EXPECT_EQ(fence.Denial(Create(claims)), std::nullopt) << "fence.resourceClaims=false";
  EXPECT_EQ(fence.Denial(Create(Pod("gpu-gang", {{"cpu", "1"}}))), std::nullopt) << "fence.requireGate=false";
  EXPECT_TRUE(fence.Denial(Create(Pod("gpu-gang", kEightGpus)))) << "GPU pods still need the gate";
  json bound = Pod("default-scheduler", kEightGpus);
  bound["spec"]["nodeName"] = "gpu-7";
  EXPECT_FALSE(fence.Selects(Create(bound, "gpu-operator")));
  EXPECT_FALSE(fence.Selects(Create(bound, "gangplank-system"))) << "the release namespace";
  EXPECT_TRUE(fence.Selects(Create(bound, "default")));

  // Off: no fence, and the other policy stays (and the reverse).
  const RenderedObjects off = Render({"fence.enabled=false"});
  EXPECT_FALSE(off.find("ValidatingAdmissionPolicy", "gangplank-gpu-fence"));
  EXPECT_FALSE(off.find("ValidatingAdmissionPolicyBinding", "gangplank-gpu-fence"));
  EXPECT_TRUE(off.find("ValidatingAdmissionPolicy", "gangplank-pod-admission"));
  const RenderedObjects no_admission = Render({"operator.admissionPolicy.enabled=false"});
  EXPECT_TRUE(no_admission.find("ValidatingAdmissionPolicy", "gangplank-gpu-fence"));
  EXPECT_FALSE(no_admission.find("ValidatingAdmissionPolicy", "gangplank-pod-admission"));
  EXPECT_TRUE(Render({}, "no-webhook").of_kind("ValidatingAdmissionPolicy").empty());
  // An empty exempt list leaves the release namespace exempt.
  RenderOptions empty_list;
  empty_list.json_sets = {"fence.exemptNamespaces=[]"};
  const ValidatingPolicy strict(RenderedObjects(helm3().render_ok(empty_list)).get("ValidatingAdmissionPolicy", "gangplank-gpu-fence"));
  EXPECT_TRUE(strict.Selects(Create(bound, "kube-system")));
  EXPECT_FALSE(strict.Selects(Create(bound, "gangplank-system")));
}

TEST_F(ChartPolicies, TheFencesValuesAreChecked) {
  for (const std::string bad : {"fence.extraResources={gpu}", "fence.extraResources={nvidia.com/mig-*x}",
                                "fence.exemptNamespaces={Kube_System}", "fence.resourceClaims=maybe"}) {
    RenderOptions options;
    options.sets = {bad};
    const ProcessResult r = helm3().render(options);
    EXPECT_NE(r.exit_code, 0) << bad << " was accepted";
    EXPECT_NE(r.err.find("fence."), std::string::npos) << bad << ": " << r.err;
  }
}

// --- Only the operator admits; a pod's gang stays as created. ---

json Identified() {
  json pod = Gated(Pod("gangplank", kEightGpus));
  pod["metadata"]["labels"] = {{"gangplank.io/queue", "team-a"},
                               {"gangplank.io/pool", "h100"},
                               {"scheduling.x-k8s.io/pod-group", "train"},
                               {"jobset.sigs.k8s.io/jobset-name", "js"},
                               {"training.kubeflow.org/job-name", "pt"},
                               {"training.kubeflow.org/operator-name", "pytorchjob-controller"},
                               {"ray.io/cluster", "rc"}};
  pod["metadata"]["annotations"] = {{"gangplank.io/gang-size", "4"}};
  return pod;
}

TEST_F(ChartPolicies, TheGangIdentityOfAPodCannotChangeThroughThePodOrItsStatus) {
  const ValidatingPolicy admission(Render().get("ValidatingAdmissionPolicy", "gangplank-pod-admission"));
  const json before = Identified();
  for (const std::string subresource : {"", "status"}) {
    for (const std::string label : {"gangplank.io/pool", "scheduling.x-k8s.io/pod-group", "jobset.sigs.k8s.io/jobset-name",
                                    "training.kubeflow.org/job-name", "training.kubeflow.org/operator-name", "ray.io/cluster"}) {
      json changed = before;
      changed["metadata"]["labels"][label] = "other";
      EXPECT_EQ(admission.Denial(Update(before, changed, subresource)),
                "the gang of a pod cannot change after it is created (label " + label + "): create a new pod instead")
          << label << " " << subresource;
      json removed = before;
      removed["metadata"]["labels"].erase(label);
      EXPECT_TRUE(admission.Denial(Update(before, removed, subresource))) << label << " removed " << subresource;
      EXPECT_TRUE(admission.Denial(Update(removed, before, subresource))) << label << " added " << subresource;
    }
    json resized = before;
    resized["metadata"]["annotations"]["gangplank.io/gang-size"] = "1";
    resized["metadata"]["labels"]["gangplank.io/pool"] = "a100";
    EXPECT_EQ(admission.Denial(Update(before, resized, subresource)),
              "the gang of a pod cannot change after it is created (label gangplank.io/pool, annotation "
              "gangplank.io/gang-size): create a new pod instead")
        << subresource;
    // The owner's other labels and annotations are still theirs.
    json own = before;
    own["metadata"]["labels"]["team"] = "vision";
    own["metadata"]["annotations"]["gangplank.io/checkpoint-done"] = "2027-01-15T08:00:00Z";
    EXPECT_EQ(admission.Denial(Update(before, own, subresource)), std::nullopt) << subresource;
    // The operator may.
    PolicyRequest by_operator = Update(before, resized, subresource);
    by_operator.username = kOperator;
    EXPECT_EQ(admission.Denial(by_operator), std::nullopt) << subresource;
  }
}

// The rules that were there keep their messages, and now see pods/status as well.
TEST_F(ChartPolicies, TheOperatorsRulesKeepTheirMessagesAndSeeTheStatusSubresource) {
  const ValidatingPolicy admission(Render().get("ValidatingAdmissionPolicy", "gangplank-pod-admission"));
  json planned = Gated(Pod("gangplank", kEightGpus));
  planned["metadata"]["annotations"]["gangplank.io/planned-node"] = "gpu-7";
  EXPECT_EQ(admission.Denial(Create(planned)),
            "only gangplank's operator may write the annotations gangplank.io/planned-node: remove them from the pod");
  const json before = Identified();
  for (const std::string subresource : {"", "status"}) {
    EXPECT_TRUE(admission.Selects(Update(before, before, subresource))) << subresource;
    json forged = before;
    forged["metadata"]["annotations"]["gangplank.io/admission-id"] = "4102444800-0badf00d";
    EXPECT_EQ(admission.Denial(Update(before, forged, subresource)),
              "only gangplank's operator may set, change or remove the annotations gangplank.io/planned-node, "
              "gangplank.io/admission-id, gangplank.io/plan-seal, gangplank.io/checkpoint-requested, "
              "gangplank.io/checkpoint-cause")
        << subresource;
    json moved = before;
    moved["metadata"]["labels"]["gangplank.io/queue"] = "team-b";
    EXPECT_EQ(admission.Denial(Update(before, moved, subresource)),
              "the labels gangplank.io/queue, gangplank.io/gang of a pod cannot change after it is created: create a new pod instead")
        << subresource;
  }
  json ungated = before;
  ungated["spec"].erase("schedulingGates");
  EXPECT_EQ(admission.Denial(Update(before, ungated)),
            "only gangplank's operator may remove the scheduling gate gangplank.io/admission: the gang is admitted whole, when it fits");
  EXPECT_FALSE(admission.Selects(Update(before, ungated, "ephemeralcontainers")));
}

}  // namespace
}  // namespace gangplank::helm_testing
