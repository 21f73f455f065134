// The shared fixture of the kubectl fidelity suites: a started double, a kubeconfig for it in a per-test
// directory, and helpers that run the real kubectl (from .tools/bin) and check how it ended.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver-double/api_server_double.h"
#include "tests/apiserver-double/support/subprocess.h"

namespace gangplank::apiserver_double::testing {

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
    server_.start();
    dir_ = std::filesystem::temp_directory_path() / ("gangplank-kubectl-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "kubeconfig") << server_.kubeconfig_yaml();
  }
  void TearDown() override {
    server_.stop();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::vector<std::string> argv(const std::vector<std::string>& args) const {
    std::vector<std::string> full = {GANGPLANK_KUBECTL, "--kubeconfig", (dir_ / "kubeconfig").string(), "--cache-dir",
                                     (dir_ / "cache").string()};
    full.insert(full.end(), args.begin(), args.end());
    return full;
  }
  ProcessResult kubectl(const std::vector<std::string>& args, const std::string& stdin_text = "") {
    return run_process(argv(args), stdin_text, std::chrono::seconds(30));
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
  // Applies a CRD manifest and waits for nothing: the double serves it at once.
  void apply_crd_file(const std::string& path) { ASSERT_NE(ok({"apply", "-f", path}).find("created"), std::string::npos); }
  // One of the project's CRDs (crds/<file>).
  void apply_project_crd(const std::string& file) { apply_crd_file(std::string(GANGPLANK_CRD_DIR) + "/" + file); }
  void put_node(const std::string& name) {
    server_.put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}},
                 {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
  }
  void put_running_pod(const std::string& name, const std::string& node) {
    server_.put({{"apiVersion", "v1"}, {"kind", "Pod"},
                 {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "trainer"}}}}},
                 {"spec", {{"nodeName", node}, {"containers", {{{"name", "main"}, {"image", "busybox"}}}}}},
                 {"status", {{"phase", "Running"}}}});
  }

  ApiServerDouble server_;
  std::filesystem::path dir_;
};

}  // namespace gangplank::apiserver_double::testing
