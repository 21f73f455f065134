# gangplank: one image holding both binaries; the Helm chart runs /usr/local/bin/gangplank-extender or
# /usr/local/bin/gangplank-operator as each Deployment's command.
#   docker build -t ghcr.io/gangplank/gangplank:0.1.0 .
# Stage 1 builds on Debian 12 with the project's own Debian packages; stage 2 is debian-slim with only
# the shared libraries the binaries link (tests/helm/dockerfile_test.cc checks both lists against the
# binaries built by CMake, and that the image runs as the chart's non-root user).

FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake make pkg-config \
      libcpprest-dev libboost-dev libssl-dev nlohmann-json3-dev libsimdjson-dev libyaml-cpp-dev \
      libspdlog-dev libfmt-dev prometheus-cpp-dev libcli11-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release \
      -DGANGPLANK_COMPONENTS="net;kube;cache;extender;operator" \
      -DGANGPLANK_BUILD_TESTS=OFF -DGANGPLANK_BUILD_BENCH=OFF \
 && cmake --build /build -j"$(nproc)" --target gangplank-extender gangplank-operator \
 && strip /build/extender/gangplank-extender /build/operator/gangplank-operator

FROM debian:12-slim
LABEL org.opencontainers.image.title="gangplank" \
      org.opencontainers.image.description="Gang, topology and fair-share GPU scheduling for Kubernetes: extender and operator" \
      org.opencontainers.image.version="0.1.0"
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates \
      libcpprest2.10 libssl3 libyaml-cpp0.7 libspdlog1.10 libprometheus-cpp-core1.0 libsimdjson14 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /build/extender/gangplank-extender /usr/local/bin/gangplank-extender
COPY --from=build /build/operator/gangplank-operator /usr/local/bin/gangplank-operator
# The chart's podSecurityContext runs as 65532 too (the distroless "nonroot" user); no shell is needed.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/gangplank-operator"]
