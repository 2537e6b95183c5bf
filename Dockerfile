# logq: a static binary on an empty base image, running as a non-root user.
#
#   docker build -t logq .
#   docker run -p 4000:4000 -e LOGQ_API_KEYS=change-me -v logq-data:/var/lib/logq logq
#
# Build arguments VERSION and BUILD_TIME end up in `logq version`
# (the build context has no .git, so the VCS revision comes from REVISION).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG REVISION=unknown
ARG BUILD_TIME=unknown
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION}+${REVISION} -X main.buildTime=${BUILD_TIME}" \
      -o /out/logq ./cmd/logq \
 && mkdir -p /out/data && chown 65532:65532 /out/data

FROM scratch
COPY --from=build /out/logq /logq
COPY --from=build --chown=65532:65532 /out/data /var/lib/logq
USER 65532:65532
# Events live in the volume: the write-ahead log and segment files
# (docs/storage.md). --memory-limit defaults to half the container's limit.
ENV LOGQ_ADDR=:4000 LOGQ_DATA_DIR=/var/lib/logq
VOLUME ["/var/lib/logq"]
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/logq", "healthcheck"]
ENTRYPOINT ["/logq"]
CMD ["serve"]
