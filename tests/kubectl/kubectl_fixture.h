// The shared fixture of the kubectl suites: the real kube-apiserver of scripts/real-cluster.sh
// --no-gangplank (one per test binary), a namespace and a kubeconfig of the test's own in a per-test
// directory, and helpers that run the real kubectl (from .tools/bin), check how it ended and read objects
// back through it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"
#include "tests/support/shared_control_plane.h"

namespace gangplank::testing::kubectl {

using nlohmann::json;

// The smallest value an openAPIV3Schema accepts as far as its required fields, enums and lower bounds go
// (CEL rules aside): lets a suite create "some valid object" of any of the project's CRDs.
inline json minimal_value(const json& schema) {
  if (!schema.is_object()) return json::object();
  if (schema.contains("enum") && !schema["enum"].empty()) return schema["enum"][0];
  const std::string type = schema.value("type", "");
  if (type == "object") {
    json out = json::object();
    for (const auto& name : schema.value("required", json::array())) {
      const std::string key = name;
      if (schema.contains("properties") && schema["properties"].contains(key)) out[key] = minimal_value(schema["properties"][key]);
    }
    return out;
  }
  if (type == "array") {
    json out = json::array();
    for (int i = 0; i < schema.value("minItems", 0); ++i) out.push_back(minimal_value(schema.value("items", json::object())));
    return out;
  }
  if (type == "string") return std::string(static_cast<std::size_t>(std::max(1, schema.value("minLength", 1))), 'x');
  if (type == "integer" || type == "number") return schema.value("minimum", 0);
  if (type == "boolean") return false;
  return "x";  // int-or-string and untyped nodes
}

class KubectlFixture : public ::testing::Test {
 protected:

  void SetUp() override {
    ASSERT_EQ(::access(GANGPLANK_KUBECTL, X_OK), 0)
        << "kubectl not found at " << GANGPLANK_KUBECTL << "; run scripts/install-deps.sh (it calls scripts/install-kube-tools.sh)";
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '-');  // parameterized names hold a '/'
    dir_ = std::filesystem::temp_directory_path() / ("gangplank-kubectl-" + std::to_string(::getpid()) + "-" + test);
    std::filesystem::create_directories(dir_);
    set_up_real();
  }
  void TearDown() override {
    if (plane_ != nullptr) gangplank::testing::CleanUpRealTarget(*plane_, ns_, cluster_objects_);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // The namespace kubectl works in by default (its kubeconfig context's).
  const std::string& ns() const { return ns_; }

  std::vector<std::string> argv(const std::vector<std::string>& args) const {
    std::vector<std::string> full = {GANGPLANK_KUBECTL, "--kubeconfig", (dir_ / "kubeconfig").string(), "--cache-dir",
                                     (dir_ / "cache").string()};
    full.insert(full.end(), args.begin(), args.end());
    return full;
  }
  ProcessResult kubectl(const std::vector<std::string>& args, const std::string& stdin_text = "") {
    return run_process(argv(args), stdin_text, std::chrono::seconds(60));
  }
  // Runs kubectl and asserts success, returning stdout.
  std::string ok(const std::vector<std::string>& args, const std::string& stdin_text = "") {
    auto r = kubectl(args, stdin_text);
    EXPECT_EQ(r.exit_code, 0) << "kubectl " << ::testing::PrintToString(args) << "\nstdout: " << r.out << "\nstderr: " << r.err;
    return r.out;
  }
  // Runs kubectl and asserts that it fails, returning what it wrote to stderr (where its errors go).
  std::string rejected(const std::vector<std::string>& args, const std::string& stdin_text = "") {
    auto r = kubectl(args, stdin_text);
    EXPECT_NE(r.exit_code, 0) << "kubectl " << ::testing::PrintToString(args) << " succeeded\nstdout: " << r.out;
    return r.err;
  }
  // The object as the server returns it (kubectl get -o json), or nullopt when it does not exist: how
  // the suites look at state.
  std::optional<json> find(const std::string& resource, const std::string& name) {
    const auto r = kubectl({"get", resource, name, "-o", "json", "--ignore-not-found"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code != 0 || r.out.empty()) return std::nullopt;
    return json::parse(r.out);
  }
  // The items of a list (kubectl get -o json).
  json items(const std::string& resource) {
    const std::string out = ok({"get", resource, "-o", "json"});
    return out.empty() ? json::array() : json::parse(out).value("items", json::array());
  }
  // Applies a CRD manifest; a real API server serves it only once Established and in discovery.
  void apply_crd_file(const std::string& path) {
    const std::string out = ok({"apply", "-f", path});
    ASSERT_NE(out.find("created"), std::string::npos) << out;
    wait_crds_served(out);
  }
  void apply_crd_text(const std::string& text) {
    const std::string out = ok({"apply", "-f", "-"}, text);
    ASSERT_NE(out.find("created"), std::string::npos) << out;
    wait_crds_served(out);
  }
  // One of the project's CRDs (crds/<file>).
  void apply_project_crd(const std::string& file) { apply_crd_file(std::string(GANGPLANK_CRD_DIR) + "/" + file); }
  // A Ready node: KWOK keeps it Ready (the node lifecycle controller would taint a node nobody
  // heartbeats), and the test waits until the not-ready taint is lifted.
  void put_node(const std::string& name) {
    json node = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}},
                 {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
    node["metadata"]["annotations"] = {{"kwok.x-k8s.io/node", "fake"}};
    ok({"create", "-f", "-"}, node.dump());
    ASSERT_TRUE(gangplank::testing::WaitUntil([&] {
      const auto n = find("node", name);
      return n && gangplank::real_cluster::ReadyAndUntainted(*n);
    })) << find("node", name).value_or(json()).dump();
  }
  // A Running pod labelled app=trainer on `node` (a put_node one), run by KWOK.
  void put_running_pod(const std::string& name, const std::string& node) {
    json pod = {{"apiVersion", "v1"}, {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", ns_}, {"labels", {{"app", "trainer"}}}}},
                {"spec", {{"nodeName", node}, {"containers", {{{"name", "main"}, {"image", "busybox"}}}}}},
                {"status", {{"phase", "Running"}}}};
    ok({"create", "-f", "-"}, pod.dump());
    ASSERT_TRUE(gangplank::testing::WaitUntil([&] {
      const auto p = find("pod", name);
      return p && p->value("/status/phase"_json_pointer, std::string()) == "Running";
    }));
  }

  std::filesystem::path dir_;
  std::string ns_ = "default";
  // Cluster-scoped objects a test made besides CRDs and nodes ("clusterrole/reader").
  std::vector<std::string> cluster_objects_;

 private:
  // The admin kubeconfig with this test's namespace as the context's default.
  void set_up_real() {
    GANGPLANK_SET_UP_REAL_TARGET(plane_);
    ns_ = gangplank::testing::CreateTestNamespace(*plane_, "kubectl");
    ASSERT_NE(ns_, "") << "the test namespace did not come up";
    std::filesystem::copy_file(plane_->kubeconfig(), dir_ / "kubeconfig", std::filesystem::copy_options::overwrite_existing);
    ok({"config", "set-context", "--current", "--namespace", ns_});
  }
  // `out` is kubectl apply's "customresourcedefinition.apiextensions.k8s.io/<name> created" lines.
  void wait_crds_served(const std::string& out) {
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      const auto slash = line.find('/');
      if (slash == std::string::npos || line.rfind("customresourcedefinition", 0) != 0) continue;
      const std::string name = line.substr(slash + 1, line.find(' ', slash) - slash - 1);
      ok({"wait", "--for=condition=Established", "--timeout=60s", "crd/" + name});
      ASSERT_TRUE(gangplank::testing::WaitUntil([&] { return kubectl({"get", name}).exit_code == 0; }))
          << name << " is not served";
    }
  }

  real_cluster::ControlPlane* plane_ = nullptr;
};

}  // namespace gangplank::testing::kubectl
