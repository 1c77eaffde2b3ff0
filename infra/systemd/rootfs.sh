#!/usr/bin/env bash
# Makes the root filesystem the systemd units' test boots (test/e2e/systemd.e2e.spec.ts): a
# minimal Debian bookworm with systemd as its init, made by debootstrap from Debian's mirror
# and kept as a tarball (default .cache/systemd/bookworm-rootfs.tar, or $SHOAL_SYSTEMD_ROOTFS)
# that the test `docker import`s, so that the test itself reaches nothing off the machine.
# Needs root and apt (debootstrap is installed if missing). Quick when the tarball is there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

tarball="${SHOAL_SYSTEMD_ROOTFS:-$PWD/.cache/systemd/bookworm-rootfs.tar}"
mirror="${SHOAL_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
if [ -s "$tarball" ]; then
  echo "systemd rootfs already made: $tarball"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "making the systemd rootfs needs root (or sudo)" >&2; exit 2; }
  sudo="sudo"
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || { echo "no apt-get here: install debootstrap by hand" >&2; exit 2; }
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -qq debootstrap >/dev/null 2>&1 || { $sudo apt-get update -qq && $sudo apt-get install -y -qq debootstrap >/dev/null; }
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/shoal-systemd-rootfs.XXXXXX")"
trap '$sudo rm -rf "$work"' EXIT
# systemd and dbus (systemctl talks to systemd over it); minbase has useradd, install and bash.
$sudo debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log" >&2; echo "debootstrap failed" >&2; exit 3; }
mkdir -p "$(dirname "$tarball")"
$sudo tar -C "$work/root" -cf "$tarball.tmp" .
mv "$tarball.tmp" "$tarball"
echo "systemd rootfs made: $tarball ($(du -h "$tarball" | cut -f1))"
