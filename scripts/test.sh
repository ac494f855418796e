#!/usr/bin/env bash
# Runs the whole test suite on this machine, from nothing: installs what is missing (JDK,
# Maven, gcc, munge, Slurm 22.05 from Debian), brings up the local 4-node Slurm cluster
# (its default GPU shape; the e2e harness switches it to cpu-only once, for the job-expansion
# tests, which run last),
# builds everything and runs unit, C and end-to-end tests. Needs root (packages, daemons,
# and jobs submitted as the ordinary test user). The cluster is stopped afterwards unless
# AR_KEEP_CLUSTER=1.
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"

if [[ "$(id -u)" -ne 0 ]]; then
  echo "scripts/test.sh: run as root (it installs packages and starts Slurm daemons): sudo $0" >&2
  exit 2
fi

"$repo/local-cluster/install-deps.sh"

stop_cluster() {
  if [[ "${AR_KEEP_CLUSTER:-0}" != 1 ]]; then
    "$cluster" down || true
  fi
}
trap stop_cluster EXIT

cd "$repo"
# The cluster's node and partition lines are written by the toolkit's own
# `autoresume lifecycle apply` (dogfood), so the launcher is built before the cluster starts.
mvn -B -ntp -q package -DskipTests
"$cluster" up --fresh --nodes 4
mvn -B -ntp verify "$@"
