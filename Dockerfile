# gangplank: one image holding both binaries; the Helm chart runs /usr/local/bin/gangplank-extender or
# /usr/local/bin/gangplank-operator as each Deployment's command.
#
#   ./run.sh image                     builds it here (scripts/build-image.sh: the binaries the tests ran)
#   docker build -t ghcr.io/gangplank/gangplank:0.1.0 .   compiles the binaries from source (BuildKit)
#
# What is pinned, and how it stays buildable: the Debian base is pinned to a point release (DEBIAN, one
# for every stage, so the runtime's libraries are the very ones the binaries were compiled against), and
# apt packages are NOT pinned to versions. The Debian archive keeps only the newest version of a package
# in each suite, so a version pin breaks the build at the next security update; the packages of a point
# release plus its security updates do not vanish. To refresh: set DEBIAN to the newest point release
# (`docker pull debian:12`, then its /etc/debian_version), and where a registry is reachable pin its
# digest too: `--build-arg DEBIAN=debian:12.N@sha256:<digest of docker buildx imagetools inspect>`.
#
# Where the binaries come from (BINARIES): "source" (the default) compiles them in the image from the
# build context (the repository); "prebuilt" copies gangplank-extender and gangplank-operator from the
# context's prebuilt/ folder, as scripts/build-image.sh does with the binaries the tests just ran, so
# what ships is what was tested. Stages a build does not use are skipped (BuildKit, podman/buildah).
#
# The image holds no shell and no package manager: the binaries, the libraries they load (copied by
# ldd's list, so a library missing here fails the build), CA certificates, and the non-root user 65532.
# tests/helm/dockerfile_test.cc checks this file; tests/image/ builds it and starts every binary inside.

ARG DEBIAN=docker.io/library/debian:12.11
ARG BINARIES=source

FROM ${DEBIAN} AS source
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake make pkg-config \
      libcpprest-dev libboost-dev libssl-dev nlohmann-json3-dev libsimdjson-dev libyaml-cpp-dev \
      libspdlog-dev libfmt-dev prometheus-cpp-dev libcli11-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The flags the tests' build uses (RelWithDebInfo: -O2; GCC 12 at -O3 stops on a false -Wrestrict), stripped.
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DGANGPLANK_COMPONENTS="net;kube;promql;cache;extender;operator" \
      -DGANGPLANK_BUILD_TESTS=OFF -DGANGPLANK_BUILD_BENCH=OFF \
 && cmake --build /build -j"$(nproc)" --target gangplank-extender gangplank-operator \
 && mkdir /out \
 && strip -o /out/gangplank-extender /build/extender/gangplank-extender \
 && strip -o /out/gangplank-operator /build/operator/gangplank-operator

FROM scratch AS prebuilt
COPY prebuilt/gangplank-extender prebuilt/gangplank-operator /out/

FROM ${BINARIES} AS binaries

# The runtime's root file system, assembled on the same Debian as the build: the shared libraries'
# packages, then only the files the binaries need copied into /rootfs.
FROM ${DEBIAN} AS rootfs
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates \
      libcpprest2.10 libssl3 libyaml-cpp0.7 libspdlog1.10 libprometheus-cpp-core1.0 libsimdjson14 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=binaries /out/ /rootfs/usr/local/bin/
RUN set -eu; \
    for lib in $(ldd /rootfs/usr/local/bin/gangplank-extender /rootfs/usr/local/bin/gangplank-operator \
                 | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*[^:]$/ { print $1 }' | sort -u); do \
      cp --parents -L "$lib" /rootfs; \
    done; \
    mkdir -p /rootfs/etc/ssl/certs /rootfs/tmp; \
    cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/; \
    mkdir -p /rootfs/usr/lib/ssl; \
    ln -s /etc/ssl/certs /rootfs/usr/lib/ssl/certs; \
    ln -s /etc/ssl/certs/ca-certificates.crt /rootfs/usr/lib/ssl/cert.pem; \
    echo 'nonroot:x:65532:65532:nonroot:/nonexistent:/usr/sbin/nologin' >/rootfs/etc/passwd; \
    echo 'nonroot:x:65532:' >/rootfs/etc/group; \
    echo 'hosts: files dns' >/rootfs/etc/nsswitch.conf; \
    chmod 1777 /rootfs/tmp; \
    cp /etc/debian_version /rootfs/etc/debian_version

FROM scratch
LABEL org.opencontainers.image.title="gangplank" \
      org.opencontainers.image.description="Gang, topology and fair-share GPU scheduling for Kubernetes: extender and operator" \
      org.opencontainers.image.version="0.1.0"
COPY --from=rootfs /rootfs/ /
# The chart's podSecurityContext runs as 65532 too (the distroless "nonroot" user).
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/gangplank-operator"]
