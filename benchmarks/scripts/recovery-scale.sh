#!/usr/bin/env bash
# Does recovery grow with the step? The same fault, side by side in one run, on a 2-node step and
# on an N-node step (default 60), each with one in-job spare, on the local cluster brought up with
# N+1 nodes (cpu-only: the in-job spare path is the same on both shapes, and lighter) and, optionally, PADDING extra DOWN nodes in its table:
#
#   1. the supervisor's CPU while the step runs and nothing fails (its probing), MEASURE_S seconds,
#      from /proc (utime+stime of the supervisor's JVM), as % of one core;
#   2. a node in the middle of the step is killed; the phases come from the job's timeline
#      (`autoresume history --json`) and the tasks' own clocks: detection, the old step ended
#      (diagnosis, mark, shrink), srun started again, every task running again.
#
# The toolkit's share is detection to srun started again, less nothing; Slurm's launch of the
# re-run is apart. Needs root and a built tree (mvn package); takes the cluster over (`up --fresh`)
# and leaves it up with 4 nodes. docs/benchmarks.md records what it printed. Usage:
#   benchmarks/scripts/recovery-scale.sh [--step-nodes N] [--padding P] [--measure-s S]
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"
step_nodes=60 padding=0 measure_s=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --step-nodes) step_nodes="$2"; shift ;;
    --padding) padding="$2"; shift ;;
    --measure-s) measure_s="$2"; shift ;;
    *) echo "usage: recovery-scale.sh [--step-nodes N] [--padding P] [--measure-s S]" >&2; exit 2 ;;
  esac
  shift
done
[[ "$(id -u)" -eq 0 ]] || { echo "recovery-scale.sh: run as root" >&2; exit 2; }
[[ "$step_nodes" =~ ^[0-9]+$ && "$step_nodes" -ge 3 && "$step_nodes" -le 127 && "$padding" =~ ^[0-9]+$ \
    && "$measure_s" =~ ^[1-9][0-9]*$ ]] || { echo "recovery-scale.sh: --step-nodes 3..127, numbers" >&2; exit 2; }
command -v jq >/dev/null || { echo "recovery-scale.sh: needs jq" >&2; exit 2; }

nodes=$(( step_nodes + 1 ))
# shellcheck source=benchmarks/scripts/lib/padded-cluster.sh
source "$repo/benchmarks/scripts/lib/padded-cluster.sh"
padded_cluster_up "$nodes" "$padding"

job=""
finish() {
  [[ -n "$job" ]] && scancel "$job" 2>/dev/null
  toolkit_cleanup
  "$cluster" up --fresh --nodes 4 >/dev/null 2>&1 || true
}
trap finish EXIT
trap 'exit 143' TERM INT

install_toolkit scale >/dev/null
start_agent "$AR_CLUSTER_DIR/scale-agent" --node node1 --xid-source off

now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
iso() { [[ -n "${1:-}" ]] || { echo "a timestamp is missing" >&2; return 1; }; date -d "$1" +%s.%N; }
row() { printf '%-56s %10s %10s\n' "$1" "$2" "$3"; }
jiffies() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run STEP: a job of STEP+1 nodes, the step on node[1-STEP]; sets the result variables r_*.
run() {
  local n="$1" victim out script history pid j0 j1 killed running
  victim="node$(( (n + 1) / 2 + 1 ))"
  script="#!/bin/bash
srun --auto-resume=1 -N$n --ntasks-per-node=1 bash -c 'echo \"TASK attempt=\$AUTO_RESUME_ATTEMPT node=\$SLURMD_NODENAME t=\$(date +%s.%N)\"
  if [ \"\$AUTO_RESUME_ATTEMPT\" = 1 ]; then sleep 600; fi'"
  job=$(runuser -u "$AR_TEST_USER" -- env PATH="$PATH" AUTORESUME_AGENT_SOCKET="$AR_CLUSTER_DIR/scale-agent/agent.sock" \
      sbatch --parsable --output="$AR_JOBS_DIR/scale-%j.out" --chdir="$AR_JOBS_DIR" -N$(( n + 1 )) \
      -w "node[1-$(( n + 1 ))]" --exclusive <<< "$script")
  out="$AR_JOBS_DIR/scale-$job.out"
  for _ in $(seq 1 1500); do
    [[ "$(grep -c "^TASK attempt=1 " "$out" 2>/dev/null || true)" -ge "$n" ]] && break
    sleep 0.2
  done
  [[ "$(grep -c "^TASK attempt=1 " "$out" 2>/dev/null || true)" -ge "$n" ]] || { echo "job $job's step did not start" >&2; exit 1; }
  pid=$(pgrep -u "$AR_TEST_USER" -f "supervise" | head -n 1)
  [[ -n "$pid" ]] || { echo "no supervisor process of job $job" >&2; exit 1; }
  sleep 5 # the watch under way
  j0=$(jiffies "$pid")
  sleep "$measure_s" # the window measured
  j1=$(jiffies "$pid")
  r_cpu=$(awk -v d="$(( j1 - j0 ))" -v hz="$(getconf CLK_TCK)" -v s="$measure_s" 'BEGIN { printf "%.1f", d / hz / s * 100 }')
  killed=$(now)
  "$cluster" kill-node "$victim" >/dev/null
  for _ in $(seq 1 900); do
    [[ "$(grep -c "^TASK attempt=2 " "$out" 2>/dev/null || true)" -ge "$n" ]] && break
    sleep 0.2
  done
  [[ "$(grep -c "^TASK attempt=2 " "$out" 2>/dev/null || true)" -ge "$n" ]] || { echo "job $job's step did not run again" >&2; exit 1; }
  running=$(grep "^TASK attempt=2 " "$out" | sed 's/.* t=//' | sort -n | tail -1)
  history=$(runuser -u "$AR_TEST_USER" -- env PATH="$PATH" autoresume history --json "$job")
  event() { jq -r --arg e "$1" --argjson a "$2" '[.[] | select(.event == $e and .attempt == $a)][0].at // ""' <<< "$history"; }
  r_detect=$(ms "$killed" "$(iso "$(event detection 1)")")
  r_ended=$(ms "$killed" "$(iso "$(event attempt-ended 1)")")
  r_launch=$(ms "$killed" "$(iso "$(event launch 2)")")
  r_running=$(ms "$killed" "$running")
  r_share=$(( r_launch - r_detect ))
  # The supervisor's own accounts of its parts (its stderr, in the job's output): the agent's
  # confirmation and mark, and the repair after srun exited; the rest of the way from detection
  # to the old step's end is Slurm's: ending the step on every node until srun exits.
  r_diag=$(sed -n 's/.*: diagnosis took \([0-9]*\) ms.*/\1/p' "$out" | head -n 1)
  r_after=$(sed -n 's/.*; \([0-9]*\) ms since the step ended.*/\1/p' "$out" | head -n 1)
  r_victim="$victim"
  scancel "$job"
  job=""
  "$cluster" revive-node "$victim" --fresh >/dev/null 2>&1 || true
  scontrol update nodename="$victim" state=resume 2>/dev/null || true
}

echo "Slurm $AR_SLURM_RELEASE, $nodes nodes + $padding padding nodes; $(nproc) cores; load $(cut -d' ' -f1 /proc/loadavg)"
run 2
small=("$r_cpu" "$r_detect" "$r_ended" "$r_launch" "$r_running" "$r_share" "$r_victim" "$r_diag" "$r_after")
run "$step_nodes"
large=("$r_cpu" "$r_detect" "$r_ended" "$r_launch" "$r_running" "$r_share" "$r_victim" "$r_diag" "$r_after")
row "(ms after the kill)" "2 nodes" "$step_nodes nodes"
row "node killed" "${small[6]}" "${large[6]}"
row "supervisor CPU while nothing fails (% of a core)" "${small[0]}" "${large[0]}"
row "detection (timeline)" "${small[1]}" "${large[1]}"
row "old step ended: diagnosis, mark, shrink" "${small[2]}" "${large[2]}"
row "srun started again (timeline launch 2)" "${small[3]}" "${large[3]}"
row "every task running again (their clocks)" "${small[4]}" "${large[4]}"
row "toolkit's share (detection -> srun started again)" "${small[5]}" "${large[5]}"
row "  of it: the agent's confirmation and mark (ms)" "${small[7]:--}" "${large[7]:--}"
row "  of it: Slurm ending the old step until srun exits (ms)" \
    "$(( small[2] - small[1] - ${small[7]:-0} ))" "$(( large[2] - large[1] - ${large[7]:-0} ))"
row "  of it: srun's exit to the re-run's srun (ms)" "${small[8]:--}" "${large[8]:--}"
echo "ratio of the toolkit's share, $step_nodes nodes to 2: $(awk -v a="${small[5]}" -v b="${large[5]}" 'BEGIN { printf "%.2f", b / a }')"
