# shellcheck shell=bash
# Sourced by slurm-rootfs.sh: a Debian root filesystem holding a newer Slurm (trixie's 24.11, or
# forky's 26.05), built with debootstrap from Debian's own packages and cached, and a way to run
# commands inside it.
#
# The host stays on bookworm (Slurm 22.05 for the main cluster); a second Slurm release cannot
# be installed beside the first from Debian's packages (same paths, same package names), so
# the newer release lives in its own tree and runs under chroot on the same loopback network.

# Which Slurm release the rootfs carries: ROOTFS_RELEASE (set by local-cluster.sh's use_release),
# else AR_SLURM_RELEASE; 24.11 when neither names a rootfs release (22.05 is the host's own).
# Each release is a Debian suite with a cache dir of its own.
ROOTFS_RELEASE="${ROOTFS_RELEASE:-${AR_SLURM_RELEASE:-24.11}}"
case "$ROOTFS_RELEASE" in
    22.05 | 24.11) ROOTFS_RELEASE=24.11 ROOTFS_SUITE=trixie ;;
    26.05) ROOTFS_SUITE=forky ;;
    *) die "no rootfs for Slurm release '$ROOTFS_RELEASE' (one of: 24.11, 26.05)" ;;
esac
ROOTFS_DIR="${AR_ROOTFS_DIR:-/var/cache/autoresume/rootfs-$ROOTFS_SUITE}"
ROOTFS_STAMP="$ROOTFS_DIR/.autoresume-rootfs.stamp"
# What the chroot holds: the daemons, slurmdbd and its database, the headers the SPANK plugin
# is built against (libslurm-dev ships slurm/spank.h), a compiler, Java for the supervisor, and
# python3 for the examples' training script (jobs of `local-cluster.sh up --slurm 24.11` run here)
# and patchelf for the clients that cluster runs on the host (lib/release.sh).
ROOTFS_PACKAGES=(slurm-wlm slurmdbd slurm-client munge libslurm-dev gcc make libc6-dev
    mariadb-server default-jre-headless procps iproute2 util-linux passwd python3 python3-torch patchelf)

if [[ ! "$ROOTFS_DIR" =~ ^/[A-Za-z0-9._/-]*[A-Za-z0-9._-]$ ]] || [[ "$ROOTFS_DIR" == *..* ]]; then
    die "AR_ROOTFS_DIR must be an absolute path of [A-Za-z0-9._/-] without '..' and not '/': '$ROOTFS_DIR'"
fi

# The mirror the host already uses, so the chroot needs nothing the host cannot reach.
rootfs_mirror() {
    local mirror=""
    if [ -r /etc/apt/sources.list.d/debian.sources ]; then
        mirror="$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)"
    fi
    if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
        mirror="$(awk '$1 == "deb" && $3 !~ /security/ { print $2; exit }' /etc/apt/sources.list)"
    fi
    [ -n "$mirror" ] || die "no Debian mirror found in the host's apt sources"
    [[ "$mirror" =~ ^https?://[A-Za-z0-9.:/_-]+$ ]] || die "unexpected mirror URI in apt sources: '$mirror'"
    printf '%s\n' "$mirror"
}

rootfs_ready() { [ -s "$ROOTFS_STAMP" ]; }

# Runs argv inside the rootfs, in a private mount namespace: /proc, /sys and /dev exist only
# for as long as something runs there, and nothing is left mounted on the host afterwards.
# Daemons started this way keep their namespace alive until they exit.
# ROOTFS_CGROUP=1 also binds the host's /sys/fs/cgroup: slurmd before 23.02 has no
# CgroupPlugin=disabled and will not start without a cgroup file system (a bookworm root).
rootfs_exec() {
    [ "$#" -gt 0 ] || die "rootfs_exec: no command"
    unshare --mount --propagation private -- /bin/sh -euc '
        root="$1"; cgroup="$2"; shift 2
        mount -t proc proc "$root/proc"
        mount -t sysfs sysfs "$root/sys"
        [ "$cgroup" != 1 ] || mount --rbind /sys/fs/cgroup "$root/sys/fs/cgroup"
        mount --rbind /dev "$root/dev"
        exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            HOME=/root LANG=C.UTF-8 "$@"' rootfs "$ROOTFS_DIR" "${ROOTFS_CGROUP:-0}" "$@"
}

# Records what was installed, so a later run (and a reader) sees the exact Slurm release.
rootfs_write_stamp() {
    local tmp="$ROOTFS_STAMP.tmp"
    {
        printf 'suite=%s\n' "$ROOTFS_SUITE"
        printf 'built=%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        rootfs_exec dpkg-query -W -f '${Package}=${Version}\n' "${ROOTFS_PACKAGES[@]}" slurmctld slurmd
    } > "$tmp"
    mv "$tmp" "$ROOTFS_STAMP"
}

# A cached rootfs built before a package joined ROOTFS_PACKAGES gets it, and a new stamp,
# instead of a rebuild from nothing.
rootfs_add_missing_packages() {
    local pkg
    local -a missing=()
    for pkg in "${ROOTFS_PACKAGES[@]}"; do
        # shellcheck disable=SC2016 # dpkg-query's format, not a shell expansion
        rootfs_exec dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    log "adding ${missing[*]} to the cached rootfs"
    rootfs_exec /bin/sh -euc '
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        nice -n 10 apt-get install -y -q --no-install-recommends "$@"
        apt-get clean' rootfs-add "${missing[@]}" >> "$ROOTFS_DIR.build.log" 2>&1 ||
        die "adding ${missing[*]} to the rootfs failed, see $ROOTFS_DIR.build.log"
    rootfs_write_stamp
}

# Builds the rootfs into a sibling directory and renames it into place only when complete,
# so an interrupted build never looks like a usable cache.
rootfs_build() {
    local force="$1"
    if rootfs_ready && [ "$force" -eq 0 ]; then
        rootfs_add_missing_packages
        log "rootfs cached at $ROOTFS_DIR"
        cat "$ROOTFS_STAMP"
        return 0
    fi
    command -v debootstrap >/dev/null 2>&1 || {
        log "installing debootstrap on the host"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
    }
    local mirror partial="$ROOTFS_DIR.partial" pkgs
    mirror="$(rootfs_mirror)"
    rm -rf -- "$partial"
    mkdir -p -- "$(dirname "$ROOTFS_DIR")"
    log "debootstrap $ROOTFS_SUITE into $partial from $mirror"
    # A suite newer than the host's debootstrap (forky on bookworm) is bootstrapped with sid's
    # script: testing and unstable are laid out alike.
    local script=()
    [ -e "/usr/share/debootstrap/scripts/$ROOTFS_SUITE" ] || script=(/usr/share/debootstrap/scripts/sid)
    nice -n 10 debootstrap --variant=minbase "$ROOTFS_SUITE" "$partial" "$mirror" "${script[@]}" > "$partial.log" 2>&1 ||
        die "debootstrap failed, see $partial.log"
    # Testing's Release file carries a Valid-Until a week ahead, and the mirror the host uses
    # may lag behind it: apt-get update then refuses the suite as expired. Stable has none.
    if [ "$ROOTFS_SUITE" != trixie ]; then
        printf 'Acquire::Check-Valid-Until "false";\n' > "$partial/etc/apt/apt.conf.d/99autoresume-valid-until"
    fi
    # Package scripts must not start services in the chroot: daemons start when a cluster asks.
    printf '#!/bin/sh\nexit 101\n' > "$partial/usr/sbin/policy-rc.d"
    chmod 0755 "$partial/usr/sbin/policy-rc.d"
    pkgs="${ROOTFS_PACKAGES[*]}"
    log "installing $pkgs"
    ROOTFS_DIR="$partial" rootfs_exec /bin/sh -euc '
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        nice -n 10 apt-get install -y -q --no-install-recommends $1
        apt-get clean' rootfs-install "$pkgs" >> "$partial.log" 2>&1 ||
        die "package install in the rootfs failed, see $partial.log"
    if [ -e "$ROOTFS_DIR" ]; then
        rm -rf -- "$ROOTFS_DIR.old"
        mv -- "$ROOTFS_DIR" "$ROOTFS_DIR.old"
    fi
    mv -- "$partial" "$ROOTFS_DIR"
    mv -- "$partial.log" "$ROOTFS_DIR.build.log"
    rm -rf -- "$ROOTFS_DIR.old"
    rootfs_write_stamp
    log "rootfs ready at $ROOTFS_DIR"
    cat "$ROOTFS_STAMP"
}
