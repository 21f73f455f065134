// Every object the chart renders, for the defaults and every ci/ values file, accepted by the real
// kubectl against the API-server double: a server-side dry run first, then a real apply, each object read
// back, and a second apply that changes nothing (what `helm upgrade` with the same values must see).
// cert-manager's and the Prometheus Operator's kinds come from minimal CRDs in tests/helm/testdata/crds.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <sstream>

#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/kubectl_on_double.h"
#include "tests/helm/support/rendered_objects.h"

namespace gangplank::helm_testing {
namespace {


class ChartOnDoubleTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string why = helm3().unavailable_reason();
    if (!why.empty()) FAIL() << why;
    ASSERT_EQ(KubectlOnDouble::unavailable_reason(), "");
    cluster_ = std::make_unique<KubectlOnDouble>("chart-double-" + values_name(GetParam()));
  }
  ProcessResult kubectl(std::vector<std::string> args, const std::string& stdin_text = "") { return cluster_->kubectl(args, stdin_text); }
  void kubectl_ok(std::vector<std::string> args, const std::string& stdin_text = "") {
    const ProcessResult r = kubectl(args, stdin_text);
    ASSERT_EQ(r.exit_code, 0) << "kubectl " << ::testing::PrintToString(args) << "\n" << r.out << r.err;
  }

  std::unique_ptr<KubectlOnDouble> cluster_;
};

TEST_P(ChartOnDoubleTest, EveryRenderedObjectIsAcceptedAppliedAndReadBack) {
  RenderOptions options;
  if (!GetParam().empty()) options.values_files.push_back(GetParam());
  const std::string rendered = helm3().render_ok(options);
  const RenderedObjects objects(rendered);
  ASSERT_FALSE(objects.all().empty());

  // What an installation finds in place: its namespace (helm install --create-namespace), any other
  // namespace the values name, the chart's CRDs (Helm installs crds/ first) and the CRDs of the
  // cert-manager and Prometheus Operator installations the options assume.
  std::set<std::string> namespaces = {"gangplank-system"};
  for (const auto& o : objects.all()) {
    const std::string ns = o.value("/metadata/namespace"_json_pointer, std::string());
    if (!ns.empty()) namespaces.insert(ns);
  }
  for (const auto& ns : namespaces) {
    if (!cluster_->api().Get("namespaces", "", ns)) kubectl_ok({"create", "namespace", ns});
  }
  kubectl_ok({"apply", "-f", chart_dir() + "/crds"});
  kubectl_ok({"apply", "-f", source_dir() + "/tests/helm/testdata/crds/cert-manager.crds.yaml", "-f",
              source_dir() + "/tests/helm/testdata/crds/prometheus-operator.crds.yaml"});

  const ProcessResult dry = kubectl({"apply", "--dry-run=server", "-f", "-"}, rendered);
  ASSERT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  std::size_t lines = 0;
  for (std::size_t at = dry.out.find("(server dry run)"); at != std::string::npos; at = dry.out.find("(server dry run)", at + 1)) ++lines;
  EXPECT_EQ(lines, objects.all().size()) << dry.out;
  EXPECT_TRUE(cluster_->api().List("deployments.apps", "gangplank-system").empty()) << "a dry run stored objects";

  const ProcessResult applied = kubectl({"apply", "-f", "-"}, rendered);
  ASSERT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_EQ(applied.err.find("Warning"), std::string::npos) << applied.err;
  for (const auto& o : objects.all()) {
    const std::string kind = o["kind"];
    const std::string name = o["metadata"]["name"];
    const std::string ns = o.value("/metadata/namespace"_json_pointer, std::string());
    std::vector<std::string> args = {"get", kind + "." + [&] {
                                       const std::string api = o["apiVersion"];
                                       const auto slash = api.find('/');
                                       return slash == std::string::npos ? std::string("") : api.substr(0, slash);
                                     }(),
                                     name, "-o", "name"};
    if (args[1].back() == '.') args[1].pop_back();
    if (!ns.empty()) args.insert(args.end(), {"--namespace", ns});
    const ProcessResult got = kubectl(args);
    EXPECT_EQ(got.exit_code, 0) << kind << "/" << name << ": " << got.err;
  }
  // A second apply leaves everything unchanged, except that kubectl always re-sends a
  // PodDisruptionBudget's selector (patchStrategy "replace" in policy/v1): its own doing, not the chart's.
  const ProcessResult again = kubectl({"apply", "-f", "-"}, rendered);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  std::stringstream reapplied(again.out);
  std::string line;
  while (std::getline(reapplied, line)) {
    if (line.rfind("poddisruptionbudget.policy/", 0) == 0) continue;
    EXPECT_NE(line.find(" unchanged"), std::string::npos) << "a second apply changed: " << line;
  }
}

std::vector<std::string> values_sets() {
  std::vector<std::string> sets = {""};
  for (const auto& f : ci_values_files()) sets.push_back(f);
  return sets;
}

INSTANTIATE_TEST_SUITE_P(Values, ChartOnDoubleTest, ::testing::ValuesIn(values_sets()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = values_name(info.param);
                           for (auto& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace gangplank::helm_testing
