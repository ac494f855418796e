#!/usr/bin/env bash
# Runs the whole test suite on this machine, from nothing: installs what is missing (JDK,
# Maven, gcc, munge, Slurm 22.05 from Debian), brings up the local 4-node Slurm cluster
# (its default GPU shape; the e2e harness switches it to cpu-only once, for the job-expansion
# tests, which run last), builds everything and runs unit, C and end-to-end tests on Slurm
# 22.05 (the dist module's tests include the Debian packages on this machine and the EL ones);
# then, on Slurm 26.05: builds (or reuses) the Debian forky rootfs that carries it
# (local-cluster/slurm-rootfs.sh), tests the Debian packages on it (dist/src/test/deb-test.sh),
# brings the same cluster up on 26.05 in a cluster dir of its own and runs the end-to-end suite
# there again, less the classes e2e/pom.xml's profile for that release leaves out (it says which
# and why). Slurm 24.11 (the Debian trixie rootfs) runs the same way when named. Needs root
# (packages, daemons, and jobs submitted as the ordinary test user). The clusters are stopped
# afterwards unless AR_KEEP_CLUSTER=1.
#
# AR_TEST_RELEASES names the releases to run on, in the order given: "22.05 26.05" (the default,
# what CI runs: README.md says why), or any of 22.05, 24.11 and 26.05, e.g. "24.11", or
# "22.05 24.11 26.05". Extra arguments go to every Maven run. Every release runs even
# if an earlier one fails; the exit status is the first failure's.
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"
releases="${AR_TEST_RELEASES:-22.05 26.05}"
# Each newer release's cluster lives apart from 22.05's (and from each other's): a newer
# slurmdbd converts the accounting database it is given, and an older one could not read it back.
cluster_dir() {
  case "$1" in
    24.11) echo "${AR_CLUSTER_DIR_2411:-/var/tmp/autoresume-cluster-2411}" ;;
    26.05) echo "${AR_CLUSTER_DIR_2605:-/var/tmp/autoresume-cluster-2605}" ;;
  esac
}
# The rootfs that carries it (local-cluster/lib/rootfs.sh: a Debian suite per release).
rootfs_dir() {
  case "$1" in
    24.11) echo "${AR_ROOTFS_DIR:-/var/cache/autoresume/rootfs-trixie}" ;;
    26.05) echo "${AR_ROOTFS_DIR:-/var/cache/autoresume/rootfs-forky}" ;;
  esac
}

if [[ "$(id -u)" -ne 0 ]]; then
  echo "scripts/test.sh: run as root (it installs packages and starts Slurm daemons): sudo $0" >&2
  exit 2
fi
rootfs_releases=0
for release in $releases; do
  case "$release" in
    22.05) ;;
    24.11|26.05) rootfs_releases=$((rootfs_releases + 1)) ;;
    *) echo "scripts/test.sh: AR_TEST_RELEASES holds '$release'; the suite runs on 22.05, 24.11 and 26.05" >&2; exit 2 ;;
  esac
done
if [[ -n "${AR_ROOTFS_DIR:-}" && $rootfs_releases -gt 1 ]]; then
  echo "scripts/test.sh: AR_ROOTFS_DIR names one rootfs, and AR_TEST_RELEASES='$releases' needs one per release" >&2
  exit 2
fi

"$repo/local-cluster/install-deps.sh"

stop_clusters() {
  if [[ "${AR_KEEP_CLUSTER:-0}" != 1 ]]; then
    "$cluster" down || true
    for release in 24.11 26.05; do
      dir="$(cluster_dir "$release")"
      if [[ -f "$dir/cluster.env" ]]; then
        AR_CLUSTER_DIR="$dir" "$cluster" down || true
      fi
    done
  fi
}
started="$(date +%s)"
# Last in the log, where a CI log that keeps only its tail still shows it: why tests failed.
finish() {
  stop_clusters
  python3 "$repo/scripts/failure-digest.py" "$repo" "$started" || true
}
trap finish EXIT

cd "$repo"
# This script brings each cluster up: the e2e harness fails, not skips, a test that finds none.
export AR_E2E_REQUIRE_CLUSTER=1
# The cluster's node and partition lines are written by the toolkit's own
# `autoresume lifecycle apply` (dogfood), so the launcher is built before the cluster starts.
mvn -B -ntp -q package -DskipTests

status=0
failed() { [[ $status -ne 0 ]] || status=$1; }
# The clusters all listen on the same ports: each goes down before the next comes up (the last
# at exit, in stop_clusters).
previous=""
down_previous() {
  case "$previous" in
    "") ;;
    22.05) "$cluster" down ;;
    *) AR_CLUSTER_DIR="$(cluster_dir "$previous")" "$cluster" down ;;
  esac
}
for release in $releases; do
  down_previous
  previous="$release"
  release_started="$(date +%s)"
  if [[ "$release" == 22.05 ]]; then
    echo "==> Slurm 22.05: unit, C and end-to-end tests"
    "$cluster" up --fresh --nodes 4
    mvn -B -ntp verify "$@" || failed $?
  else
    echo "==> Slurm $release: the Debian packages and end-to-end tests"
    dir="$(cluster_dir "$release")"
    root="$(rootfs_dir "$release")"
    AR_SLURM_RELEASE="$release" AR_ROOTFS_DIR="$root" "$repo/local-cluster/slurm-rootfs.sh" build
    # deb-test runs its job as the test user, whom `local-cluster.sh up` creates; a run of a
    # newer release alone comes here before any `up` on a new machine.
    id -u "${AR_TEST_USER:-artest}" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "${AR_TEST_USER:-artest}"
    # The Debian packages on that rootfs, as dist's verify did on this bookworm machine: the
    # plugin package built against its Slurm, installed, upgraded under a protected job, purged.
    AR_SLURM_RELEASE="$release" bash "$repo/dist/src/test/deb-test.sh" \
      --tarball "$(ls "$repo"/dist/target/slurm-autoresume-*.tar.gz | head -n 1)" --root "$root" || failed $?
    AR_CLUSTER_DIR="$dir" AR_ROOTFS_DIR="$root" "$cluster" up --fresh --slurm "$release" --nodes 4
    # The harness and the tests' own commands find the release's clients first on PATH, the
    # cluster's slurm.conf in SLURM_CONF and its directory in AR_CLUSTER_DIR (cluster.env says
    # where); AR_SLURM_RELEASE activates e2e/pom.xml's profile for the release and keeps the
    # release when the harness reshapes the cluster. Unit and C tests ran with 22.05: -Dtest=none.
    (
      # Only these: the rest of cluster.env describes the running cluster, and exported it would
      # override the options of the `up` a test or the harness runs (shape, backup controller).
      export AR_CLUSTER_DIR="$dir" AR_SLURM_RELEASE="$release"
      SLURM_CONF="$(sed -n 's/^SLURM_CONF=//p' "$dir/cluster.env")"
      PATH="$(sed -n 's/^AR_SLURM_BIN=//p' "$dir/cluster.env"):$PATH"
      export SLURM_CONF PATH
      mvn -B -ntp verify -pl e2e -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false "$@"
    ) || failed $?
  fi
  echo "==> Slurm $release: done in $(( $(date +%s) - release_started )) s"
done
exit "$status"
