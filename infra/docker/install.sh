#!/usr/bin/env bash
# Installs what the tests' own Docker engine needs on a Debian machine: Debian's docker.io
# (dockerd, containerd, runc and a docker CLI) and busybox-static (the statically linked
# /bin/busybox the offline test images are made of); and zsh, which the tests of
# `shoal completion zsh` run the script in; and chromium, the browser the console's test drives
# (headless, through puppeteer-core); and docker-compose (1.29), which the compose file's test
# (test/e2e/compose.e2e.spec.ts) runs; and, through infra/systemd/rootfs.sh, the Debian root
# filesystem with systemd that the systemd units' test boots in a container
# (test/e2e/systemd.e2e.spec.ts). Needs root (or sudo) and apt.
# Idempotent and quick when all are there already: then it only checks them.
set -euo pipefail

installed() { # every tool the test engine runs, and a busybox that needs no shared library
  command -v dockerd >/dev/null 2>&1 && command -v containerd >/dev/null 2>&1 && command -v runc >/dev/null 2>&1 &&
    command -v docker >/dev/null 2>&1 && dpkg -s busybox-static >/dev/null 2>&1 && command -v zsh >/dev/null 2>&1 &&
    command -v chromium >/dev/null 2>&1 && command -v docker-compose >/dev/null 2>&1
}

bash "$(dirname "${BASH_SOURCE[0]}")/../systemd/rootfs.sh"

if installed; then
  echo "docker engine already installed: $(dockerd --version)"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "installing docker.io, busybox-static and zsh needs root (or sudo)" >&2; exit 2; }
  sudo="sudo"
fi
command -v apt-get >/dev/null 2>&1 || { echo "no apt-get here: install Docker's engine (dockerd, containerd, runc) and a static busybox by hand" >&2; exit 2; }

export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# With the recommended packages: apparmor among them, which dockerd needs on a kernel that enforces AppArmor.
$sudo apt-get install -y -qq docker.io busybox-static zsh chromium docker-compose >/dev/null
installed || { echo "apt-get finished but dockerd, containerd, runc, docker, busybox-static, zsh, chromium or docker-compose is still missing" >&2; exit 3; }
echo "docker engine installed: $(dockerd --version)"
