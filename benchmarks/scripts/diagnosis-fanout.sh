#!/usr/bin/env bash
# The supervisor's diagnosis of a failed attempt over N step nodes, each node's
# agent running a round of its GPU checks when asked (its fresh-check port), within 3 s for 64
# nodes. In one JVM: N real liveness and fresh-check listeners on loopback, a round of ROUND_MS,
# one faulty node confirmed and marked; the supervisor's real NodeVerdicts asks them all.
# Prints each run and the median (DiagnosisFanout's javadoc says what is and is not modelled).
#
#   benchmarks/scripts/diagnosis-fanout.sh [NODES=64] [ROUND_MS=1000] [RUNS=5]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
jar="$here/benchmarks/target/benchmarks.jar"
[[ -f "$jar" ]] || { echo "build first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %T') UTC"
exec java -cp "$jar" org.slurmautoresume.supervisor.step.DiagnosisFanout "${1:-64}" "${2:-1000}" "${3:-5}"
