#!/usr/bin/env bash
# Builds gangplank's container image from the Dockerfile (./run.sh image).
#
#   scripts/build-image.sh [--tag T] [--build B] [--from-source] [--base IMAGE | --local-base]
#                          [--engine docker|podman]
#
# --tag          the image's name (default localhost/gangplank:<the project's version>)
# --build        the CMake build whose binaries go into the image (default build; the Dockerfile's
#                BINARIES=prebuilt): the binaries the tests ran, stripped of their debug symbols
# --from-source  compile the binaries inside the image instead (BINARIES=source; about 12 minutes on 2 cores)
# --base         the Debian 12 image every stage starts from (the Dockerfile's DEBIAN; default its own pin)
# --local-base   make that base here with debootstrap (Debian 12 minbase from the Debian archive, with the
#                official image's apt sources) instead of pulling it: for machines that reach Debian's
#                archive but no container registry. The default when the pinned base cannot be pulled.
# --engine       the builder (default: Docker when its daemon answers, with BuildKit; else Podman with
#                chroot isolation, which needs no daemon and builds where containers cannot be run).
#                Podman and debootstrap are installed from Debian's packages when missing.
#
# Prints the image's name on stdout, and its size and the build's time on stderr. Exit 3: no engine.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

version="$(sed -n 's/^project(gangplank VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
tag="localhost/gangplank:$version"
build="build"
binaries=prebuilt
base=""
local_base=0
engine_name=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --from-source) binaries=source; shift ;;
    --base) base="$2"; shift 2 ;;
    --local-base) local_base=1; shift ;;
    --engine) engine_name="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo pipefail/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-image: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
say() { echo "build-image: $*" >&2; }
began=$SECONDS
mkdir -p "$repo/out/image"

# The packages this script needs, from Debian, when missing.
need_packages() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} = 0 ] && return 0
  say "installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

[ -n "$engine_name" ] || { docker info >/dev/null 2>&1 && engine_name=docker || engine_name=podman; }
if [ "$engine_name" = docker ]; then
  engine=(docker)
  build_flags=()
  export DOCKER_BUILDKIT=1
elif [ "$engine_name" = podman ]; then
  command -v podman >/dev/null 2>&1 || need_packages podman || { say "no Docker daemon and no Podman"; exit 3; }
  engine=(podman)
  # chroot isolation runs the RUN steps without a container runtime (none can start containers here).
  build_flags=(--isolation chroot)
else
  say "--engine is docker or podman, not $engine_name"
  exit 2
fi

pinned="$(sed -n 's/^ARG DEBIAN=//p' Dockerfile)"
if [ -z "$base" ] && [ $local_base = 0 ]; then
  if "${engine[@]}" pull -q "$pinned" >/dev/null 2>&1; then
    base="$pinned"
  else
    say "cannot pull $pinned: making a Debian 12 base with debootstrap instead"
    local_base=1
  fi
fi

# A Debian 12 minbase root, imported as localhost/gangplank-debian:<its point release>; made once.
make_local_base() {
  need_packages debootstrap
  local dir="$repo/out/image/debian12"
  if [ ! -f "$dir/etc/debian_version" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    say "debootstrap --variant=minbase bookworm (about a minute)"
    debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian >"$repo/out/image/debootstrap.log" 2>&1 ||
      { say "debootstrap failed: $repo/out/image/debootstrap.log"; rm -rf "$dir"; exit 1; }
    # The official image's apt sources: the release, its updates and its security updates.
    rm -f "$dir/etc/apt/sources.list"
    cat >"$dir/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  fi
  base="localhost/gangplank-debian:$(cat "$dir/etc/debian_version")"
  if ! "${engine[@]}" image inspect "$base" >/dev/null 2>&1; then
    tar -C "$dir" -c . | "${engine[@]}" import - "$base" >/dev/null
  fi
}
[ $local_base = 0 ] || make_local_base

# The build context: the repository (from source), or a folder with the Dockerfile and the binaries.
if [ $binaries = prebuilt ]; then
  for b in extender/gangplank-extender operator/gangplank-operator; do
    [ -x "$build/$b" ] || { say "$build/$b is missing: build it first (./run.sh image does)"; exit 1; }
  done
  context="$repo/out/image/context"
  rm -rf "$context"
  mkdir -p "$context/prebuilt"
  cp Dockerfile "$context/"
  strip -o "$context/prebuilt/gangplank-extender" "$build/extender/gangplank-extender"
  strip -o "$context/prebuilt/gangplank-operator" "$build/operator/gangplank-operator"
else
  context="$repo"
fi

say "building $tag from $base (${binaries} binaries) with ${engine[0]}"
"${engine[@]}" build ${build_flags[@]+"${build_flags[@]}"} --build-arg "DEBIAN=$base" --build-arg "BINARIES=$binaries" \
  -t "$tag" -f "$context/Dockerfile" "$context" >"$repo/out/image/build.log" 2>&1 ||
  { tail -30 "$repo/out/image/build.log" >&2; say "the build failed: $repo/out/image/build.log"; exit 1; }
size="$("${engine[@]}" image inspect --format '{{.Size}}' "$tag")"
say "built $tag: $((size / 1000000)) MB ($size bytes) in $((SECONDS - began)) s"
echo "$tag"
