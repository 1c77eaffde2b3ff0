#!/usr/bin/env bash
# Builds the base of Shoal's image offline: `docker import` of a rootfs made of this machine's
# Debian packages — the `node` binary on PATH (nodejs) with the shared libraries ldd names and
# the loader, Debian's static busybox for a shell (busybox-static), the CA bundle
# (ca-certificates) — and the user `node` (uid 1000) the components run as. No registry, no
# Dockerfile, no container run.
#   usage: base-image.sh <image name> [<node binary>]     (the engine: DOCKER_HOST; node: the one on PATH)
set -euo pipefail
image="$1"
node_bin="$(readlink -f "${2:-$(command -v node)}")"
root="$(mktemp -d "${TMPDIR:-/tmp}/shoal-base-rootfs.XXXXXX")"
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/usr/local/bin" "$root/tmp" "$root/etc/ssl/certs" "$root/home/node" "$root/root"
chmod 1777 "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"; done

cp "$node_bin" "$root/usr/local/bin/node"
# The shared libraries node loads, and the loader (ldd prints its path alone on a line).
for so in $(ldd "$node_bin" | grep -o '/[^ ]*' | sort -u); do
  mkdir -p "$root$(dirname "$so")"
  cp -L "$so" "$root$so"
done
# Node's own CA store is built in; the system bundle is for NODE_EXTRA_CA_CERTS and --use-openssl-ca.
if [ -r /etc/ssl/certs/ca-certificates.crt ]; then cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"; fi

printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/home/node:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n' >"$root/etc/group"
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
chown 1000:1000 "$root/home/node"

tar -C "$root" --numeric-owner -c . |
  docker import --change 'ENV PATH=/usr/local/bin:/bin' --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' - "$image" >/dev/null
