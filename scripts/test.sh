#!/usr/bin/env bash
# Runs the whole test suite on this machine, from nothing: installs what is missing (JDK,
# Maven, gcc, munge, Slurm 22.05 from Debian), brings up the local 4-node Slurm cluster
# (its default GPU shape; the e2e harness switches it to cpu-only once, for the job-expansion
# tests, which run last), builds everything and runs unit, C and end-to-end tests on Slurm
# 22.05 (the dist module's tests include the Debian packages on this machine and the EL ones);
# then builds (or reuses) the Debian trixie rootfs with Slurm 24.11 (local-cluster/slurm-rootfs.sh),
# tests the Debian packages on it (dist/src/test/deb-test.sh), brings the same cluster up on 24.11 in a cluster dir of its
# own and runs the end-to-end suite there again, less the classes e2e/pom.xml's slurm-24.11
# profile leaves out (it says which and why). Needs root (packages, daemons, and jobs
# submitted as the ordinary test user). The clusters are stopped afterwards unless
# AR_KEEP_CLUSTER=1.
#
# AR_TEST_RELEASES="22.05 24.11" (the default) names the releases to run on; "22.05" alone is
# the run before 24.11 joined, "24.11" alone only the second run. Extra arguments go to both
# Maven runs. Both runs happen even if the first fails; the exit status is the first failure's.
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"
releases="${AR_TEST_RELEASES:-22.05 24.11}"
# 24.11's cluster lives apart from 22.05's: slurmdbd 24.11 converts the accounting database it
# is given, and 22.05's slurmdbd could not read it back.
dir_2411="${AR_CLUSTER_DIR_2411:-/var/tmp/autoresume-cluster-2411}"

if [[ "$(id -u)" -ne 0 ]]; then
  echo "scripts/test.sh: run as root (it installs packages and starts Slurm daemons): sudo $0" >&2
  exit 2
fi
for release in $releases; do
  case "$release" in
    22.05|24.11) ;;
    *) echo "scripts/test.sh: AR_TEST_RELEASES holds '$release'; the suite runs on 22.05 and 24.11" >&2; exit 2 ;;
  esac
done
runs() { [[ " $releases " == *" $1 "* ]]; }

"$repo/local-cluster/install-deps.sh"

stop_clusters() {
  if [[ "${AR_KEEP_CLUSTER:-0}" != 1 ]]; then
    "$cluster" down || true
    if [[ -f "$dir_2411/cluster.env" ]]; then
      AR_CLUSTER_DIR="$dir_2411" "$cluster" down || true
    fi
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
# The cluster's node and partition lines are written by the toolkit's own
# `autoresume lifecycle apply` (dogfood), so the launcher is built before the cluster starts.
mvn -B -ntp -q package -DskipTests

status=0
if runs 22.05; then
  echo "==> Slurm 22.05: unit, C and end-to-end tests"
  "$cluster" up --fresh --nodes 4
  mvn -B -ntp verify "$@" || status=$?
  # Both clusters listen on the same ports.
  "$cluster" down
fi

if runs 24.11; then
  echo "==> Slurm 24.11: end-to-end tests"
  "$repo/local-cluster/slurm-rootfs.sh" build
  # The Debian packages on trixie with Slurm 24.11, as dist's verify did on this bookworm machine:
  # the plugin package built against 24.11, installed, upgraded under a protected job, purged.
  bash "$repo/dist/src/test/deb-test.sh" --tarball "$(ls "$repo"/dist/target/slurm-autoresume-*.tar.gz | head -n 1)" \
    --root "${AR_ROOTFS_DIR:-/var/cache/autoresume/rootfs-trixie}" || { rc=$?; [[ $status -ne 0 ]] || status=$rc; }
  AR_CLUSTER_DIR="$dir_2411" "$cluster" up --fresh --slurm 24.11 --nodes 4
  # The harness and the tests' own commands find 24.11's clients first on PATH, the cluster's
  # slurm.conf in SLURM_CONF and its directory in AR_CLUSTER_DIR (cluster.env says where);
  # AR_SLURM_RELEASE activates e2e/pom.xml's slurm-24.11 profile and keeps the release when the
  # harness reshapes the cluster. Unit and C tests ran with 22.05 above: -Dtest=none.
  (
    # Only these: the rest of cluster.env describes the running cluster, and exported it would
    # override the options of the `up` a test or the harness runs (shape, backup controller).
    export AR_CLUSTER_DIR="$dir_2411" AR_SLURM_RELEASE=24.11
    SLURM_CONF="$(sed -n 's/^SLURM_CONF=//p' "$dir_2411/cluster.env")"
    PATH="$(sed -n 's/^AR_SLURM_BIN=//p' "$dir_2411/cluster.env"):$PATH"
    export SLURM_CONF PATH
    mvn -B -ntp verify -pl e2e -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false "$@"
  ) || { rc=$?; [[ $status -ne 0 ]] || status=$rc; }
fi
exit "$status"
