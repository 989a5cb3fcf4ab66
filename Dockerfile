# hpkeeper: build a static binary, run it as a non-root user with the
# database on a volume, and let it check its own health.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/hpkeeper ./cmd/hpkeeper

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin hpkeeper \
    && mkdir -p /data && chown hpkeeper /data
COPY --from=build /out/hpkeeper /usr/local/bin/hpkeeper
COPY config.example.toml /etc/hpkeeper/config.example.toml
USER hpkeeper
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
ENTRYPOINT ["hpkeeper"]
CMD ["run"]
