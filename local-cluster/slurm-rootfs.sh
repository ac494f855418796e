#!/usr/bin/env bash
# slurm-rootfs.sh: Slurm 24.11 from Debian trixie (or 26.05 from Debian forky) in a cached root
# filesystem, beside the host's Slurm 22.05 cluster.
#
# A script of its own rather than a local-cluster.sh command: local-cluster.sh loads the 22.05
# cluster's settings (its ports, its state dir, SLURM_CONF) on start, and this tree must never
# reach that cluster. Nothing here reads or writes $AR_CLUSTER_DIR or /etc/slurm.
set -euo pipefail

PROG="slurm-rootfs"
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# lib/rootfs-cluster.sh copies spank-shim/ from here.
REPO_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"
export REPO_DIR

log() { printf '%s: %s\n' "$PROG" "$*"; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }
need_root() { [ "$(id -u)" -eq 0 ] || die "'$1' must run as root"; }

usage() {
    cat <<'USAGE'
Usage: slurm-rootfs.sh COMMAND [OPTIONS]

A Debian trixie root filesystem with Slurm 24.11 (slurm-wlm, slurmdbd, munge, libslurm-dev,
gcc, make, mariadb-server, default-jre-headless, python3, patchelf), built with debootstrap from
the mirror in the host's apt sources and cached in $AR_ROOTFS_DIR (default
/var/cache/autoresume/rootfs-trixie). With AR_SLURM_RELEASE=26.05, the same from Debian forky
with Slurm 26.05, in /var/cache/autoresume/rootfs-forky. All commands run as root.

Commands:
  build [--force]
        Build the rootfs unless a complete one is cached (--force rebuilds). The stamp file
        .autoresume-rootfs.stamp in it records the suite, the build time and every package's
        version. Idempotent: a second run installs only packages added to the list since
        (then writes a new stamp) and prints the stamp. `local-cluster.sh up --slurm 24.11`
        runs the test cluster on this rootfs.
  plugin
        Copy spank-shim/ into the rootfs, build it there against 24.11's slurm/spank.h with
        `make check` (its C tests run too) and install /usr/local/lib/slurm/auto_resume.so.
  up [--nodes N]
        Start a cluster inside the rootfs: ClusterName=autoresume2411, munged, slurmctld on
        port $AR_ROOTFS_SLURMCTLD_PORT (26817), one `slurmd -N nodeK` per node on
        $AR_ROOTFS_SLURMD_PORT_BASE+K-1 (27001...), no accounting, plugstack.conf listing
        auto_resume.so (built first if missing), partition debug with node[1-N] (default 2),
        the test user created in the rootfs with the host's uid. Waits until every node is idle.
        Config and state: /etc/slurm and /var/lib/autoresume2411 inside the rootfs.
  down
        Cancel the test user's jobs, stop the slurmds, slurmctld and munged this cluster's pid
        files name (only processes whose root is the rootfs) and wait for them to exit.
  exec COMMAND [ARG...]
        Run COMMAND inside the rootfs (chroot in a private mount namespace with /proc, /sys and
        /dev; the host's network, so loopback ports are shared with the host).
  help, --help, -h
        This text.

Environment:
  AR_SLURM_RELEASE  24.11 (default; 22.05 means the same here) or 26.05: which rootfs
  AR_ROOTFS_DIR   where the rootfs lives (default /var/cache/autoresume/rootfs-trixie, or
                  rootfs-forky for 26.05)
  AR_ROOTFS_SLURMCTLD_PORT, AR_ROOTFS_SLURMD_PORT_BASE   the cluster's ports (26817, 27001)
  AR_TEST_USER    the ordinary user jobs run as (default artest)
  AR_ROOTFS_PLUGIN_FROM   source (default: spank-shim built in the rootfs and listed in a
                  plugstack.conf of the cluster's own) or package (the distribution's plugstack.conf,
                  which includes plugstack.conf.d: what an installed slurm-autoresume-plugin put there)
  AR_ROOTFS_CLUSTER_NAME  the cluster's name (default autoresume2411)
USAGE
}

# shellcheck source=lib/rootfs.sh
source "$SCRIPT_DIR/lib/rootfs.sh"
# shellcheck source=lib/rootfs-cluster.sh
source "$SCRIPT_DIR/lib/rootfs-cluster.sh"

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
    need_rootfs exec
    rootfs_exec "$@"
}

need_rootfs() {
    need_root "$1"
    rootfs_ready || die "no rootfs at $ROOTFS_DIR: run 'slurm-rootfs.sh build' first"
}

cmd_plugin() {
    [ "$#" -eq 0 ] || die "plugin takes no arguments"
    need_rootfs plugin
    rootfs_build_plugin
}

cmd_up() {
    local count=2
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --nodes) count="${2:-}"; shift ;;
            --nodes=*) count="${1#*=}" ;;
            -h|--help) usage; exit 0 ;;
            *) die "up: unknown option '$1' (see --help)" ;;
        esac
        shift
    done
    [[ "$count" =~ ^[1-8]$ ]] || die "--nodes must be 1..8: '$count'"
    need_rootfs up
    rootfs_cluster_up "$count"
}

cmd_down() {
    [ "$#" -eq 0 ] || die "down takes no arguments"
    need_rootfs down
    rootfs_cluster_down
}

main() {
    local cmd="${1:-}"
    [ "$#" -eq 0 ] || shift
    case "$cmd" in
        build) cmd_build "$@" ;;
        plugin) cmd_plugin "$@" ;;
        up) cmd_up "$@" ;;
        down) cmd_down "$@" ;;
        exec) cmd_exec "$@" ;;
        help|-h|--help) usage ;;
        "") usage >&2; exit 2 ;;
        *) printf '%s: unknown command: %s\n\n' "$PROG" "$cmd" >&2; usage >&2; exit 2 ;;
    esac
}

main "$@"
