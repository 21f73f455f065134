#include "tests/helm/support/kubectl_on_double.h"

#include <unistd.h>

#include <fstream>

namespace gangplank::helm_testing {

namespace fs = std::filesystem;

KubectlOnDouble::KubectlOnDouble(const std::string& name, apiserver_double::DoubleOptions options) : api_(options) {
  api_.Start();
  dir_ = fs::temp_directory_path() / ("gangplank-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir_);
  fs::create_directories(dir_);
  std::ofstream(kubeconfig()) << api_.KubeconfigYaml();
}

KubectlOnDouble::~KubectlOnDouble() {
  api_.Stop();
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

std::string KubectlOnDouble::unavailable_reason() {
  if (::access(GANGPLANK_KUBECTL, X_OK) != 0) {
    return std::string("kubectl not found at ") + GANGPLANK_KUBECTL + " (scripts/install-kube-tools.sh installs it)";
  }
  return "";
}

gangplank::testing::ProcessResult KubectlOnDouble::kubectl(const std::vector<std::string>& args, const std::string& stdin_text) {
  std::vector<std::string> argv = {GANGPLANK_KUBECTL, "--kubeconfig", kubeconfig().string(), "--cache-dir", (dir_ / "cache").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return gangplank::testing::run_process(argv, stdin_text, std::chrono::seconds(120));
}

}  // namespace gangplank::helm_testing
