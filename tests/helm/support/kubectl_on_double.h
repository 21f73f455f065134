// The real kubectl (.tools/bin) against a started API-server double, with its own kubeconfig and cache
// in a temporary folder: what the chart, manifests and examples tests apply their YAML with.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "apiserver-double/api_server_double.h"
#include "tests/support/subprocess.h"

namespace gangplank::helm_testing {

class KubectlOnDouble {
 public:
  // `name` tells this test's folder apart; the double starts at once.
  explicit KubectlOnDouble(const std::string& name, apiserver_double::DoubleOptions options = {});
  ~KubectlOnDouble();
  KubectlOnDouble(const KubectlOnDouble&) = delete;
  KubectlOnDouble& operator=(const KubectlOnDouble&) = delete;

  // Why kubectl cannot run ("" when it can).
  static std::string unavailable_reason();
  gangplank::testing::ProcessResult kubectl(const std::vector<std::string>& args, const std::string& stdin_text = "");
  apiserver_double::ApiServerDouble& api() { return api_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path kubeconfig() const { return dir_ / "kubeconfig"; }

 private:
  apiserver_double::ApiServerDouble api_;
  std::filesystem::path dir_;
};

}  // namespace gangplank::helm_testing
