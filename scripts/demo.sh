#!/usr/bin/env bash
# The demo on a fresh Debian machine: installs what is missing, builds the toolkit, starts
# the local 4-node Slurm cluster in its default GPU shape (every node Gres=gpu:4,
# PrologFlags=Contain, as a production GPU partition), installs the toolkit from its tarball
# with install.sh and starts the root agent on every node for the demo's duration, then, as the ordinary
# user `artest`, submits the installed examples:
#   1. show-env.sh, a 2-node GPU job whose script learns its nodes and master from `autoresume env`;
#   2. the toy training step of batch.sh (`srun --auto-resume=1`, train.py checkpointing every
#      step) as a GPU job of 3 nodes whose step runs on 2: node3 is its in-job spare. node2 is
#      killed mid-step, the step is re-run on node[1,3] with node3's GPUs and resumes after its
#      last checkpoint. (batch.sh itself takes its spare from a spare pool, which needs job
#      expansion: Slurm refuses that for jobs with GPUs and under PrologFlags=Contain.)
# Needs root. AR_SLURM_RELEASE=24.11 or 26.05 runs it all on that Slurm release, from a Debian
# trixie or forky root filesystem built (or reused) first (local-cluster/README.md).
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"

if [[ "$(id -u)" -ne 0 ]]; then
  echo "scripts/demo.sh: run as root (it installs packages and starts Slurm daemons): sudo $0" >&2
  exit 2
fi

say() { printf '\n==> %s\n' "$*"; }

say "Installing what is missing (JDK, Maven, munge, Slurm)"
"$repo/local-cluster/install-deps.sh"

say "Building slurm-autoresume"
(cd "$repo" && mvn -B -ntp -q package -DskipTests)

if [[ "${AR_SLURM_RELEASE:-22.05}" != 22.05 ]]; then
  say "Building (or reusing) the Debian root filesystem with Slurm $AR_SLURM_RELEASE"
  "$repo/local-cluster/slurm-rootfs.sh" build
fi

say "Starting the local Slurm cluster (GPU shape: Gres=gpu:4 per node, PrologFlags=Contain)"
"$cluster" up --nodes 4
# shellcheck disable=SC1091
source "${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}/cluster.env"
# The cluster's Slurm release's programs (on 24.11 and 26.05: the rootfs's, runnable here).
export PATH="$AR_SLURM_BIN:$PATH" SLURM_CONF

# shellcheck source=scripts/lib/toolkit-on-cluster.sh
source "$repo/scripts/lib/toolkit-on-cluster.sh"
trap toolkit_cleanup EXIT

say "Installing the toolkit from its tarball with install.sh (prefix $AR_CLUSTER_DIR/demo-toolkit)"
install_toolkit demo
cat "$AR_PLUGSTACK_DIR/50-demo-auto_resume.conf"
sinfo
# The examples as installed; jobs write their output and checkpoints to the jobs directory.
examples="$toolkit_prefix/share/autoresume/examples/sbatch"

# submit ENV... -- SBATCH_ARGS...: sbatch as the test user from the installed examples directory.
submit() {
  local env=()
  while [[ "$1" != -- ]]; do env+=("$1"); shift; done
  shift
  runuser -u "$AR_TEST_USER" -- env -C "$examples" PATH="$PATH" "${env[@]}" \
      sbatch --parsable --output="$AR_JOBS_DIR/%j.out" --chdir="$AR_JOBS_DIR" "$@"
}

say "Submitting examples/sbatch/show-env.sh with --auto-resume=1 as $AR_TEST_USER on 2 nodes with 2 GPUs each"
job=$(submit -- -N2 --exclusive --gpus-per-node=2 --auto-resume=1 show-env.sh)
echo "submitted job $job"

say "Waiting for job $job to end"
status=0
autoresume job "$job" --wait --timeout 120 || status=$?
say "Job $job's output:"
cat "$AR_JOBS_DIR/$job.out"

if [[ "$status" -ne 0 ]]; then
  echo "The demo job did not complete (autoresume job exited $status)." >&2
  exit 1
fi

say "Starting the privileged agent (root) on every node, bound to it, as production runs it"
# Each watches its own node (its kernel log for Xids, its stand-in nvidia-smi and dcgmi, its
# slurmd) and answers other nodes' probes; it marks a job's failed nodes, nothing else. The
# supervisors talk to node1's, the batch host's (on a real cluster each node's own socket).
for k in 1 2 3 4; do
  metrics=()
  [[ "$k" -eq 1 ]] && metrics=(--metrics-listen 127.0.0.1:0)
  start_agent "$AR_CLUSTER_DIR/demo-agent-node$k" --node "node$k" \
      --xid-source "$("$cluster" kernel-log "node$k")" --gpu-tools "$("$cluster" gpu-tools "node$k")" "${metrics[@]}"
done
agent_dir="$AR_CLUSTER_DIR/demo-agent-node1"

say "Submitting batch.sh's training step (train.py, 20 steps) on node[1-2] with 4 GPUs each; node3 is the job's in-job spare"
ckpt="$AR_JOBS_DIR/demo-checkpoints-$$"
rm -rf -- "$ckpt"
# batch.sh's srun with -N2 in a 3-node job: the supervisor keeps the third node idle as a spare.
# The tasks print the GPUs Slurm gave them, before and after the spare takes over.
train_step='srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '"'"'echo "$SLURMD_NODENAME attempt $AUTO_RESUME_ATTEMPT: CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"; exec "$EXAMPLES_DIR/entry.sh" python3 "$EXAMPLES_DIR/train.py"'"'"' && echo "training finished: $(tail -n 1 "$CKPT_DIR/steps.log")"'
train=$(submit AUTORESUME_AGENT_SOCKET="$agent_dir/agent.sock" CKPT_DIR="$ckpt" EXAMPLES_DIR="$examples" \
          -- -N3 -w 'node[1-3]' --exclusive --gpus-per-node=4 --job-name=train --wrap "$train_step")
echo "submitted job $train"
steps_done() { if [[ -f "$ckpt/steps.log" ]]; then wc -l < "$ckpt/steps.log"; else echo 0; fi; }
# Up to 300 s: a cluster that just ran the e2e suite can keep nodes PLANNED for minutes after a
# resized job (docs/slurm-behaviour.md), and the job waits for them.
for _ in $(seq 1 1200); do
  [[ "$(steps_done)" -ge 5 ]] && break
  sleep 0.25
done
say "Training checkpointed step $(steps_done): killing node2 (its slurmd and its share of the step)"
"$cluster" kill-node node2

say "Waiting for job $train to end"
status=0
autoresume job "$train" --wait --timeout 180 >/dev/null || status=$?
say "Job $train's output:"
cat "$AR_JOBS_DIR/$train.out"
say "The checkpointed steps (CKPT_DIR/steps.log): each step once, attempt 2 after the last checkpoint"
cat "$ckpt/steps.log" 2>/dev/null || true

say "The agent's Prometheus metrics after the recovery (docs/metrics.md)"
metrics_url=$(grep -o 'http://[^ ]*/metrics' "$agent_dir/agent.log" | head -1)
python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
    "$metrics_url" | grep -E '^autoresume_(jobs_(started|restarted|successful)_total|nodes_(replaced|marked)_total|node_replacement_latency_seconds_(sum|count)|jobs_restart_latency_seconds_(sum|count))' || true

say "What the toolkit sees of the nodes"
autoresume nodes

say "Bringing node2 back as a repaired node under the same hostname"
"$cluster" revive-node node2 --fresh
scontrol update nodename=node2 state=resume
if [[ "$status" -ne 0 ]]; then
  echo "The training job did not complete (autoresume job exited $status)." >&2
  exit 1
fi
echo
echo "Demo finished. The agents are stopped and the toolkit uninstalled again; the cluster keeps running; stop it with: $cluster down"
