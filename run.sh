#!/usr/bin/env bash
# gangplank developer entry point.
#   ./run.sh demo    install what is missing, build, replay the bundled openb trace, write out/report.html
#   ./run.sh test    install what is missing, build everything, run every test (ctest)
#   ./run.sh bench   install what is missing, build, run the benchmarks in bench/ and print their figures
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

BUILD_DIR="${GANGPLANK_BUILD_DIR:-build}"
JOBS="${GANGPLANK_JOBS:-2}"

build() {
  ./scripts/install-deps.sh
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$BUILD_DIR" -j"$JOBS"
}

case "${1:-}" in
  demo)
    build
    mkdir -p out
    "$BUILD_DIR/simulator/gangplank-sim" fragmentation --out out
    echo "report: $(pwd)/out/report.html"
    ;;
  test)
    build
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" --timeout 600
    ;;
  bench)
    build
    ./bench/run "$BUILD_DIR"
    ;;
  *)
    sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
