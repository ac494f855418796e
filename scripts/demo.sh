#!/usr/bin/env bash
# The demo on a fresh Debian machine: installs what is missing, builds the toolkit, starts
# the local 4-node Slurm cluster, installs the SPANK plugin and starts the root agent for the
# demo's duration, then, as the ordinary user `artest`:
#   1. a 2-node job whose script learns its nodes and master from `autoresume env`;
#   2. a toy training job (`srun --auto-resume=1`) on node[1-2] with node4 as the hot spare:
#      node2 is killed mid-step, the step is re-run on node[1,4] and resumes from its checkpoint.
# Needs root.
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="$repo/lifecycle/local-cluster/local-cluster.sh"

if [[ "$(id -u)" -ne 0 ]]; then
  echo "scripts/demo.sh: run as root (it installs packages and starts Slurm daemons): sudo $0" >&2
  exit 2
fi

say() { printf '\n==> %s\n' "$*"; }

say "Installing what is missing (JDK, Maven, munge, Slurm)"
"$repo/lifecycle/local-cluster/install-deps.sh"

say "Building slurm-autoresume"
(cd "$repo" && mvn -B -ntp -q package -DskipTests)

say "Starting the local Slurm cluster"
"$cluster" up --nodes 4
# shellcheck disable=SC1091
source "${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}/cluster.env"

# shellcheck source=scripts/lib/toolkit-on-cluster.sh
source "$repo/scripts/lib/toolkit-on-cluster.sh"
trap toolkit_cleanup EXIT

say "Installing the autoresume launcher where the test user can run it"
install_dist
sinfo

say "Installing the auto-resume SPANK plugin for this demo"
install_plugin demo
cat "$toolkit_snippet"

say "Submitting examples/sbatch/show-env.sh with --auto-resume=1 as $AR_TEST_USER on 2 nodes"
script="$AR_JOBS_DIR/demo-show-env.sh"
install -m 0755 "$repo/examples/sbatch/show-env.sh" "$script"
job=$(runuser -u "$AR_TEST_USER" -- env PATH="$PATH" sbatch --parsable -N2 --exclusive --auto-resume=1 \
        --output="$AR_JOBS_DIR/%j.out" --chdir="$AR_JOBS_DIR" "$script")
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

say "Starting the privileged agent (root): it marks a job's failed nodes, nothing else"
agent_dir="$AR_CLUSTER_DIR/demo-agent"
start_agent "$agent_dir"

say "Submitting examples/sbatch/train-auto-resume.sh on node[1-2] with node4 as the hot spare"
script="$AR_JOBS_DIR/demo-train.sh"
install -m 0755 "$repo/examples/sbatch/train-auto-resume.sh" "$script"
train=$(runuser -u "$AR_TEST_USER" -- env PATH="$PATH" AUTORESUME_SPARE_NODES=node4 \
          AUTORESUME_AGENT_SOCKET="$agent_dir/agent.sock" \
          sbatch --parsable -N2 -w 'node[1-2]' --exclusive --output="$AR_JOBS_DIR/%j.out" \
          --chdir="$AR_JOBS_DIR" "$script")
echo "submitted job $train"
ckpt="$AR_JOBS_DIR/checkpoint-$train"
for _ in $(seq 1 240); do
  [[ "$(cat "$ckpt" 2>/dev/null || echo 0)" -ge 5 ]] && break
  sleep 0.25
done
say "Training reached step $(cat "$ckpt"): killing node2 (its slurmd and its share of the step)"
"$cluster" kill-node node2

say "Waiting for job $train to end"
status=0
autoresume job "$train" --wait --timeout 180 >/dev/null || status=$?
say "Job $train's output:"
cat "$AR_JOBS_DIR/$train.out"

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
echo "Demo finished. The plugin and the agent are gone again; the cluster keeps running; stop it with: $cluster down"
