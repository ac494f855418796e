#!/usr/bin/env bash
# Recovery timeline on the local cluster, side by side in one run:
#   1. auto-resume: a 2-node `srun --auto-resume=1` step on node[1-2], node4 the hot spare;
#      node2 is killed; every line the job prints is stamped as it arrives, and the phases
#      (detect, diagnose+mark, step ended, replace, expand, relaunch, running) are measured
#      from the kill;
#   2. native requeue: the same step with plain srun in a `--requeue` job; node2 is killed and
#      the time until the batch script runs again is measured (SlurmdTimeout, then requeue).
# Needs root, a built tree (mvn package) and the cluster up (local-cluster.sh up). Prints a
# table; docs/recovery-benchmark.md records what it printed. Usage:
#   benchmarks/scripts/recovery-timeline.sh [--skip-native]
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"
skip_native=0
[[ "${1:-}" == "--skip-native" ]] && skip_native=1
[[ "$(id -u)" -eq 0 ]] || { echo "recovery-timeline.sh: run as root" >&2; exit 2; }
# shellcheck disable=SC1091
source "${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}/cluster.env"
# shellcheck source=scripts/lib/toolkit-on-cluster.sh
source "$repo/scripts/lib/toolkit-on-cluster.sh"

now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
restore() {
  [[ -n "${job:-}" ]] && scancel "$job" 2>/dev/null
  "$cluster" revive-node node2 --fresh >/dev/null 2>&1 || true
  for node in node2 node3 node4; do
    [[ "$(sinfo -h -n "$node" -o %T)" =~ drain|down|fail ]] && scontrol update nodename="$node" state=resume
  done
  return 0
}
finish() { toolkit_cleanup; [[ -n "${stamper:-}" ]] && kill "$stamper" 2>/dev/null; restore; }
trap finish EXIT

install_toolkit bench >/dev/null
start_agent "$AR_CLUSTER_DIR/bench-agent"
slurmd_timeout=$(scontrol show config | awk -F= '/^SlurmdTimeout/ { gsub(/[^0-9]/, "", $2); print $2 }')

# Each task prints when it starts; attempt 1 then waits to be killed.
step='echo "TASK attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME t=$(date +%s.%N)"
      if [ "${AUTO_RESUME_ATTEMPT:-1}" = 1 ] && [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then sleep 600; fi'
wait_for() { # FILE PATTERN SECONDS
  for _ in $(seq 1 $(( $3 * 10 ))); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "timed out waiting for '$2' in $1" >&2; return 1
}

echo "== auto-resume (SlurmdTimeout=${slurmd_timeout}s; detection is the supervisor's own probe)"
script="$AR_JOBS_DIR/bench-auto.sh"
printf '#!/bin/bash\nsrun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c %q\n' "$step" > "$script"
chmod 0755 "$script"
job=$(runuser -u "$AR_TEST_USER" -- env PATH="$PATH" AUTORESUME_SPARE_NODES=node4 \
        AUTORESUME_AGENT_SOCKET="$AR_CLUSTER_DIR/bench-agent/agent.sock" \
        sbatch --parsable -N2 -w 'node[1-2]' --exclusive --output="$AR_JOBS_DIR/bench-%j.out" \
        --chdir="$AR_JOBS_DIR" "$script")
out="$AR_JOBS_DIR/bench-$job.out" stamped="$AR_JOBS_DIR/bench-$job.stamped"
# not created here: the job, as the test user, must create its own output file
tail -n +1 -F "$out" 2>/dev/null | while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done > "$stamped" &
stamper=$!
wait_for "$stamped" "TASK attempt=1 node=node2" 60
wait_for "$stamped" "TASK attempt=1 node=node1" 60
sleep 1 # the supervisor's probes are under way
killed=$(now)
"$cluster" kill-node node2 >/dev/null
wait_for "$stamped" "TASK attempt=2 node=node4" 120
wait_for "$stamped" "TASK attempt=2 node=node1" 30
at() { grep -m1 -- "$1" "$stamped" | cut -d' ' -f1; }
task_start() { grep -m1 -- "$1" "$stamped" | sed 's/.* t=//'; }
detect=$(at "probes in a row") marked=$(at "marked fail with reason") ended=$(at "node fault: ")
replaced=$(at "replacement obtained") expanded=$(at "job expansion complete") relaunch=$(at "retrying step, attempt 2")
running=$(printf '%s\n%s\n' "$(task_start "TASK attempt=2 node=node4")" "$(task_start "TASK attempt=2 node=node1")" | sort -n | tail -1)
printf '%-44s %8s\n' "phase (ms after the kill)" "ms"
printf '%-44s %8s\n' "detect: 3 probes missed in a row" "$(ms "$killed" "$detect")"
printf '%-44s %8s\n' "diagnose + mark (agent: fail, Action:Replace)" "$(ms "$killed" "$marked")"
printf '%-44s %8s\n' "old step ended (scancel, srun stopped)" "$(ms "$killed" "$ended")"
printf '%-44s %8s\n' "replacement obtained (hot spare)" "$(ms "$killed" "$replaced")"
printf '%-44s %8s\n' "job expansion complete" "$(ms "$killed" "$expanded")"
printf '%-44s %8s\n' "relaunch (srun started again)" "$(ms "$killed" "$relaunch")"
printf '%-44s %8s\n' "step running again (both tasks started)" "$(ms "$killed" "$running")"
printf '%-44s %8s\n' "toolkit's own share (detect -> relaunch)" "$(ms "$detect" "$relaunch")"
kill "$stamper" 2>/dev/null || true; stamper=""
scancel "$job" 2>/dev/null || true
auto_total=$(ms "$killed" "$running")
restore

[[ "$skip_native" -eq 1 ]] && exit 0
echo "== native requeue (plain srun, sbatch --requeue; Slurm notices at SlurmdTimeout=${slurmd_timeout}s)"
script="$AR_JOBS_DIR/bench-native.sh"
printf '#!/bin/bash\necho "SCRIPT restart=${SLURM_RESTART_COUNT:-0} t=$(date +%%s.%%N)"\nsrun -N2 --ntasks-per-node=1 bash -c %q\n' \
  "$step" > "$script"
chmod 0755 "$script"
# Placed on node[1-2] without -w (a requeued job keeps its -w list and would wait for the dead
# node forever): node3 and node4 are drained until the job runs.
scontrol update nodename='node[3-4]' state=drain reason=recovery-benchmark-placement
job=$(runuser -u "$AR_TEST_USER" -- sbatch --parsable -N2 --exclusive --requeue --open-mode=append \
        --output="$AR_JOBS_DIR/bench-%j.out" --chdir="$AR_JOBS_DIR" "$script")
out="$AR_JOBS_DIR/bench-$job.out"
wait_for "$out" "TASK attempt= node=node2" 60
scontrol update nodename='node[3-4]' state=resume
killed=$(now)
"$cluster" kill-node node2 >/dev/null
# The requeued job needs two nodes again: node2 is dead, so it runs on two of node[1,3-4].
wait_for "$out" "SCRIPT restart=1" $(( slurmd_timeout + 600 ))
restarted=$(grep -m1 "SCRIPT restart=1" "$out" | sed 's/.* t=//')
for _ in $(seq 1 1200); do [[ "$(grep -c "TASK attempt=" "$out")" -ge 4 ]] && break; sleep 0.1; done
running=$(grep "TASK attempt=" "$out" | tail -n 2 | sed 's/.* t=//' | sort -n | tail -1)
printf '%-44s %8s\n' "batch script restarted (requeue)" "$(ms "$killed" "$restarted")"
printf '%-44s %8s\n' "step running again" "$(ms "$killed" "$running")"
scancel "$job" 2>/dev/null || true
echo "== ratio native / auto-resume (node death -> step running): $(awk -v n="$(ms "$killed" "$running")" -v a="$auto_total" 'BEGIN { printf "%.0f", n / a }')x"
