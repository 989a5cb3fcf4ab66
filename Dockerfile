# hpkeeper: build a static binary, run it as a non-root user with the
# database on a volume.
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
ENV HPKEEPER_DB=/data/hpkeeper.db HPKEEPER_LISTEN=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["hpkeeper"]
CMD ["run"]
