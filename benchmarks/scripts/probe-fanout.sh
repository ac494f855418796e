#!/usr/bin/env bash
# The CPU the supervisor spends probing the nodes of a large step while nothing fails (target: a
# 1,024-node step's probing under 5% of one core), and the length of each probe round against the
# 1 s interval. Real greeters (the agents' LivenessListener, one per node on loopback) run in a
# second JVM; the supervisor's real SlurmdWatch and LivenessProber probe them at the production
# pace for WINDOW_S seconds per size, after WARMUP_S. Prints one line per size (ProbeFanout's
# javadoc says what is and is not modelled).
#
#   benchmarks/scripts/probe-fanout.sh [SIZES=64,256,1024] [WINDOW_S=30] [WARMUP_S=5]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
jar="$here/benchmarks/target/benchmarks.jar"
[[ -f "$jar" ]] || { echo "build first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %T') UTC"
exec java -cp "$jar" org.slurmautoresume.bench.ProbeFanout "${1:-64,256,1024}" "${2:-30}" "${3:-5}"
