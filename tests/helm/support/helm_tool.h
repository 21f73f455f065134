// The real Helm binaries the chart tests run (Helm 3 from .tools/bin, Helm 4 from .tools/helm4, both
// installed by scripts/install-kube-tools.sh), each in its own HOME so nothing outside the test changes.
#pragma once

#include <string>
#include <vector>

#include "tests/support/subprocess.h"

namespace gangplank::helm_testing {

using gangplank::testing::ProcessResult;

struct RenderOptions {
  std::vector<std::string> values_files;
  std::vector<std::string> sets;  // "key=value" for --set
  std::vector<std::string> json_sets;  // "key=<JSON>" for --set-json (an empty list, which --set cannot say)
  std::string release = "gangplank";
  std::string namespace_name = "gangplank-system";
  bool include_crds = false;
};

class HelmTool {
 public:
  HelmTool(std::string label, std::string path);

  const std::string& label() const { return label_; }  // "Helm 3", "Helm 4"
  const std::string& path() const { return path_; }
  // Why the binary cannot be used ("" when it can): missing, not executable, or `helm version` fails.
  std::string unavailable_reason() const;
  // Major version from `helm version --short` ("v3.17.3+g..." -> 3), 0 if unknown.
  int major_version() const;

  ProcessResult run(const std::vector<std::string>& args) const;
  // `helm template`; the arguments it was given, for messages.
  ProcessResult render(const RenderOptions& options) const;
  // `helm template` that must succeed: its stdout (an ADD_FAILURE with stderr otherwise).
  std::string render_ok(const RenderOptions& options) const;

 private:
  std::vector<std::string> template_args(const RenderOptions& options) const;
  std::string label_;
  std::string path_;
  std::string home_;
};

const HelmTool& helm3();
const HelmTool& helm4();

// Paths in the source tree.
std::string source_dir();
std::string chart_dir();
// helm/gangplank/ci/*-values.yaml, sorted: each toggles one documented option group.
std::vector<std::string> ci_values_files();
// "cert-manager" for ".../ci/cert-manager-values.yaml"; "default" for "".
std::string values_name(const std::string& values_file);
// A file's whole content ("" when it cannot be read).
std::string read_text_file(const std::string& path);

}  // namespace gangplank::helm_testing
