# Sourced by the scripts that build or fetch pinned Go modules (scripts/build-kube-binaries.sh,
# tools/peers/*/build.sh, tests/guides/crds/install.sh): finding the Go that is here, and stamping a
# Kubernetes command with its version.

# require_go <who> <what cannot be done without it>: puts the Go of /usr/local/go on PATH when none is
# there, exits 3 (callers skip or fail on that code) saying so when there is none at all, and never lets
# the go command fetch another toolchain: the pins are built with the Go that is here.
require_go() {
  if ! command -v go >/dev/null 2>&1; then
    [ -x /usr/local/go/bin/go ] && PATH="/usr/local/go/bin:$PATH"
  fi
  if ! command -v go >/dev/null 2>&1; then
    echo "$1: Go is not installed; $2" >&2
    exit 3
  fi
  export GOTOOLCHAIN=local
}

# kube_version_ldflags <version, e.g. v1.35.4>: the -X flags that stamp a Kubernetes command (as
# hack/lib/version.sh does upstream). Unstamped it reports v0.0.0-master+$Format:%H$, which no chart's
# kubeVersion and no `kubectl version` accepts.
kube_version_ldflags() {
  local v="$1" major minor flags=""
  major="${v#v}"; major="${major%%.*}"
  minor="${v#v*.}"; minor="${minor%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  echo "$flags"
}
