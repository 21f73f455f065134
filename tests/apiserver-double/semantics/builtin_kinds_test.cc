// The built-in kinds an installation creates (apps/v1 Deployments, core Services, ServiceAccounts,
// ConfigMaps, Secrets, RBAC roles and bindings, MutatingWebhookConfigurations): discovery, defaults,
// upstream's validation messages, immutable fields, dry runs and Table columns.
#include "tests/apiserver-double/semantics/double_fixture.h"

namespace gangplank::apiserver_double::testing {
namespace {

class BuiltinKindsTest : public DoubleTest {
 protected:
  static json deployment(const std::string& name, json selector_labels, json template_labels) {
    return {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec",
             {{"replicas", 2},
              {"selector", {{"matchLabels", selector_labels}}},
              {"template",
               {{"metadata", {{"labels", template_labels}}},
                {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}}}}}};
  }
  static json service(const std::string& name, json ports) {
    return {{"apiVersion", "v1"},
            {"kind", "Service"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"selector", {{"app", name}}}, {"ports", ports}}}};
  }
  std::vector<std::string> column_names(const std::string& path) {
    auto table = call("GET", path, nullptr, {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}});
    EXPECT_EQ(table.body["kind"], "Table") << table.body.dump();
    std::vector<std::string> names;
    for (const auto& c : table.body["columnDefinitions"]) names.push_back(c["name"]);
    return names;
  }
  json first_row(const std::string& path) {
    auto table = call("GET", path, nullptr, {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}});
    return table.body["rows"][0]["cells"];
  }
};

TEST_F(BuiltinKindsTest, DiscoveryServesTheInstallationKinds) {
  const json apis = call("GET", "/apis").body;
  std::vector<std::string> groups;
  for (const auto& g : apis["groups"]) groups.push_back(g["name"]);
  for (const char* g : {"apps", "rbac.authorization.k8s.io", "admissionregistration.k8s.io"}) {
    EXPECT_NE(std::find(groups.begin(), groups.end(), g), groups.end()) << g;
  }
  const json core_list = call("GET", "/api/v1").body;
  std::map<std::string, json> core;
  for (const auto& r : core_list["resources"]) core[r["name"]] = r;
  EXPECT_EQ(core["services"]["shortNames"], json({"svc"}));
  EXPECT_TRUE(core.count("services/status"));
  EXPECT_EQ(core["serviceaccounts"]["shortNames"], json({"sa"}));
  EXPECT_EQ(core["configmaps"]["shortNames"], json({"cm"}));
  EXPECT_TRUE(core.count("secrets"));
  EXPECT_FALSE(core.count("secrets/status"));
  auto apps = call("GET", "/apis/apps/v1");
  ASSERT_EQ(apps.status, 200);
  EXPECT_EQ(apps.body["resources"][0]["name"], "deployments");
  EXPECT_EQ(apps.body["resources"][1]["name"], "deployments/status");
  const json rbac_list = call("GET", "/apis/rbac.authorization.k8s.io/v1").body;
  std::map<std::string, bool> rbac;
  for (const auto& r : rbac_list["resources"]) rbac[r["name"]] = r["namespaced"];
  EXPECT_TRUE(rbac.at("roles"));
  EXPECT_TRUE(rbac.at("rolebindings"));
  EXPECT_FALSE(rbac.at("clusterroles"));
  EXPECT_FALSE(rbac.at("clusterrolebindings"));
  auto admission = call("GET", "/apis/admissionregistration.k8s.io/v1");
  ASSERT_EQ(admission.status, 200);
  EXPECT_EQ(admission.body["resources"][0]["name"], "mutatingwebhookconfigurations");
  EXPECT_FALSE(admission.body["resources"][0]["namespaced"].get<bool>());
}

TEST_F(BuiltinKindsTest, DeploymentIsDefaultedAndItsSelectorMustMatchTheTemplate) {
  auto created = call("POST", "/apis/apps/v1/namespaces/default/deployments", deployment("web", {{"app", "web"}}, {{"app", "web"}}));
  ASSERT_EQ(created.status, 201) << created.body.dump();
  EXPECT_EQ(created.body["spec"]["strategy"]["type"], "RollingUpdate");
  EXPECT_EQ(created.body["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");
  EXPECT_EQ(created.body["spec"]["revisionHistoryLimit"], 10);
  EXPECT_EQ(created.body["spec"]["template"]["spec"]["restartPolicy"], "Always");

  auto mismatch = call("POST", "/apis/apps/v1/namespaces/default/deployments", deployment("bad", {{"app", "bad"}}, {{"app", "other"}}));
  EXPECT_EQ(mismatch.status, 422);
  EXPECT_EQ(mismatch.body["message"],
            "Deployment.apps \"bad\" is invalid: spec.template.metadata.labels: Invalid value: "
            "{\"app\":\"other\"}: `selector` does not match template `labels`");
  EXPECT_EQ(mismatch.body["details"]["causes"][0]["field"], "spec.template.metadata.labels");

  json no_selector = deployment("nosel", {{"app", "x"}}, {{"app", "x"}});
  no_selector["spec"].erase("selector");
  EXPECT_EQ(call("POST", "/apis/apps/v1/namespaces/default/deployments", no_selector).body["message"],
            "Deployment.apps \"nosel\" is invalid: spec.selector: Required value");
}

TEST_F(BuiltinKindsTest, DeploymentPodTemplateMountsMustNameAVolume) {
  json d = deployment("mounts", {{"app", "m"}}, {{"app", "m"}});
  d["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = {{{"name", "tls"}, {"mountPath", "/tls"}}};
  auto r = call("POST", "/apis/apps/v1/namespaces/default/deployments", d);
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["message"],
            "Deployment.apps \"mounts\" is invalid: spec.template.spec.containers[0].volumeMounts[0].name: Not found: \"tls\"");
  EXPECT_EQ(r.body["details"]["causes"][0]["reason"], "FieldValueNotFound");
  d["spec"]["template"]["spec"]["volumes"] = {{{"name", "tls"}, {"secret", {{"secretName", "s"}}}}};
  EXPECT_EQ(call("POST", "/apis/apps/v1/namespaces/default/deployments", d).status, 201);

  json two = deployment("two", {{"app", "t"}}, {{"app", "t"}});
  two["spec"]["template"]["spec"]["containers"].push_back({{"name", "main"}});
  auto twice = call("POST", "/apis/apps/v1/namespaces/default/deployments", two);
  EXPECT_EQ(twice.body["message"],
            "Deployment.apps \"two\" is invalid: [spec.template.spec.containers[1].name: Duplicate value: \"main\", "
            "spec.template.spec.containers[1].image: Required value]");
}

TEST_F(BuiltinKindsTest, DeploymentSelectorIsImmutableAndStatusIsASubresource) {
  auto created = call("POST", "/apis/apps/v1/namespaces/default/deployments", deployment("web", {{"app", "web"}}, {{"app", "web"}}));
  ASSERT_EQ(created.status, 201);
  json changed = created.body;
  changed["spec"]["selector"]["matchLabels"] = {{"app", "web2"}};
  changed["spec"]["template"]["metadata"]["labels"] = {{"app", "web2"}};
  auto refused = call("PUT", "/apis/apps/v1/namespaces/default/deployments/web", changed);
  EXPECT_EQ(refused.status, 422);
  EXPECT_EQ(refused.body["message"],
            "Deployment.apps \"web\" is invalid: spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"web2\"}}: "
            "field is immutable");

  json with_status = created.body;
  with_status["status"] = {{"readyReplicas", 2}, {"replicas", 2}};
  auto status = call("PUT", "/apis/apps/v1/namespaces/default/deployments/web/status", with_status);
  ASSERT_EQ(status.status, 200);
  EXPECT_EQ(status.body["status"]["readyReplicas"], 2);
  EXPECT_EQ(status.body["metadata"]["generation"], 1);  // status writes do not bump the generation
  json scaled = status.body;
  scaled["spec"]["replicas"] = 3;
  scaled["status"] = {{"readyReplicas", 0}};
  auto main_write = call("PUT", "/apis/apps/v1/namespaces/default/deployments/web", scaled);
  ASSERT_EQ(main_write.status, 200);
  EXPECT_EQ(main_write.body["status"]["readyReplicas"], 2);  // main writes keep the stored status
  EXPECT_EQ(main_write.body["metadata"]["generation"], 2);

  EXPECT_EQ(column_names("/apis/apps/v1/namespaces/default/deployments"),
            (std::vector<std::string>{"Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"}));
  const json row = first_row("/apis/apps/v1/namespaces/default/deployments");
  EXPECT_EQ(row[1], "2/3");
  EXPECT_EQ(row[5], "main");
  EXPECT_EQ(row[7], "app=web");
}

TEST_F(BuiltinKindsTest, ServiceGetsAClusterIpThatItKeepsAndCannotChange) {
  auto a = call("POST", "/api/v1/namespaces/default/services", service("a", {{{"port", 443}, {"targetPort", "https"}}}));
  ASSERT_EQ(a.status, 201) << a.body.dump();
  EXPECT_EQ(a.body["spec"]["clusterIP"], "10.96.0.2");
  EXPECT_EQ(a.body["spec"]["clusterIPs"], json({"10.96.0.2"}));
  EXPECT_EQ(a.body["spec"]["type"], "ClusterIP");
  EXPECT_EQ(a.body["spec"]["sessionAffinity"], "None");
  EXPECT_EQ(a.body["spec"]["ports"][0]["protocol"], "TCP");
  auto b = call("POST", "/api/v1/namespaces/default/services", service("b", {{{"port", 80}}}));
  EXPECT_EQ(b.body["spec"]["clusterIP"], "10.96.0.3");
  EXPECT_EQ(b.body["spec"]["ports"][0]["targetPort"], 80);  // defaults to the port

  json update = a.body;
  update["spec"].erase("clusterIP");
  update["spec"].erase("clusterIPs");
  update["metadata"]["labels"] = {{"x", "y"}};
  auto kept = call("PUT", "/api/v1/namespaces/default/services/a", update);
  ASSERT_EQ(kept.status, 200) << kept.body.dump();
  EXPECT_EQ(kept.body["spec"]["clusterIP"], "10.96.0.2");

  update = kept.body;
  update["spec"]["clusterIP"] = "10.96.0.9";
  update["spec"]["clusterIPs"] = {"10.96.0.9"};
  auto changed = call("PUT", "/api/v1/namespaces/default/services/a", update);
  EXPECT_EQ(changed.status, 422);
  EXPECT_EQ(changed.body["message"],
            "Service \"a\" is invalid: spec.clusterIPs[0]: Invalid value: [\"10.96.0.9\"]: may not change once set");

  json taken = service("c", {{{"port", 80}}});
  taken["spec"]["clusterIP"] = "10.96.0.3";
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/services", taken).status, 422);

  EXPECT_EQ(column_names("/api/v1/namespaces/default/services"),
            (std::vector<std::string>{"Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"}));
  const json row = first_row("/api/v1/namespaces/default/services");
  EXPECT_EQ(row[3], "<none>");
  EXPECT_EQ(row[4], "443/TCP");
}

TEST_F(BuiltinKindsTest, ServicePortsAreRequiredAndNamedWhenSeveral) {
  auto none = call("POST", "/api/v1/namespaces/default/services", service("none", json::array()));
  EXPECT_EQ(none.body["message"], "Service \"none\" is invalid: spec.ports: Required value");
  auto unnamed = call("POST", "/api/v1/namespaces/default/services", service("two", {{{"port", 80}}, {{"port", 443}}}));
  EXPECT_EQ(unnamed.body["message"],
            "Service \"two\" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value]");
  auto zero = call("POST", "/api/v1/namespaces/default/services", service("zero", {{{"port", 70000}}}));
  EXPECT_EQ(zero.body["message"],
            "Service \"zero\" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive");
}

TEST_F(BuiltinKindsTest, SecretStringDataIsEncodedAndTypedSecretsNeedTheirKeys) {
  json secret = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "s"}, {"namespace", "default"}}},
                 {"stringData", {{"password", "hunter2"}}}};
  auto created = call("POST", "/api/v1/namespaces/default/secrets", secret);
  ASSERT_EQ(created.status, 201);
  EXPECT_EQ(created.body["data"]["password"], "aHVudGVyMg==");
  EXPECT_FALSE(created.body.contains("stringData"));
  EXPECT_EQ(created.body["type"], "Opaque");

  json tls = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "t"}, {"namespace", "default"}}},
              {"type", "kubernetes.io/tls"}, {"data", {{"tls.crt", "eA=="}}}};
  auto missing = call("POST", "/api/v1/namespaces/default/secrets", tls);
  EXPECT_EQ(missing.body["message"], "Secret \"t\" is invalid: data[tls.key]: Required value");

  json frozen = secret;
  frozen["metadata"]["name"] = "frozen";
  frozen["immutable"] = true;
  auto stored = call("POST", "/api/v1/namespaces/default/secrets", frozen);
  ASSERT_EQ(stored.status, 201);
  json edit = stored.body;
  edit["data"]["password"] = "eA==";
  EXPECT_EQ(call("PUT", "/api/v1/namespaces/default/secrets/frozen", edit).body["message"],
            "Secret \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set");

  EXPECT_EQ(column_names("/api/v1/namespaces/default/secrets"), (std::vector<std::string>{"Name", "Type", "Data", "Age"}));
  EXPECT_EQ(first_row("/api/v1/namespaces/default/secrets")[2], 1);
}

TEST_F(BuiltinKindsTest, ConfigMapKeysAreConfigKeysAndImmutableMeansImmutable) {
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}, {"namespace", "default"}}},
             {"data", {{"bad key", "x"}}}};
  auto bad = call("POST", "/api/v1/namespaces/default/configmaps", cm);
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(bad.body["details"]["causes"][0]["field"], "data[bad key]");
  cm["data"] = {{"config.yaml", "a: 1"}};
  cm["immutable"] = true;
  auto created = call("POST", "/api/v1/namespaces/default/configmaps", cm);
  ASSERT_EQ(created.status, 201);
  json unfreeze = created.body;
  unfreeze["immutable"] = false;
  EXPECT_EQ(call("PUT", "/api/v1/namespaces/default/configmaps/c", unfreeze).body["message"],
            "ConfigMap \"c\" is invalid: immutable: Forbidden: field is immutable when `immutable` is set");
  EXPECT_EQ(column_names("/api/v1/namespaces/default/configmaps"), (std::vector<std::string>{"Name", "Data", "Age"}));
  EXPECT_EQ(first_row("/api/v1/namespaces/default/configmaps")[1], 1);
}

TEST_F(BuiltinKindsTest, ServiceAccountsAreStoredAndListed) {
  json sa = {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "op"}, {"namespace", "default"}}}};
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/serviceaccounts", sa).status, 201);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/serviceaccounts/op").body["metadata"]["name"], "op");
  EXPECT_EQ(column_names("/api/v1/namespaces/default/serviceaccounts"), (std::vector<std::string>{"Name", "Secrets", "Age"}));
  sa["metadata"]["namespace"] = "ghost";
  EXPECT_EQ(call("POST", "/api/v1/namespaces/ghost/serviceaccounts", sa).status, 404);
}

TEST_F(BuiltinKindsTest, RbacRulesNeedVerbsAndBindingsKeepTheirRoleRef) {
  json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"}, {"metadata", {{"name", "r"}}},
               {"rules", {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", json::array()}}}}};
  EXPECT_EQ(call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", role).body["message"],
            "ClusterRole.rbac.authorization.k8s.io \"r\" is invalid: rules[0].verbs: Required value: verbs must contain at least one value");
  role["rules"][0]["verbs"] = {"get"};
  ASSERT_EQ(call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", role).status, 201);

  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"}, {"metadata", {{"name", "b"}}},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "r"}}},
                  {"subjects", {{{"kind", "ServiceAccount"}, {"name", "op"}}}}};
  EXPECT_EQ(call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding).body["message"],
            "ClusterRoleBinding.rbac.authorization.k8s.io \"b\" is invalid: subjects[0].namespace: Required value");
  binding["subjects"][0]["namespace"] = "default";
  auto created = call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding);
  ASSERT_EQ(created.status, 201);
  json moved = created.body;
  moved["roleRef"]["name"] = "other";
  EXPECT_EQ(call("PUT", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/b", moved).body["message"],
            "ClusterRoleBinding.rbac.authorization.k8s.io \"b\" is invalid: roleRef: Invalid value: "
            "{\"APIGroup\":\"rbac.authorization.k8s.io\",\"Kind\":\"ClusterRole\",\"Name\":\"other\"}: cannot change roleRef");

  json rolebinding = binding;
  rolebinding["kind"] = "RoleBinding";
  rolebinding["metadata"] = {{"name", "rb"}, {"namespace", "default"}};
  rolebinding["roleRef"]["kind"] = "Deployment";
  EXPECT_EQ(call("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", rolebinding).body["message"],
            "RoleBinding.rbac.authorization.k8s.io \"rb\" is invalid: roleRef.kind: Unsupported value: \"Deployment\": "
            "supported values: \"Role\", \"ClusterRole\"");
  EXPECT_EQ(column_names("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"),
            (std::vector<std::string>{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"}));
  const json row = first_row("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings");
  EXPECT_EQ(row[1], "ClusterRole/r");
  EXPECT_EQ(row[5], "default/op");
  EXPECT_EQ(column_names("/apis/rbac.authorization.k8s.io/v1/clusterroles"), (std::vector<std::string>{"Name", "Created At"}));
}

TEST_F(BuiltinKindsTest, MutatingWebhookIsDefaultedAndValidated) {
  json hook = {{"name", "pod-gate.gangplank.io"},
               {"admissionReviewVersions", {"v1"}},
               {"sideEffects", "None"},
               {"clientConfig", {{"service", {{"name", "op"}, {"namespace", "default"}, {"path", "/mutate-pods"}}}}},
               {"rules", {{{"apiGroups", {""}}, {"apiVersions", {"v1"}}, {"operations", {"CREATE"}}, {"resources", {"pods"}}}}},
               {"matchConditions", {{{"name", "gangplank"}, {"expression", "object.spec.schedulerName == 'gangplank'"}}}}};
  json config = {{"apiVersion", "admissionregistration.k8s.io/v1"}, {"kind", "MutatingWebhookConfiguration"},
                 {"metadata", {{"name", "gate"}}}, {"webhooks", {hook}}};
  const std::string path = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
  auto created = call("POST", path, config);
  ASSERT_EQ(created.status, 201) << created.body.dump();
  const json& stored = created.body["webhooks"][0];
  EXPECT_EQ(stored["failurePolicy"], "Fail");
  EXPECT_EQ(stored["matchPolicy"], "Equivalent");
  EXPECT_EQ(stored["timeoutSeconds"], 10);
  EXPECT_EQ(stored["reinvocationPolicy"], "Never");
  EXPECT_EQ(stored["namespaceSelector"], json::object());
  EXPECT_EQ(stored["rules"][0]["scope"], "*");
  EXPECT_EQ(stored["clientConfig"]["service"]["port"], 443);

  json bad = config;
  bad["metadata"]["name"] = "bad";
  bad["webhooks"][0]["name"] = "gangplank.io";
  bad["webhooks"][0].erase("sideEffects");
  bad["webhooks"][0]["admissionReviewVersions"] = {"v2"};
  bad["webhooks"][0]["failurePolicy"] = "Maybe";
  EXPECT_EQ(call("POST", path, bad).body["message"],
            "MutatingWebhookConfiguration.admissionregistration.k8s.io \"bad\" is invalid: ["
            "webhooks[0].name: Invalid value: \"gangplank.io\": should be a domain with at least three segments separated by dots, "
            "webhooks[0].failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", \"Ignore\", "
            "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, "
            "webhooks[0].admissionReviewVersions: Invalid value: [\"v2\"]: must include at least one of v1, v1beta1]");
  json both = config;
  both["metadata"]["name"] = "both";
  both["webhooks"][0]["clientConfig"]["url"] = "https://example.com/x";
  EXPECT_EQ(call("POST", path, both).body["details"]["causes"][0]["message"],
            "Required value: exactly one of url or service is required");
  EXPECT_EQ(column_names(path), (std::vector<std::string>{"Name", "Webhooks", "Age"}));
  EXPECT_EQ(first_row(path)[1], 1);
}

TEST_F(BuiltinKindsTest, DryRunCreateChecksEverythingAndStoresNothing) {
  const std::string path = "/apis/apps/v1/namespaces/default/deployments?dryRun=All";
  auto ok = call("POST", path, deployment("dry", {{"app", "d"}}, {{"app", "d"}}));
  EXPECT_EQ(ok.status, 201);
  EXPECT_EQ(ok.body["spec"]["strategy"]["type"], "RollingUpdate");  // defaulted like a real create
  EXPECT_EQ(call("GET", "/apis/apps/v1/namespaces/default/deployments/dry").status, 404);
  EXPECT_EQ(call("POST", path, deployment("dry", {{"app", "d"}}, {{"app", "e"}})).status, 422);

  json elsewhere = deployment("dry", {{"app", "d"}}, {{"app", "d"}});
  elsewhere["metadata"]["namespace"] = "ghost";
  auto missing_ns = call("POST", "/apis/apps/v1/namespaces/ghost/deployments?dryRun=All", elsewhere);
  EXPECT_EQ(missing_ns.status, 404);
  EXPECT_EQ(missing_ns.body["message"], "namespaces \"ghost\" not found");
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/services?dryRun=All", service("svc", {{{"port", 80}}})).body["spec"]["clusterIP"],
            "10.96.0.2");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/services/svc").status, 404);
}

}  // namespace
}  // namespace gangplank::apiserver_double::testing
