#!/usr/bin/env bash
# Builds a Kafka broker image offline: `docker import` of a rootfs made of this machine's JRE
# (headless parts only, with the shared libraries it loads), the Kafka jars infra/kafka/fetch.sh
# cached, and Debian's static busybox for a shell. No registry, no Dockerfile, no container run.
#   usage: kafka-image.sh <jar folder> <image name>     (the engine: DOCKER_HOST)
# About 4 s and 240 MB here (see docs/testing.md).
set -euo pipefail
lib="$1" image="$2"
java_bin="$(readlink -f "$(command -v java)")"
jre="$(dirname "$(dirname "$java_bin")")"
root="$(mktemp -d "${TMPDIR:-/tmp}/shoal-kafka-rootfs.XXXXXX")"
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/opt/kafka" "$root$jre"
chmod 1777 "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"; done

# The JRE, links resolved (Debian points conf/ and cacerts into /etc), without what a headless server never loads.
tar -C "$jre" -ch --exclude=./jmods --exclude=./docs --exclude=./include --exclude=./man --exclude=./lib/src.zip \
  --exclude=./lib/ct.sym --exclude=./lib/libawt_xawt.so --exclude=./lib/libatk-wrapper.so . | tar -C "$root$jre" -x
# The shared libraries java, libjvm and the JRE's headless libraries load, and the loader.
headless="$(ls "$jre"/lib/*.so | grep -v -E 'xawt|atk-wrapper|jsound|splashscreen|fontmanager|lcms|javajpeg|mlib_image|jawt|/libawt\.so|j2pcsc')"
# shellcheck disable=SC2086
for so in $(ldd "$jre/bin/java" "$jre/lib/server/libjvm.so" $headless | grep -o '/[^ ]*\.so[^ ]*' | grep -v "^$jre" | sort -u); do
  mkdir -p "$root$(dirname "$so")"
  cp -L "$so" "$root$so"
done
cp -r "$lib" "$root/opt/kafka/lib"

tar -C "$root" -c . | docker import --change "ENV PATH=/bin:$jre/bin" - "$image" >/dev/null
