# gangplank: one image holding both binaries; the Helm chart runs /usr/local/bin/gangplank-extender or
# /usr/local/bin/gangplank-operator as each Deployment's command.
#   docker build -t ghcr.io/gangplank/gangplank:0.1.0 .
# Stage 1 builds on Debian 12 with the project's own Debian packages; stage 2 is debian-slim with only
# the shared libraries the binaries link (tests/helm/dockerfile_test.cc checks both lists against the
# binaries built by CMake, that every base and package is pinned, and that the image runs as the chart's
# non-root user).
#
# Pinned: both bases to the Debian 12 point release the binaries are built and tested on (12.11, as in
# the build machine's /etc/debian_version), every package to the exact version the Debian archive served
# for it when this was written (`apt-cache policy <package>`: bookworm 12.15, bookworm-updates and
# bookworm-security of 2026-11-25). The bases are pinned by tag only: this file was written without
# network access, so no registry digest could be looked up; add `@sha256:<digest>` of the 12.11 images
# when building where one can. Debian's archive serves only the newest version of a package in each
# suite: when one of these is superseded (a security update), apt-get install fails on that pin instead
# of installing something untested. Update the pin from `apt-cache policy` then.

FROM debian:12.11 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++=4:12.2.0-3 cmake=3.25.1-1 make=4.3-4.1 pkg-config=1.8.1-1 \
      libcpprest-dev=2.10.18-1+b1 libboost-dev=1.74.0.3 libssl-dev=3.0.22-1~deb12u2 \
      nlohmann-json3-dev=3.11.2-2 libsimdjson-dev=3.0.1-1 libyaml-cpp-dev=0.7.0+dfsg-8+b1 \
      libspdlog-dev=1:1.10.0+ds-0.4 libfmt-dev=9.1.0+ds1-2 prometheus-cpp-dev=1.0.1-1 \
      libcli11-dev=2.1.2+ds-1 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release \
      -DGANGPLANK_COMPONENTS="net;kube;promql;cache;extender;operator" \
      -DGANGPLANK_BUILD_TESTS=OFF -DGANGPLANK_BUILD_BENCH=OFF \
 && cmake --build /build -j"$(nproc)" --target gangplank-extender gangplank-operator \
 && strip /build/extender/gangplank-extender /build/operator/gangplank-operator

FROM debian:12.11-slim
LABEL org.opencontainers.image.title="gangplank" \
      org.opencontainers.image.description="Gang, topology and fair-share GPU scheduling for Kubernetes: extender and operator" \
      org.opencontainers.image.version="0.1.0"
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates=20250419~deb12u2 \
      libcpprest2.10=2.10.18-1+b1 libssl3=3.0.22-1~deb12u2 libyaml-cpp0.7=0.7.0+dfsg-8+b1 \
      libspdlog1.10=1:1.10.0+ds-0.4 libprometheus-cpp-core1.0=1.0.1-1 libsimdjson14=3.0.1-1 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /build/extender/gangplank-extender /usr/local/bin/gangplank-extender
COPY --from=build /build/operator/gangplank-operator /usr/local/bin/gangplank-operator
# The chart's podSecurityContext runs as 65532 too (the distroless "nonroot" user); no shell is needed.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/gangplank-operator"]
