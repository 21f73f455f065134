// The chart with the real Helm 3 and Helm 4: `helm lint --strict` and `helm template` with the default
// values and every ci/ values file, values.schema.json refusing bad values with the field named, the
// cross-field checks' messages, and every documented switch toggled by some ci/ values file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/support/yaml_json.h"
#include "tests/helm/support/each_helm.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"

namespace gangplank::helm_testing {
namespace {

class ChartRenderTest : public EachHelm {
 protected:
  static std::vector<std::string> values_sets() {
    std::vector<std::string> sets = {""};  // the defaults
    for (const auto& f : ci_values_files()) sets.push_back(f);
    return sets;
  }
};

TEST_P(ChartRenderTest, LintStrictPassesWithDefaultsAndEveryCiValuesFile) {
  ASSERT_GE(ci_values_files().size(), 8u);
  for (const auto& values : values_sets()) {
    std::vector<std::string> args = {"lint", "--strict", chart_dir()};
    if (!values.empty()) args.insert(args.end(), {"--values", values});
    const ProcessResult r = tool().run(args);
    EXPECT_EQ(r.exit_code, 0) << values_name(values) << ":\n" << r.out << r.err;
    EXPECT_NE(r.out.find("0 chart(s) failed"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("[WARNING]"), std::string::npos) << values_name(values) << ":\n" << r.out;
    EXPECT_EQ(r.out.find("[ERROR]"), std::string::npos) << values_name(values) << ":\n" << r.out;
  }
}

TEST_P(ChartRenderTest, TemplateRendersWellFormedUniqueObjectsForEveryValuesFile) {
  for (const auto& values : values_sets()) {
    RenderOptions options;
    if (!values.empty()) options.values_files.push_back(values);
    const RenderedObjects objects(tool().render_ok(options));
    EXPECT_GE(objects.all().size(), 8u) << values_name(values);
    std::set<std::string> seen;
    for (const auto& o : objects.all()) {
      const std::string key = o.value("apiVersion", "") + "/" + o.value("kind", "") + "/" +
                              o.value("/metadata/namespace"_json_pointer, std::string()) + "/" +
                              o.value("/metadata/name"_json_pointer, std::string());
      EXPECT_FALSE(o.value("apiVersion", "").empty()) << key;
      EXPECT_FALSE(o.value("/metadata/name"_json_pointer, std::string()).empty()) << key;
      EXPECT_TRUE(seen.insert(key).second) << "rendered twice: " << key << " (" << values_name(values) << ")";
      EXPECT_EQ(o.value("/metadata/labels/app.kubernetes.io~1part-of"_json_pointer, std::string()), "gangplank") << key;
    }
  }
}

struct BadValue {
  std::string set;
  std::string helm3_line;  // the line Helm 3 (gojsonschema) prints
  std::string helm4_line;  // the line Helm 4 (santhosh-tekuri/jsonschema) prints
};

TEST_P(ChartRenderTest, SchemaRefusesBadValuesNamingTheField) {
  const std::vector<BadValue> cases = {
      {"extender.replicas=two", "- extender.replicas: Invalid type. Expected: integer, given: string",
       "- at '/extender/replicas': got string, want integer"},
      {"extender.mode=daemonset", "- extender.mode: extender.mode must be one of the following: \"service\", \"sidecar\"",
       "- at '/extender/mode': value must be one of 'service', 'sidecar'"},
      {"operator.webhook.failurePolicy=Retry",
       "- operator.webhook.failurePolicy: operator.webhook.failurePolicy must be one of the following: \"Fail\", \"Ignore\"",
       "- at '/operator/webhook/failurePolicy': value must be one of 'Fail', 'Ignore'"},
      {"extender.replica=3", "- extender: Additional property replica is not allowed",
       "- at '/extender': additional properties 'replica' not allowed"},
      {"extender.httpTimeout=5sec", "- extender.httpTimeout: Does not match pattern", "- at '/extender/httpTimeout': '5sec' does not match pattern"},
      {"extender.managedResources={gpu}", "- extender.managedResources.0: Does not match pattern",
       "- at '/extender/managedResources/0': 'gpu' does not match pattern"},
      {"operator.workers=0", "- operator.workers: Must be greater than or equal to 1", "- at '/operator/workers': minimum: got 0, want 1"},
      {"podSecurityContext.runAsNonRoot=false", "- podSecurityContext.runAsNonRoot: podSecurityContext.runAsNonRoot does not match: true",
       "- at '/podSecurityContext/runAsNonRoot': value must be true"},
      {"extender.port=70000", "- extender.port: Must be less than or equal to 65535", "- at '/extender/port': maximum: got 70,000, want 65,535"},
      {"extender.queues={team-a}", "- extender.queues.0: Does not match pattern", "- at '/extender/queues/0': 'team-a' does not match pattern"},
      {"schedulerName=Gang_Plank", "- schedulerName: Does not match pattern", "- at '/schedulerName': 'Gang_Plank' does not match pattern"},
      {"certificates.mode=vault", "- certificates.mode: certificates.mode must be one of the following: \"selfSigned\", \"certManager\"",
       "- at '/certificates/mode': value must be one of 'selfSigned', 'certManager'"},
      {"extender.resources.requests=null", "- extender.resources: requests is required", "- at '/extender/resources': missing property 'requests'"},
  };
  for (const auto& c : cases) {
    RenderOptions options;
    options.sets = {c.set};
    const ProcessResult r = tool().render(options);
    EXPECT_NE(r.exit_code, 0) << c.set << " was accepted";
    EXPECT_NE(r.err.find("values don't meet the specifications of the schema(s)"), std::string::npos) << c.set << ": " << r.err;
    const std::string& line = GetParam() == 3 ? c.helm3_line : c.helm4_line;
    EXPECT_NE(r.err.find(line), std::string::npos) << c.set << ": expected \"" << line << "\" in\n" << r.err;
  }
}

TEST_P(ChartRenderTest, CrossFieldChecksFailWithTheirMessage) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"operator.leaderElection.enabled=false"}, "operator.replicas > 1 needs operator.leaderElection.enabled=true"},
      {{"scheduler.leaderElection.enabled=false"}, "scheduler.replicas > 1 needs scheduler.leaderElection.enabled=true"},
      {{"extender.mode=sidecar", "scheduler.enabled=false"}, "extender.mode=sidecar runs the extender inside the chart's kube-scheduler"},
      {{"extender.filterVerb=", "extender.prioritizeVerb=", "extender.preemptVerb="},
       "extender: at least one of filterVerb, prioritizeVerb, preemptVerb, bindVerb must be set"},
      {{"extender.httpTimeout=2d"}, "Does not match pattern"},
  };
  for (const auto& [sets, message] : cases) {
    RenderOptions options;
    options.sets = sets;
    const ProcessResult r = tool().render(options);
    EXPECT_NE(r.exit_code, 0) << sets.front() << " was accepted";
    if (GetParam() == 4 && message == "Does not match pattern") continue;  // wording checked above
    EXPECT_NE(r.err.find(message), std::string::npos) << sets.front() << ":\n" << r.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Helm, ChartRenderTest, ::testing::Values(3, 4), EachHelmName);

// --- Option coverage, independent of the Helm version. ---

json load_yaml(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = gangplank::testing::ParseYamlDocuments(text.str());
  return docs.empty() ? json::object() : docs.front();
}

json load_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// The schema node describing `path` (a JSON pointer into the values), following $ref.
json schema_at(const json& schema, const json& root, const std::vector<std::string>& path) {
  json node = schema;
  for (const auto& key : path) {
    while (node.contains("$ref")) node = root["definitions"][node["$ref"].get<std::string>().substr(14)];
    if (!node.contains("properties") || !node["properties"].contains(key)) return json::object();
    node = node["properties"][key];
  }
  while (node.contains("$ref")) node = root["definitions"][node["$ref"].get<std::string>().substr(14)];
  return node;
}

void collect_switches(const json& values, const json& schema, std::vector<std::string>& path,
                      std::vector<std::pair<std::vector<std::string>, json>>& out) {
  for (const auto& [key, value] : values.items()) {
    path.push_back(key);
    if (value.is_object()) {
      collect_switches(value, schema, path, out);
    } else if (!schema_at(schema, schema, path).contains("const") &&
               (value.is_boolean() || schema_at(schema, schema, path).contains("enum"))) {
      out.push_back({path, value});  // a switch: a boolean, or a choice among named values
    }
    path.pop_back();
  }
}

TEST(ChartOptions, EveryDocumentedSwitchIsToggledByACiValuesFile) {
  const json defaults = load_yaml(chart_dir() + "/values.yaml");
  const json schema = load_json(chart_dir() + "/values.schema.json");
  std::vector<std::pair<std::vector<std::string>, json>> switches;
  std::vector<std::string> path;
  collect_switches(defaults, schema, path, switches);
  ASSERT_GE(switches.size(), 15u);
  std::vector<json> ci;
  for (const auto& f : ci_values_files()) ci.push_back(load_yaml(f));
  for (const auto& [where, default_value] : switches) {
    std::string name;
    json::json_pointer pointer;
    for (const auto& p : where) {
      name += (name.empty() ? "" : ".") + p;
      pointer /= p;
    }
    // Booleans and two-way choices (modes, failurePolicy) must take their other value somewhere; longer
    // lists (log levels, pull policies) at least one value besides the default.
    std::set<std::string> others;
    if (default_value.is_boolean()) {
      others.insert(default_value.get<bool>() ? "false" : "true");
    } else {
      const json entry = schema_at(schema, schema, where);
      for (const auto& v : entry["enum"]) {
        if (v != default_value) others.insert(v.dump());
      }
    }
    const bool every_value = others.size() == 1;
    std::set<std::string> set_by_ci;
    for (const auto& values : ci) {
      if (values.contains(pointer) && others.count(values[pointer].dump())) set_by_ci.insert(values[pointer].dump());
    }
    if (every_value) {
      EXPECT_EQ(set_by_ci, others) << name << ": no ci/ values file sets it to " << *others.begin();
    } else {
      EXPECT_FALSE(set_by_ci.empty()) << name << ": no ci/ values file sets it to anything but " << default_value.dump();
    }
  }
}

TEST(ChartOptions, EveryValueHasASchemaEntry) {
  const json defaults = load_yaml(chart_dir() + "/values.yaml");
  const json schema = load_json(chart_dir() + "/values.schema.json");
  std::function<void(const json&, std::vector<std::string>&)> walk = [&](const json& node, std::vector<std::string>& path) {
    for (const auto& [key, value] : node.items()) {
      path.push_back(key);
      const json entry = schema_at(schema, schema, path);
      std::string name;
      for (const auto& p : path) name += (name.empty() ? "" : ".") + p;
      EXPECT_FALSE(entry.empty()) << name << " is not described in values.schema.json";
      const bool free_form = entry.contains("type") && entry["type"] == "object" && !entry.contains("properties");
      if (value.is_object() && !free_form) walk(value, path);
      path.pop_back();
    }
  };
  std::vector<std::string> path;
  walk(defaults, path);
}

}  // namespace
}  // namespace gangplank::helm_testing
