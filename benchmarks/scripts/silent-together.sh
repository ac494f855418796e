#!/usr/bin/env bash
# Nodes that go silent together (a leaf switch's): does detection wait for each in turn? Two
# built trees side by side in one run, on the same cluster: a supervised step on N nodes
# (`autoresume supervise -- srun`, no agents, so the watch probes slurmd), then K nodes of it
# cut off the network at once (`local-cluster.sh cut-network`: every packet dropped, so each
# probe waits for its timeout), and the time from the cut to the supervisor's detection, read
# from the job's own timeline. Each tree runs with one silent node and with K, in alternating
# order, ROUNDS times. Prints the medians in ms. One agent runs, on node1 (the batch host, where the
# supervisor asks it to mark nodes), from tree B; the other nodes have none, so the watch asks
# their slurmd, as on a site that runs agents on a few nodes only.
#
# Needs root and both trees built (mvn package); takes the cluster over (`up --fresh`, cpu-only,
# N+1 nodes) and leaves it up with 4 nodes. docs/benchmarks.md records what it printed. Usage:
#   benchmarks/scripts/silent-together.sh TREE_A TREE_B [--step-nodes N] [--silent K] [--rounds R]
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"
usage() { echo "usage: silent-together.sh TREE_A TREE_B [--step-nodes N] [--silent K] [--rounds R]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
tree_a="$1" tree_b="$2"
shift 2
step_nodes=8 silent=4 rounds=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --step-nodes) step_nodes="$2"; shift ;;
    --silent) silent="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    *) usage ;;
  esac
  shift
done
[[ "$(id -u)" -eq 0 ]] || { echo "silent-together.sh: run as root" >&2; exit 2; }
[[ "$step_nodes" =~ ^[0-9]+$ && "$silent" =~ ^[0-9]+$ && "$rounds" =~ ^[1-9][0-9]*$ \
    && "$silent" -ge 2 && "$step_nodes" -gt "$silent" && "$step_nodes" -le 60 ]] \
  || { echo "silent-together.sh: 2 <= K < N <= 60" >&2; exit 2; }
command -v jq >/dev/null || { echo "silent-together.sh: needs jq" >&2; exit 2; }

# shellcheck source=benchmarks/scripts/lib/padded-cluster.sh
source "$repo/benchmarks/scripts/lib/padded-cluster.sh"
padded_cluster_up "$(( step_nodes + 1 ))" 0

declare -A launcher
for side in a b; do
  tree="$tree_a"; [[ "$side" == b ]] && tree="$tree_b"
  [[ -x "$tree/cli/target/autoresume/bin/autoresume" ]] || { echo "build $tree first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
  dest="$AR_CLUSTER_DIR/silent-$side"
  rm -rf -- "$dest"
  cp -r "$tree/cli/target/autoresume" "$dest"
  chmod -R a+rX "$dest"
  "$dest/bin/autoresume" --dump-cds >/dev/null
  launcher[$side]="$dest/bin/autoresume"
done

agent_dir="$AR_CLUSTER_DIR/silent-agent"
install -d -m 0755 "$agent_dir"
"${launcher[b]}" agent --node node1 --xid-source off --socket "$agent_dir/agent.sock" \
    --audit-log "$agent_dir/audit.log" >"$agent_dir/agent.log" 2>&1 &
agent_pid=$!
disown "$agent_pid"
for _ in $(seq 1 120); do [[ -S "$agent_dir/agent.sock" ]] && break; sleep 0.25; done
[[ -S "$agent_dir/agent.sock" ]] || { echo "the agent did not start: $agent_dir/agent.log" >&2; exit 1; }

job="" cut=()
finish() {
  [[ -n "$job" ]] && scancel "$job" 2>/dev/null
  kill "$agent_pid" 2>/dev/null || true
  for node in "${cut[@]}"; do "$cluster" restore-network "$node" >/dev/null 2>&1 || true; done
  rm -rf -- "$AR_CLUSTER_DIR/silent-a" "$AR_CLUSTER_DIR/silent-b"
  "$cluster" up --fresh --nodes 4 >/dev/null 2>&1 || true
}
trap finish EXIT
trap 'exit 143' TERM INT

now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }

# detect SIDE K: sets r_ms, the ms from cutting K nodes off to the detection in the job's timeline.
detect() {
  local side="$1" k="$2" out history at t0 i
  job=$(runuser -u "$AR_TEST_USER" -- env AUTORESUME_AGENT_SOCKET="$agent_dir/agent.sock" sbatch --parsable --no-requeue --output="$AR_JOBS_DIR/silent-%j.out" \
      --chdir="$AR_JOBS_DIR" -N"$step_nodes" -w "node[1-$step_nodes]" --exclusive <<EOF
#!/bin/bash
'${launcher[$side]}' supervise -- srun -N$step_nodes --ntasks-per-node=1 bash -c 'echo TASK; sleep 600'
EOF
)
  out="$AR_JOBS_DIR/silent-$job.out"
  for _ in $(seq 1 600); do
    [[ "$(grep -c '^TASK' "$out" 2>/dev/null || true)" -ge "$step_nodes" ]] && break
    sleep 0.2
  done
  [[ "$(grep -c '^TASK' "$out" 2>/dev/null || true)" -ge "$step_nodes" ]] \
    || { echo "job $job's step did not start:" >&2; squeue -j "$job" >&2; sinfo -N -o '%N %T %E' >&2; cat "$out" >&2; exit 1; }
  sleep 3 # the watch under way: its first rounds done
  cut=()
  for (( i = 2; i < 2 + k; i++ )); do cut+=("node$i"); done
  t0=$(now)
  for node in "${cut[@]}"; do "$cluster" cut-network "$node" >/dev/null; done
  at=""
  for _ in $(seq 1 300); do
    history=$(runuser -u "$AR_TEST_USER" -- "${launcher[$side]}" history --json "$job" 2>/dev/null || true)
    at=$(jq -r '[.[] | select(.event == "detection")][0].at // ""' <<< "${history:-[]}" 2>/dev/null || true)
    [[ -n "$at" ]] && break
    sleep 0.2
  done
  [[ -n "$at" ]] || { echo "job $job: no detection within 60 s of cutting ${cut[*]}" >&2; exit 1; }
  r_ms=$(ms "$t0" "$(date -d "$at" +%s.%N)")
  scancel "$job"
  job=""
  for node in "${cut[@]}"; do "$cluster" restore-network "$node" >/dev/null; done
  cut=()
  # The next job needs every node idle again: a cancelled step's nodes complete in seconds, and
  # the agent marks the silent nodes FAIL once it confirms them (that is its job), maybe after
  # the cancel: each such mark is lifted, until every node stays idle for a second.
  local idle=0
  for _ in $(seq 1 300); do
    scontrol update nodename="$(sinfo -h -n "node[2-$(( 1 + k ))]" -t fail,drain,down -o %N)" state=resume \
      >/dev/null 2>&1 || true
    if [[ -z "$(sinfo -h -n "node[1-$step_nodes]" -t completing,allocated,mixed,down,drain,fail -o %N)" ]]; then
      idle=$(( idle + 1 ))
      (( idle >= 5 )) && break
    else
      idle=0
    fi
    sleep 0.2
  done
}

declare -A results
for (( r = 0; r < rounds; r++ )); do
  order="a b"; (( r % 2 )) && order="b a"
  for side in $order; do
    for k in 1 "$silent"; do
      detect "$side" "$k"
      results[$side,$k]+="$r_ms "
    done
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "Slurm $AR_SLURM_RELEASE, a $step_nodes-node step, an agent on node1 only; $(nproc) cores; load $(cut -d' ' -f1 /proc/loadavg); $rounds rounds"
printf '%-40s %14s %14s\n' "detection, ms after the cut (median)" "A" "B"
for k in 1 "$silent"; do
  printf '%-40s %14s %14s\n' "$k node(s) silent" "$(median <<< "${results[a,$k]}")" "$(median <<< "${results[b,$k]}")"
done
echo "each run: A 1: ${results[a,1]}| A $silent: ${results[a,$silent]}| B 1: ${results[b,1]}| B $silent: ${results[b,$silent]}"
echo "A: $tree_a"
echo "B: $tree_b"
