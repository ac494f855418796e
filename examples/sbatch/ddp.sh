#!/bin/bash
# A real PyTorch DDP job (ddp_train.py, gloo backend: runs on CPUs, no GPU needed) that survives
# a node failure on a spare node it already holds. Submit it from this directory (the nodes must
# see it, and CKPT_DIR, on a shared filesystem):
#
#   cd examples/sbatch && sbatch ddp.sh                  # STEPS=50 sbatch ddp.sh, ...
#
# The job holds 3 nodes and trains on 2 (`srun -N2`): the third is an in-job spare
# (docs/in-job-spares.md). srun starts one rank per node itself (no torchrun): each rank takes
# RANK/WORLD_SIZE/LOCAL_RANK from SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID and MASTER_ADDR from
# auto-resume. When a node dies, the supervisor drops it from the job and runs the step again
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
srun --auto-resume=1 -N "$step_nodes" --ntasks="$step_nodes" --ntasks-per-node=1 \
    "${PYTHON:-python3}" "$here/ddp_train.py"
echo "training finished: $(tail -n 1 "$CKPT_DIR/steps.log")"
