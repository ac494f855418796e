#!/usr/bin/env bash
# Fault to training again: what a user of a real training job waits for, and loses, when a node
# dies under it. examples/sbatch/ddp.sh (PyTorch DistributedDataParallel, gloo on CPUs, one rank
# per node, a checkpoint after every step) runs as the test user on node[1-3], its step on two
# nodes and the third an in-job spare; after a few steps node2 is killed. From the job's own
# records (the supervisor's timeline, the trainer's steps.log and its ranks' first lines, each
# with Unix times) it prints, from the kill:
#
#   detection                 the supervisor found the node (timeline `detection`)
#   the toolkit's share       from detection to the re-run's srun (timeline `launch` of attempt 2)
#   the application's restart from that srun to the first step trained again: the ranks' start
#                             (srun to the process started), torch's import and the new process
#                             group (process started to group formed), the first step (group
#                             formed to its checkpoint)
#   work lost                 the time trained since the last checkpoint before the fault, which
#                             the re-run trains again (here under one step: a checkpoint a step)
#   fault to training again   from the kill to the first step of the re-run checkpointed
#
# Needs root, a built tree (mvn package), python3-torch and the local cluster up (either shape).
# docs/recovery-benchmark.md records what it printed. Usage:
#   benchmarks/scripts/training-again.sh [--steps-before N] [--step-seconds S] [--runs R]
set -euo pipefail
repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"
steps_before=5 step_seconds=1 runs=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --steps-before) steps_before="$2"; shift ;;
    --step-seconds) step_seconds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    *) echo "usage: training-again.sh [--steps-before N] [--step-seconds S] [--runs R]" >&2; exit 2 ;;
  esac
  shift
done
[[ "$(id -u)" -eq 0 ]] || { echo "training-again.sh: run as root" >&2; exit 2; }
[[ "$steps_before" =~ ^[1-9][0-9]*$ && "$runs" =~ ^[1-9][0-9]*$ && "$step_seconds" =~ ^[0-9]+(\.[0-9]+)?$ ]] \
  || { echo "training-again.sh: --steps-before and --runs are whole numbers, --step-seconds a number" >&2; exit 2; }
command -v jq >/dev/null || { echo "training-again.sh: needs jq" >&2; exit 2; }
python="${PYTHON:-/usr/bin/python3}"
"$python" -c "import torch" 2>/dev/null || { echo "training-again.sh: needs python3-torch for $python (PYTHON=...)" >&2; exit 2; }
# shellcheck disable=SC1091
source "${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}/cluster.env"
# shellcheck source=scripts/lib/toolkit-on-cluster.sh
source "$repo/scripts/lib/toolkit-on-cluster.sh"

examples="$AR_JOBS_DIR/training-again-examples"
job=""
restore() {
  [[ -n "$job" ]] && scancel "$job" 2>/dev/null
  job=""
  "$cluster" revive-node node2 --fresh >/dev/null 2>&1 || true
  for node in node2 node3; do
    [[ "$(sinfo -h -n "$node" -o %T)" =~ drain|down|fail ]] && scontrol update nodename="$node" state=resume
  done
  return 0
}
finish() { toolkit_cleanup; restore; rm -rf -- "$examples"; }
trap finish EXIT
trap 'exit 143' TERM INT

install_toolkit training >/dev/null
start_agent "$AR_CLUSTER_DIR/training-agent" --node node1 --xid-source off
mkdir -p "$examples"
install -m 0755 "$repo/examples/sbatch/ddp.sh" "$repo/examples/sbatch/ddp_train.py" "$examples/"

now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
iso() { [[ -n "${1:-}" ]] || { echo "a timestamp is missing" >&2; return 1; }; date -d "$1" +%s.%N; }
# field LINE KEY: the value of KEY=VALUE (or "KEY VALUE," in a rank's first line) in LINE
field() { sed -n "s/.*[ (]$2[= ]\([0-9.]*\).*/\1/p" <<< "$1"; }

run() {
  local ckpt out killed history event_at log last_before first_after rank0 steps=$(( steps_before + 4 ))
  ckpt="$AR_JOBS_DIR/training-again-$$-$1"
  job=$(runuser -u "$AR_TEST_USER" -- env PATH="$PATH" \
      AUTORESUME_AGENT_SOCKET="$AR_CLUSTER_DIR/training-agent/agent.sock" EXAMPLES_DIR="$examples" \
      CKPT_DIR="$ckpt" STEPS="$steps" STEP_SECONDS="$step_seconds" PYTHON="$python" \
      sbatch --parsable --output="$AR_JOBS_DIR/training-again-%j.out" --chdir="$AR_JOBS_DIR" \
      -w "node[1-3]" "$examples/ddp.sh")
  out="$AR_JOBS_DIR/training-again-$job.out"
  for _ in $(seq 1 1500); do
    [[ "$(grep -c '^step=' "$ckpt/steps.log" 2>/dev/null || true)" -ge "$steps_before" ]] && break
    sleep 0.2
  done
  [[ "$(grep -c '^step=' "$ckpt/steps.log" 2>/dev/null || true)" -ge "$steps_before" ]] \
    || { echo "job $job did not train $steps_before steps:" >&2; cat "$out" >&2; exit 1; }
  killed=$(now)
  "$cluster" kill-node node2 >/dev/null
  for _ in $(seq 1 1500); do
    [[ -z "$(squeue -h -j "$job" -o %T 2>/dev/null)" ]] && break
    sleep 0.2
  done
  [[ -z "$(squeue -h -j "$job" -o %T 2>/dev/null)" ]] || { echo "job $job did not end" >&2; exit 1; }
  grep -q "training finished: step=$steps " "$out" || { echo "job $job did not finish training:" >&2; cat "$out" >&2; exit 1; }
  history=$(runuser -u "$AR_TEST_USER" -- env PATH="$PATH" autoresume history --json "$job")
  event_at() { iso "$(jq -r --arg e "$1" --argjson a "$2" '[.[] | select(.event == $e and .attempt == $a)][0].at // ""' <<< "$history")"; }
  log="$(cat "$ckpt/steps.log")"
  last_before=$(awk -v k="$killed" '/^step=/ { t = $NF; sub(/^t=/, "", t); if (t + 0 < k + 0) last = t } END { print last }' <<< "$log")
  first_after=$(grep ' attempt=2 ' <<< "$log" | head -n 1)
  rank0=$(grep -m1 '^rank 0/2 on node1: attempt 2,' "$out")
  r_detect=$(ms "$killed" "$(event_at detection 1)")
  r_launch=$(ms "$killed" "$(event_at launch 2)")
  r_started=$(ms "$killed" "$(field "$rank0" 'process started t')")
  r_formed=$(ms "$killed" "$(field "$rank0" 'group formed t')")
  r_again=$(ms "$killed" "$(field "$first_after" t)")
  r_lost=$(ms "$last_before" "$killed")
  r_step=$(awk '/ attempt=1 / { t = $NF; sub(/^t=/, "", t); if (p) printf "%d\n", (t - p) * 1000; p = t }' <<< "$log" \
      | sort -n | awk '{ d[NR] = $1 } END { print (NR ? d[int((NR + 1) / 2)] : 0) }')
  r_redone=$(( $(sed -n 's/.*resuming after step \([0-9]*\).*/\1/p' <<< "$rank0") ))
  rm -rf -- "$ckpt"
  restore
}

echo "Slurm $AR_SLURM_RELEASE, $AR_CLUSTER_SHAPE shape; $(nproc) cores; load $(cut -d' ' -f1 /proc/loadavg);" \
  "STEP_SECONDS=$step_seconds, node2 killed after $steps_before steps"
printf '%-4s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n' run detect toolkit srun-to start-to formed-to fault-to work step resumed
printf '%-4s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n' "" "(ms)" share process group 1st-step training lost median "after"
for i in $(seq 1 "$runs"); do
  run "$i"
  printf '%-4s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n' "$i" "$r_detect" "$(( r_launch - r_detect ))" \
    "$(( r_started - r_launch ))" "$(( r_formed - r_started ))" "$(( r_again - r_formed ))" "$r_again" \
    "$r_lost" "$r_step" "step $r_redone"
done
