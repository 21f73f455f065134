// The real kubectl with the built-in kinds an installation creates, against the real kube-apiserver:
// apply, re-apply, server-side dry runs, get with its columns,
// and the errors kubectl prints for what the API refuses.
#include "tests/kubectl/kubectl_fixture.h"

namespace gangplank::testing::kubectl {
namespace {


constexpr const char* kInstallation = R"(apiVersion: v1
kind: ServiceAccount
metadata: {name: op, namespace: default}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: default}
data: {config.yaml: "a: 1"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: default}
stringData: {token: abc}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: main
          image: busybox
          ports: [{name: http, containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: lease, namespace: default}
rules: [{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, update]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: lease, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: lease}
subjects: [{kind: ServiceAccount, name: op, namespace: default}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
subjects: [{kind: ServiceAccount, name: op, namespace: default}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: gate}
webhooks:
  - name: pod-gate.example.io
    admissionReviewVersions: [v1]
    sideEffects: None
    clientConfig: {service: {name: op, namespace: default, path: /mutate}}
    rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
)";

class KubectlBuiltinKindsTest : public KubectlFixture {
 protected:
  void SetUp() override {
    KubectlFixture::SetUp();
    cluster_objects_ = {"clusterrole/reader", "clusterrolebinding/reader", "mutatingwebhookconfiguration/gate"};
  }
  // The installation in this test's namespace.
  std::string installation() const {
    std::string text = kInstallation;
    const std::string from = "namespace: default", to = "namespace: " + ns();
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    return text;
  }
};

TEST_F(KubectlBuiltinKindsTest, ApplyReapplyAndGetEveryKind) {
  const std::string created = ok({"apply", "-f", "-"}, installation());
  for (const char* line : {"serviceaccount/op created", "configmap/cfg created", "secret/creds created",
                           "deployment.apps/web created", "service/web created", "role.rbac.authorization.k8s.io/lease created",
                           "rolebinding.rbac.authorization.k8s.io/lease created", "clusterrole.rbac.authorization.k8s.io/reader created",
                           "clusterrolebinding.rbac.authorization.k8s.io/reader created",
                           "mutatingwebhookconfiguration.admissionregistration.k8s.io/gate created"}) {
    EXPECT_NE(created.find(line), std::string::npos) << line << "\n" << created;
  }
  // Re-applying changes nothing the server keeps. Two objects are sent again all the same, as with a
  // real API server: the Secret's stringData (stored only as data, so never in the live object) and the
  // webhook's rules (an atomic list the server extends with the default scope "*").
  const std::string again = ok({"apply", "-f", "-"}, installation());
  for (const char* line : {"deployment.apps/web unchanged", "service/web unchanged", "configmap/cfg unchanged",
                           "clusterrolebinding.rbac.authorization.k8s.io/reader unchanged", "secret/creds configured",
                           "mutatingwebhookconfiguration.admissionregistration.k8s.io/gate configured"}) {
    EXPECT_NE(again.find(line), std::string::npos) << line << "\n" << again;
  }
  EXPECT_EQ(ok({"get", "mutatingwebhookconfiguration", "gate", "-o", "jsonpath={.webhooks[0].rules[0].scope}"}), "*");

  // An address of the Service range (the test cluster's is a loopback range).
  const std::string cluster_ip = ok({"get", "svc", "web", "-o", "jsonpath={.spec.clusterIP}"});
  EXPECT_EQ(std::count(cluster_ip.begin(), cluster_ip.end(), '.'), 3) << cluster_ip;
  EXPECT_EQ(ok({"get", "svc", "web", "-o", "jsonpath={.spec.clusterIPs[0]}"}), cluster_ip);
  EXPECT_EQ(ok({"get", "secret", "creds", "-o", "jsonpath={.data.token}"}), "YWJj");
  const std::string deployments = ok({"get", "deploy"});
  EXPECT_NE(deployments.find("NAME   READY   UP-TO-DATE   AVAILABLE   AGE"), std::string::npos) << deployments;
  // READY 0/2: nothing schedules the pods (the real cluster's Deployment controller does set UP-TO-DATE).
  EXPECT_NE(deployments.find("web    0/2     "), std::string::npos) << deployments;
  const std::string services = ok({"get", "svc"});
  EXPECT_NE(services.find("CLUSTER-IP"), std::string::npos) << services;
  EXPECT_NE(services.find("80/TCP"), std::string::npos) << services;
  EXPECT_NE(ok({"get", "clusterrolebinding", "reader"}).find("ClusterRole/reader"), std::string::npos);
  EXPECT_NE(ok({"get", "mutatingwebhookconfigurations"}).find("WEBHOOKS"), std::string::npos);
  EXPECT_NE(ok({"get", "sa,cm,secret,role,rolebinding"}).find("role.rbac.authorization.k8s.io/lease"), std::string::npos);
}

TEST_F(KubectlBuiltinKindsTest, ServerDryRunReportsUpstreamMessagesAndStoresNothing) {
  const std::string bad = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: bad}
spec:
  selector: {matchLabels: {app: bad}}
  template:
    metadata: {labels: {app: other}}
    spec: {containers: [{name: main, image: busybox}]}
)";
  const std::string err = rejected({"apply", "--dry-run=server", "-f", "-"}, bad);
  EXPECT_NE(err.find("The Deployment \"bad\" is invalid: spec.template.metadata.labels: Invalid value: "
                     "{\"app\":\"other\"}: `selector` does not match template `labels`"),
            std::string::npos)
      << err;
  const std::string good = ok({"apply", "--dry-run=server", "-f", "-"}, installation());
  EXPECT_NE(good.find("deployment.apps/web created (server dry run)"), std::string::npos) << good;
  EXPECT_NE(rejected({"get", "deploy", "web"}).find("NotFound"), std::string::npos);

  const std::string elsewhere = R"(apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: nowhere}
)";
  EXPECT_NE(rejected({"apply", "--dry-run=server", "-f", "-"}, elsewhere).find("namespaces \"nowhere\" not found"), std::string::npos);
}

TEST_F(KubectlBuiltinKindsTest, ChangingABindingsRoleRefIsRefused) {
  ok({"apply", "-f", "-"}, installation());
  const std::string moved = R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: writer}
subjects: [{kind: ServiceAccount, name: op, namespace: default}]
)";
  const std::string err = rejected({"apply", "-f", "-"}, moved);
  const std::string refused = "The ClusterRoleBinding \"reader\" is invalid: roleRef: Invalid value: {\"APIGroup\":"
                              "\"rbac.authorization.k8s.io\",\"Kind\":\"ClusterRole\",\"Name\":\"writer\"}: ";
  // kube-apiserver 1.35 said "cannot change roleRef"; 1.37's declarative validation
  // says "field is immutable". Either way the change is refused, naming the roleRef.
  EXPECT_TRUE(err.find(refused + "cannot change roleRef") != std::string::npos ||
              err.find(refused + "field is immutable") != std::string::npos)
      << err;
}

}  // namespace
}  // namespace gangplank::testing::kubectl
