#!/usr/bin/env bash
# What a supervised step costs slurmctld while nothing fails, on a site with a large node table,
# counted by slurmctld itself (sdiag's RPCs and time of the job's user). Brings the local cluster
# up with PADDING extra nodes in slurm.conf (NodeName=pad[1-PADDING], State=DOWN, in no partition:
# the table of a large site, which a full node dump packs), then, in one run:
#
#   1. one full node dump as the user (`scontrol show node node1`, what a read of the step's
#      nodes costs: REQUEST_NODE_INFO and REQUEST_PARTITION_INFO), REPEAT times: its cost, and
#      what the earlier pace (a read every 3 s) would cost a minute;
#   2. a supervised STEP-node step, no agent on its nodes: RPCs and ms of slurmctld a minute, and
#      the error lines its nodes' slurmd and slurmctld logged meanwhile (the probes must add none);
#   3. the same step with an agent greeting on each of its nodes.
#
# Each job's start (submission to 15 s after its tasks run) is counted apart; then MINUTES minutes. Needs root and a
# built tree (mvn package); takes the cluster over (`up --fresh`) and leaves it up without the
# padding. docs/benchmarks.md records what it printed. Usage:
#   benchmarks/scripts/controller-cost.sh [--padding N] [--step-nodes N] [--minutes M] [--repeat R] [--no-agent-only]
# --no-agent-only leaves out the third part (a long quiet-log check of the first alone).
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"
padding=10000 step_nodes=4 minutes=3 repeat=20 with_agents=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --padding) padding="$2"; shift ;;
    --step-nodes) step_nodes="$2"; shift ;;
    --minutes) minutes="$2"; shift ;;
    --repeat) repeat="$2"; shift ;;
    --no-agent-only) with_agents=0 ;;
    *) echo "usage: controller-cost.sh [--padding N] [--step-nodes N] [--minutes M] [--repeat R] [--no-agent-only]" >&2; exit 2 ;;
  esac
  shift
done
[[ "$(id -u)" -eq 0 ]] || { echo "controller-cost.sh: run as root" >&2; exit 2; }
[[ "$padding" =~ ^[0-9]+$ && "$step_nodes" =~ ^[1-9][0-9]*$ && "$minutes" =~ ^[1-9][0-9]*$ \
    && "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "controller-cost.sh: numbers expected" >&2; exit 2; }

nodes=$(( step_nodes + 1 ))
# shellcheck source=benchmarks/scripts/lib/padded-cluster.sh
source "$repo/benchmarks/scripts/lib/padded-cluster.sh"
padded_cluster_up "$nodes" "$padding"

job=""
finish() {
  [[ -n "$job" ]] && scancel "$job" 2>/dev/null
  toolkit_cleanup
  "$cluster" up --fresh --cpu-only --nodes "$nodes" >/dev/null 2>&1 || true
}
trap finish EXIT
trap 'exit 143' TERM INT

install_toolkit cost >/dev/null
start_agent "$AR_CLUSTER_DIR/cost-agent" --node node1 --xid-source off

# COUNT TOTAL_US of the test user's line in sdiag's statistics by user.
user_rpcs() {
  sdiag | awk -v u="$AR_TEST_USER" '$1 == u { for (i = 2; i <= NF; i++) {
      if ($i ~ /^count:/) { sub(/count:/, "", $i); c = $i } if ($i ~ /^total_time:/) { sub(/total_time:/, "", $i); t = $i } }
    print c + 0, t + 0; found = 1 } END { if (!found) print 0, 0 }'
}
as_user() { runuser -u "$AR_TEST_USER" -- env PATH="$PATH" "$@"; }
row() { printf '%-60s %12s\n' "$1" "$2"; }

read -r c0 t0 < <(user_rpcs)
for _ in $(seq 1 "$repeat"); do as_user scontrol show node node1 >/dev/null; done
read -r c1 t1 < <(user_rpcs)
dump_ms=$(awk -v t="$(( t1 - t0 ))" -v r="$repeat" 'BEGIN { printf "%.2f", t / r / 1000 }')
dump_rpcs=$(awk -v c="$(( c1 - c0 ))" -v r="$repeat" 'BEGIN { printf "%.1f", c / r }')

# A step that runs MINUTES minutes and a bit, on node[2-(1+STEP)]; the batch host node1 is not in it.
step_job() { # AGENT_SOCKET
  local out="$AR_JOBS_DIR/cost-%j.out" script
  script="#!/bin/bash
srun --auto-resume=1 -N$step_nodes -w node[2-$nodes] --ntasks-per-node=1 bash -c 'touch \$SLURM_JOB_ID.up.\$SLURMD_NODENAME; sleep $(( minutes * 60 + 30 ))'"
  as_user env AUTORESUME_AGENT_SOCKET="$1" sbatch --parsable --output="$out" --chdir="$AR_JOBS_DIR" \
      -N"$nodes" -w "node[1-$nodes]" --exclusive <<< "$script"
}
# The log lines of node2..node(1+STEP)'s slurmd and of slurmctld, each file's size now: what
# they gain from here on is read by errors_since.
log_sizes() {
  local f
  for f in "$AR_CLUSTER_DIR"/log/slurmd-node*.log "$AR_CLUSTER_DIR"/log/slurmctld*.log; do
    [[ -f "$f" ]] && echo "$f $(stat -c %s "$f")"
  done
}
errors_since() { # SIZES (from log_sizes): the error lines the step's nodes' slurmd and slurmctld wrote since
  local f size n=0 i
  while read -r f size; do
    for i in $(seq 2 "$nodes") ctld; do
      if [[ "$f" == */slurmd-node$i.log || ( "$i" == ctld && "$f" == */slurmctld*.log ) ]]; then
        # Each line on stderr too: the count alone cannot tell the probes' from anything else.
        tail -c +$(( size + 1 )) "$f" | grep 'error:' | sed "s|^|${f##*/}: |" >&2 || true
        n=$(( n + $(tail -c +$(( size + 1 )) "$f" | grep -c 'error:' || true) ))
      fi
    done
  done <<<"$1"
  echo "$n"
}
measure() { # LABEL: runs a step; prints what its start cost, then its RPCs and ms a minute after
  local up c2 t2 c3 t3 c4 t4 sizes errors
  read -r c2 t2 < <(user_rpcs)
  job=$(step_job "$AR_CLUSTER_DIR/cost-agent/agent.sock")
  for _ in $(seq 1 600); do
    up=$(find "$AR_JOBS_DIR" -maxdepth 1 -name "$job.up.*" | wc -l)
    [[ "$up" -ge "$step_nodes" ]] && break
    sleep 0.2
  done
  [[ "$up" -ge "$step_nodes" ]] || { echo "the step of job $job did not start" >&2; exit 1; }
  sleep 15 # the supervisor's start: its lookup of the step and first greetings
  read -r c3 t3 < <(user_rpcs)
  sizes=$(log_sizes)
  sleep $(( minutes * 60 )) # the minutes measured
  read -r c4 t4 < <(user_rpcs)
  errors=$(errors_since "$sizes") # before the scancel, whose STEP ... CANCELLED line slurmstepd logs as an error
  [[ "$(squeue -h -j "$job" -o %T)" == RUNNING ]] || { echo "job $job ended early" >&2; exit 1; }
  scancel "$job"
  job=""
  row "$1: the job's start (sbatch, srun, supervisor): RPCs" "$(( c3 - c2 ))"
  row "$1: the job's start: ms of slurmctld" "$(awk -v t="$(( t3 - t2 ))" 'BEGIN { printf "%.1f", t / 1000 }')"
  row "$1: then RPCs a minute" "$(awk -v c="$(( c4 - c3 ))" -v m="$minutes" 'BEGIN { printf "%.1f", c / m }')"
  row "$1: then ms of slurmctld a minute" "$(awk -v t="$(( t4 - t3 ))" -v m="$minutes" 'BEGIN { printf "%.1f", t / m / 1000 }')"
  row "$1: error lines in the step's slurmd and slurmctld logs, those $minutes min" "$errors"
}

echo "slurmctld: Slurm $AR_SLURM_RELEASE, $nodes nodes + $padding padding nodes; $(nproc) cores; load $(cut -d' ' -f1 /proc/loadavg)"
row "one read of the nodes (scontrol show node): RPCs" "$dump_rpcs"
row "one read of the nodes: ms of slurmctld" "$dump_ms"
row "a read every 3 s (the earlier pace): ms a minute" "$(awk -v d="$dump_ms" 'BEGIN { printf "%.1f", d * 20 }')"
measure "$step_nodes-node step, no agent on its nodes"
[[ "$with_agents" -eq 1 ]] || exit 0
for i in $(seq 2 "$nodes"); do start_agent "$AR_CLUSTER_DIR/cost-agent-node$i" --node "node$i" --xid-source off; done
measure "$step_nodes-node step, each node's agent greets"
