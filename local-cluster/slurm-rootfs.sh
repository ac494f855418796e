#!/usr/bin/env bash
# slurm-rootfs.sh: Slurm 24.11 from Debian trixie in a cached root filesystem, beside the
# host's Slurm 22.05 cluster.
#
# A script of its own rather than a local-cluster.sh command: local-cluster.sh loads the 22.05
# cluster's settings (its ports, its state dir, SLURM_CONF) on start, and this tree must never
# reach that cluster. Nothing here reads or writes $AR_CLUSTER_DIR or /etc/slurm.
set -euo pipefail

PROG="slurm-rootfs"
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"

log() { printf '%s: %s\n' "$PROG" "$*"; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }
need_root() { [ "$(id -u)" -eq 0 ] || die "'$1' must run as root"; }

usage() {
    cat <<'USAGE'
Usage: slurm-rootfs.sh COMMAND [OPTIONS]

A Debian trixie root filesystem with Slurm 24.11 (slurm-wlm, slurmdbd, munge, libslurm-dev,
gcc, make, mariadb-server, default-jre-headless), built with debootstrap from the mirror in
the host's apt sources and cached in $AR_ROOTFS_DIR (default
/var/cache/autoresume/rootfs-trixie). All commands run as root.

Commands:
  build [--force]
        Build the rootfs unless a complete one is cached (--force rebuilds). The stamp file
        .autoresume-rootfs.stamp in it records the suite, the build time and every package's
        version. Idempotent: a second run prints the stamp and does nothing else.
  exec COMMAND [ARG...]
        Run COMMAND inside the rootfs (chroot in a private mount namespace with /proc, /sys and
        /dev; the host's network, so loopback ports are shared with the host).
  help, --help, -h
        This text.

Environment:
  AR_ROOTFS_DIR   where the rootfs lives (default /var/cache/autoresume/rootfs-trixie)
USAGE
}

# shellcheck source=lib/rootfs.sh
source "$SCRIPT_DIR/lib/rootfs.sh"

cmd_build() {
    local force=0
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --force) force=1 ;;
            -h|--help) usage; exit 0 ;;
            *) die "build: unknown option '$1' (see --help)" ;;
        esac
        shift
    done
    need_root build
    rootfs_build "$force"
}

cmd_exec() {
    [ "$#" -gt 0 ] || die "usage: exec COMMAND [ARG...]"
    need_root exec
    rootfs_ready || die "no rootfs at $ROOTFS_DIR: run 'slurm-rootfs.sh build' first"
    rootfs_exec "$@"
}

main() {
    local cmd="${1:-}"
    [ "$#" -eq 0 ] || shift
    case "$cmd" in
        build) cmd_build "$@" ;;
        exec) cmd_exec "$@" ;;
        help|-h|--help) usage ;;
        "") usage >&2; exit 2 ;;
        *) printf '%s: unknown command: %s\n\n' "$PROG" "$cmd" >&2; usage >&2; exit 2 ;;
    esac
}

main "$@"
