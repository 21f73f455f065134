// gangplank's container image, built for a test binary by scripts/build-image.sh (the binaries of this
// build, on a Debian 12 base) and opened as a file system: a container made from it (never started:
// these machines cannot run containers) and mounted, so a test runs the image's binaries under chroot
// and scripts/real-cluster.sh --image-root runs the control plane's gangplank from it.
#pragma once

#include <string>

namespace gangplank::real_cluster {

class BuiltImage {
 public:
  // Builds (a no-op for the layers already built) and mounts; error() says what failed.
  BuiltImage();
  ~BuiltImage();  // Unmounts and removes the container; the image stays for the next run.
  BuiltImage(const BuiltImage&) = delete;
  BuiltImage& operator=(const BuiltImage&) = delete;

  // Why no image can be built here at all (no root, no Podman or Docker to be had), or "".
  static std::string UnavailableReason();

  const std::string& error() const { return error_; }
  const std::string& tag() const { return tag_; }
  const std::string& root() const { return root_; }  // The mounted container's root file system.
  const std::string& build_log() const { return build_log_; }  // build-image.sh's own lines (time, size).

 private:
  std::string tag_;
  std::string container_;
  std::string root_;
  std::string error_;
  std::string build_log_;
};

}  // namespace gangplank::real_cluster
