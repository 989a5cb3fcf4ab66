# hpkeeper: build a static binary, run it as a non-root user with the
# database on a volume, and let it check its own health.
#
#   docker build --build-arg VERSION="$(git describe --tags --always --dirty)" \
#     --build-arg REVISION="$(git rev-parse HEAD)" -t hpkeeper .
#
# The build context has no .git (.dockerignore), so the binary cannot read
# its commit from it: VERSION and REVISION stamp it instead (hpkeeper
# version, /healthz, hpkeeper_build_info) and label the image. Left empty,
# it reports "(devel)".
FROM golang:1.26-bookworm AS build
ARG VERSION=""
ARG REVISION=""
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags="-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" \
    -o /out/hpkeeper ./cmd/hpkeeper

FROM debian:bookworm-slim
ARG VERSION=""
ARG REVISION=""
LABEL org.opencontainers.image.title="hpkeeper" \
      org.opencontainers.image.description="A Discord bot that runs gritty tabletop-RPG damage systems for a whole table" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
# A numeric user and group (10001), so that Kubernetes' runAsNonRoot can
# check it and a bind-mounted data directory can be given to it on the host:
# chown 10001:10001 /srv/hpkeeper-data.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 hpkeeper \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --shell /usr/sbin/nologin hpkeeper \
    && mkdir -p /data && chown 10001:10001 /data
COPY --from=build /out/hpkeeper /usr/local/bin/hpkeeper
COPY config.example.toml /etc/hpkeeper/config.example.toml
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
# The admin listener (/healthz, /metrics, /admin/backup) stays on the
# container's own loopback: the health check and `docker exec … hpkeeper
# backup` reach it; publish it only with HPKEEPER_ADMIN_LISTEN=0.0.0.0:9090
# and an HPKEEPER_ADMIN_TOKEN.
ENV HPKEEPER_DB=/data/hpkeeper.db HPKEEPER_LISTEN=0.0.0.0:8080 HPKEEPER_ADMIN_LISTEN=127.0.0.1:9090
EXPOSE 8080
# The binary checks itself (no curl in the image): GET /healthz on the admin
# listener, in gateway (run) and HTTP (serve) mode alike.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 CMD ["hpkeeper", "health", "--timeout", "4s"]
# docker stop sends SIGTERM and waits (give it -t 20): the process drains
# and closes the database cleanly.
ENTRYPOINT ["hpkeeper"]
CMD ["run"]
