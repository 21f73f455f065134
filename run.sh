#!/usr/bin/env bash
# gangplank developer entry point.
#   ./run.sh demo    install what is missing, build, replay the bundled openb trace, write out/report.html
#   ./run.sh test    install what is missing, build gangplank and its tests, run every test (ctest)
#   ./run.sh bench   install what is missing, build, run the benchmarks in bench/ and print their figures
#   ./run.sh image   build both binaries, then the container image from them (scripts/build-image.sh --help)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

BUILD_DIR="${GANGPLANK_BUILD_DIR:-build}"
JOBS="${GANGPLANK_JOBS:-2}"
# Tests at once: the real-cluster suites mostly wait on their control planes (load average about 1.5 on 2
# cores with two at once), so twice the build's jobs run side by side (GANGPLANK_TEST_JOBS): on 2 cores
# with warm caches the whole suite took 22 min three at a time and 18 min four at a time.
TEST_JOBS="${GANGPLANK_TEST_JOBS:-$((JOBS * 2))}"
FUZZ_BUILD_DIR="${GANGPLANK_FUZZ_BUILD_DIR:-build-fuzz}"
# Let ccache reuse objects across checkouts in other folders (CI clones afresh each run).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

# build ON|OFF [target...]: install what is missing, configure (the benchmark programs built or not: no
# test runs them), build the given targets (default: all).
build() {
  local bench="$1"
  shift
  ./scripts/install-deps.sh
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGANGPLANK_BUILD_BENCH="$bench" >/dev/null
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$BUILD_DIR" -j"$JOBS" "${targets[@]}"
}

# The extender's libFuzzer target needs clang with sanitizers: its own build directory, a short run in
# the test command, a long one in the benchmarks.
fuzz_smoke() {
  CC=clang CXX=clang++ cmake -S . -B "$FUZZ_BUILD_DIR" -DGANGPLANK_COMPONENTS="engine;net;cache;extender" \
    -DGANGPLANK_FUZZ=ON -DGANGPLANK_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$FUZZ_BUILD_DIR" -j"$JOBS" --target extender_fuzz
  ctest --test-dir "$FUZZ_BUILD_DIR" --output-on-failure -R '^extender_fuzz_smoke$'
}

# The real Kubernetes components of the real-cluster suites, the job controllers one of them runs and the
# autoscaler (Karpenter) another runs, built from source when Go is here (a no-op once built). Without Go those suites skip, saying why;
# GANGPLANK_REQUIRE_REAL_CLUSTER=1 (CI) makes that a failure.
kube_binaries() {
  local status=0
  ./scripts/build-kube-binaries.sh || status=$?
  [ "$status" != 0 ] || [ "${1:-}" = control-plane ] || ./tools/job-controllers/build.sh || status=$?
  [ "$status" != 0 ] || [ "${1:-}" = control-plane ] || ./tools/karpenter/build.sh || status=$?
  if [ "$status" = 3 ] && [ "${GANGPLANK_REQUIRE_REAL_CLUSTER:-0}" != 1 ]; then
    echo "run.sh: Go is not installed: the real-cluster suites (tests/real-cluster) will be skipped" >&2
  elif [ "$status" = 3 ]; then
    echo "run.sh: Go is not installed, and GANGPLANK_REQUIRE_REAL_CLUSTER=1 requires the real-cluster suites" >&2
    exit 3
  elif [ "$status" != 0 ]; then
    echo "run.sh: building the real Kubernetes components failed (exit $status)" >&2
    exit "$status"
  fi
}

case "${1:-}" in
  demo)
    build OFF gangplank-sim
    mkdir -p out
    "$BUILD_DIR/simulator/gangplank-sim" fragmentation --out out
    echo "report: $(pwd)/out/report.html"
    ;;
  test)
    build OFF
    kube_binaries
    fuzz_smoke
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$TEST_JOBS" --timeout 600
    ;;
  bench)
    [ "${2:-}" != cluster ] || { build OFF gangplank-extender gangplank-operator; kube_binaries control-plane; exec ./bench/cluster/run.sh "${@:3}"; }
    [ "${2:-}" != autoscaling ] || { build OFF gangplank-extender gangplank-operator; exec ./bench/autoscaling/run.sh "${@:3}"; }
    build ON
    ./bench/run "$BUILD_DIR"
    echo "=== extender_fuzz (1,000,000 executions)"
    ./bench/extender/run-fuzz.sh 1000000 "$FUZZ_BUILD_DIR"
    ;;
  image)
    build OFF gangplank-extender gangplank-operator
    exec ./scripts/build-image.sh --build "$BUILD_DIR" "${@:2}"
    ;;
  *)
    sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
