#!/bin/bash
# A real PyTorch DDP job (ddp_train.py, gloo backend: runs on CPUs, no GPU needed) that survives
# a node failure on a spare node it already holds. Submit it from this directory (the nodes must
# see it, and CKPT_DIR, on a shared filesystem):
#
#   cd examples/sbatch && sbatch ddp.sh                  # STEPS=50 sbatch ddp.sh, ...
#
# The job holds 3 nodes and trains on 2 (`srun -N2`): the third is an in-job spare
# (docs/in-job-spares.md). srun starts one rank per node itself (no torchrun). Each rank sizes
# the process group the way torchrun users do, from `autoresume env`: WORLD_SIZE=$NNODES (one
# rank per node), MASTER_ADDR of the step's first node; inside a step these describe the nodes
# this attempt runs on, never the idle spare. RANK and LOCAL_RANK come from SLURM_PROCID and
# SLURM_LOCALID. When a node dies, the supervisor drops it from the job and runs the step again
# at once on the surviving node and the spare; the ranks form a new process group there and
# resume from the newest checkpoint, so no step is trained twice.
#
# For your own trainer keep the shape: ranks from Slurm's variables, MASTER_ADDR from the
# environment srun gives each attempt (never captured once in the batch script), a port that
# is the same for every attempt, and a checkpoint written atomically and read on start.
#SBATCH --job-name=ddp
#SBATCH --nodes=3
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive
set -euo pipefail

here="${EXAMPLES_DIR:-$SLURM_SUBMIT_DIR}"
export CKPT_DIR="${CKPT_DIR:-$SLURM_SUBMIT_DIR/ddp-$SLURM_JOB_ID}"
export STEPS="${STEPS:-20}"
step_nodes="${STEP_NODES:-2}"

# --ntasks as well as -N: srun would otherwise take the job's task count (one per node of all 3)
# and start 3 ranks on 2 nodes.
# The rank's shell asks `autoresume env` on every attempt; python and the trainer's path are its
# arguments, never part of the command text.
srun --auto-resume=1 -N "$step_nodes" --ntasks="$step_nodes" --ntasks-per-node=1 \
    bash -c 'eval "$(autoresume env)" && WORLD_SIZE="$NNODES" exec "$0" "$1"' \
    "${PYTHON:-python3}" "$here/ddp_train.py"
echo "training finished: $(tail -n 1 "$CKPT_DIR/steps.log")"
