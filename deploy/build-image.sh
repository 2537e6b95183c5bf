#!/usr/bin/env bash
# Builds the logq image without a registry (buildah, from Debian's packages):
# a static binary on an empty base, as the Dockerfile does, then runs it with
# podman and checks /health. Use the Dockerfile where a registry is reachable.
#
#   apt-get install buildah podman
#   deploy/build-image.sh [TAG]        # default logq:local
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-logq:local}
work=$(mktemp -d)
trap 'rm -rf "$work"; buildah rm logq-build >/dev/null 2>&1 || true' EXIT
mkdir -p "$work/data"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/logq" ./cmd/logq
ctr=$(buildah from --name logq-build scratch)
buildah copy "$ctr" "$work/logq" /logq >/dev/null
buildah copy --chown 65532:65532 "$ctr" "$work/data" /var/lib/logq >/dev/null
buildah config --user 65532:65532 --env LOGQ_ADDR=:4000 --env LOGQ_DATA_DIR=/var/lib/logq \
  --volume /var/lib/logq --port 4000 --entrypoint '["/logq"]' --cmd serve \
  --healthcheck 'CMD ["/logq", "healthcheck"]' "$ctr"
buildah commit --format docker "$ctr" "$tag" >/dev/null
echo "built $tag ($(podman image inspect "$tag" --format '{{.Size}}') bytes)"

# Run it on a loopback port and ask /health.
port=4799
podman rm -f logq-smoke >/dev/null 2>&1 || true
if ! podman run -d --name logq-smoke --network host -e LOGQ_API_KEYS=smoke \
     -e LOGQ_ADDR=127.0.0.1:$port "$tag" >/dev/null; then
  echo "the image was built, but this machine cannot run containers (see the error above)" >&2
  exit 3
fi
trap 'rm -rf "$work"; buildah rm logq-build >/dev/null 2>&1 || true; podman rm -f logq-smoke >/dev/null 2>&1 || true' EXIT
for _ in $(seq 50); do
  if curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
    echo "running: /health answers"; exit 0
  fi
  sleep 0.2
done
podman logs logq-smoke >&2
exit 1
