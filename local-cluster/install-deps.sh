#!/usr/bin/env bash
# Install what slurm-autoresume needs on a fresh Debian bookworm machine:
# the Slurm 22.05 daemons (slurmdbd on MariaDB for accounting) and client, munge,
# the Slurm headers for the SPANK plugin, python3 (the toy trainer examples/sbatch/train.py),
# python3-torch (PyTorch 1.13 with torch.distributed on gloo, CPU only: the DDP example
# examples/sbatch/ddp_train.py and its end-to-end test), and the Java/C build tools.
# Idempotent: packages that are already installed are skipped, and `apt-get update` only runs
# when something is missing.
#
# Usage: install-deps.sh [--runtime-only] [--check] [--quiet] [--help]
#   --runtime-only  only what the local cluster needs to run (Slurm, munge, procps...)
#   --check         install nothing; list missing packages, exit 1 if any are missing
#   --quiet         print nothing when nothing is missing
set -euo pipefail

RUNTIME_PKGS=(slurmctld slurmd slurmdbd mariadb-server slurm-client munge libslurm-dev procps iproute2 nftables util-linux passwd coreutils perl-base python3 python3-torch)
# asciidoctor turns the generated man pages into roff; man-db renders them and logrotate reads the
# shipped logrotate file in the install test; prometheus brings promtool for the alert rules' tests;
# lintian checks the Debian packages (dist/src/test/deb-test.sh), rpm builds the EL ones
# (dist/src/test/rpm-test.sh); prometheus (the server) and
# prometheus-node-exporter (the sweep's textfile) run the dashboard's queries in DashboardLiveIT.
BUILD_PKGS=(openjdk-17-jdk-headless maven build-essential make gcc asciidoctor man-db logrotate prometheus lintian
    prometheus-node-exporter rpm)

usage() {
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
}

runtime_only=0
check_only=0
quiet=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --runtime-only) runtime_only=1 ;;
        --check) check_only=1 ;;
        --quiet|-q) quiet=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-deps.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

pkgs=("${RUNTIME_PKGS[@]}")
if [ "$runtime_only" -eq 0 ]; then
    pkgs+=("${BUILD_PKGS[@]}")
fi

is_installed() {
    local status
    status="$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)"
    [ "$status" = "install ok installed" ]
}

missing=()
for p in "${pkgs[@]}"; do
    if ! is_installed "$p"; then
        missing+=("$p")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    [ "$quiet" -eq 1 ] || echo "install-deps: all ${#pkgs[@]} packages already installed"
    exit 0
fi

if [ "$check_only" -eq 1 ]; then
    echo "install-deps: missing packages: ${missing[*]}" >&2
    exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: must run as root to install: ${missing[*]}" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing: ${missing[*]}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The tests start the prometheus server and node_exporter they need themselves, on ports of their
# own: where systemd runs, the packages' postinst started the system's copies, which nothing needs.
for service in prometheus.service prometheus-node-exporter.service; do
    if [ -d /run/systemd/system ] && systemctl is-active --quiet "$service" 2>/dev/null; then
        systemctl disable --now "$service" >/dev/null 2>&1 || true
    fi
done

still=()
for p in "${missing[@]}"; do
    is_installed "$p" || still+=("$p")
done
if [ "${#still[@]}" -ne 0 ]; then
    echo "install-deps: failed to install: ${still[*]}" >&2
    exit 1
fi
echo "install-deps: done"
