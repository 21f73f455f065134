#include "tests/real-cluster/support/built_image.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <sstream>

#include "tests/support/subprocess.h"

namespace gangplank::real_cluster {
namespace {

using gangplank::testing::run_process;

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

constexpr char kContainerPrefix[] = "gangplank-image-test-";

// Containers left by a test binary that was killed before it could remove its own (its pid is gone).
void RemoveLeftovers() {
  const auto listed = run_process({"/usr/bin/podman", "ps", "-a", "--filter", std::string("name=") + kContainerPrefix,
                                   "--format", "{{.Names}}"});
  std::istringstream names(listed.out);
  for (std::string name; names >> name;) {
    const std::string pid = name.substr(name.rfind('-') + 1);
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (::kill(std::stoi(pid), 0) == 0) continue;  // Another test binary's, still running.
    run_process({"/usr/bin/podman", "umount", name});
    run_process({"/usr/bin/podman", "rm", "-f", name});
  }
}

}  // namespace

std::string BuiltImage::UnavailableReason() {
  if (::geteuid() != 0) return "building and mounting an image needs root (debootstrap, podman mount, chroot)";
  if (::access("/usr/bin/apt-get", X_OK) != 0 && ::access("/usr/bin/podman", X_OK) != 0) {
    return "no Podman, and no apt-get to install it";
  }
  return "";
}

BuiltImage::BuiltImage() {
  const auto built = run_process({GANGPLANK_SOURCE_DIR "/scripts/build-image.sh", "--engine", "podman", "--build", GANGPLANK_BUILD_DIR},
                                 "", std::chrono::minutes(20));
  build_log_ = built.err;
  if (built.exit_code != 0) {
    error_ = "scripts/build-image.sh failed (exit " + std::to_string(built.exit_code) + "):\n" + built.out + built.err;
    return;
  }
  tag_ = Trimmed(built.out);  // The script's only line on stdout.
  RemoveLeftovers();
  container_ = kContainerPrefix + std::to_string(::getpid());
  const auto created = run_process({"/usr/bin/podman", "create", "--name", container_, tag_});
  if (created.exit_code != 0) {
    error_ = "podman create " + tag_ + " failed: " + created.err;
    container_.clear();
    return;
  }
  const auto mounted = run_process({"/usr/bin/podman", "mount", container_});
  if (mounted.exit_code != 0) {
    error_ = "podman mount " + container_ + " failed: " + mounted.err;
    return;
  }
  root_ = Trimmed(mounted.out);
}

BuiltImage::~BuiltImage() {
  if (container_.empty()) return;
  run_process({"/usr/bin/podman", "umount", container_});
  run_process({"/usr/bin/podman", "rm", "-f", container_});
}

}  // namespace gangplank::real_cluster
