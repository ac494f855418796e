#!/usr/bin/env bash
# The fault matrix (docs/fault-matrix.md) in one run on the GPU-shaped local cluster: for each
# fault class, the end-to-end test that injects it on the real cluster (as the ordinary test
# user) prints one `fault-matrix:` line with the detection time and the time until the step
# runs again, both from the fault and both read from the job's own timeline; this script runs
# those tests and prints the table. Slurm's own handling of each class is in the document: it is
# minutes (SlurmdTimeout, the requeue delay) or never, and is measured by recovery-timeline.sh.
#
# Needs root, the build's dependencies in ~/.m2 (mvn -o), and no other user of the cluster.
# Usage: benchmarks/scripts/fault-matrix.sh
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
[[ "$(id -u)" -eq 0 ]] || { echo "fault-matrix.sh: run as root" >&2; exit 2; }
cd "$repo"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

mvn -B -ntp -o -q package -DskipTests >/dev/null
local-cluster/local-cluster.sh down >/dev/null 2>&1 || true
local-cluster/local-cluster.sh up --nodes 4 >/dev/null
tests="InJobSpareIT#theStepRunsAgainOnTheJobsOwnSpareAfterTheSecondStepNodeDies,GpuFaultRecoveryIT,FrozenNodeIT,HungSlurmdIT"
tests+=",LogRulesIT#aHeartbeatWithPhasesFindsAHungStepAndNotASlowCheckpoint"
CI=true mvn -B -ntp -o verify -pl e2e -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test="$tests" >"$out" 2>&1 || { tail -40 "$out"; echo "fault-matrix.sh: a test failed" >&2; exit 1; }

printf '%s\n' "| fault class | detected (ms after the fault) | step running again (ms after the fault) | detected by | outcome |"
printf '%s\n' "| --- | ---: | ---: | --- | --- |"
grep '^fault-matrix: ' "$out" | while read -r _ class detected running source outcome; do
  printf '| %s | %s | %s | %s | %s |\n' "${class#class=}" "${detected#detected_ms=}" "${running#running_again_ms=}" \
    "${source#source=}" "${outcome#outcome=}"
done
echo
echo "$(nproc) CPUs, $(date -u '+%F %T') UTC, Slurm $(sinfo -V | awk '{print $2}')"
