#!/bin/bash
# The batch script for a training job that survives a node failure. Submit it from this
# directory (the nodes must see it, and CKPT_DIR, on a shared filesystem):
#
#   cd examples/sbatch && sbatch batch.sh            # or: sbatch --nodes=4 batch.sh
#
# What resume needs, and why:
#   --exclusive        a replacement node is taken whole, as the failed one was
#   --no-kill          optional: Slurm keeps the job when a node dies, and the supervisor
#                      replaces it either way; add it if your site's jobs usually run with it
#   srun --auto-resume=1
#                      hands the step to the supervisor; a step ended by a node fault is run
#                      again on the repaired allocation, and train.py resumes from its checkpoint
#   where spares come from (the site usually sets one of these for everyone):
#     AUTORESUME_SPARE_PARTITION=spare | AUTORESUME_SPARE_FEATURE=spare | AUTORESUME_SPARE_NODES=node[9-10]
#   AUTORESUME_AGENT_SOCKET   where the root agent listens (default /run/autoresume/agent.sock)
#   AUTORESUME_MAX_NODE_RETRIES (default 2), AUTORESUME_REPLACEMENT_TIMEOUT (seconds, default 300)
#
# The supervisor prints once per job which of these settings are missing and what to change.
#SBATCH --job-name=train
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive
set -euo pipefail

# sbatch runs a copy of this script; the other files are where it was submitted from.
here="${EXAMPLES_DIR:-$SLURM_SUBMIT_DIR}"
export CKPT_DIR="${CKPT_DIR:-$SLURM_SUBMIT_DIR/checkpoints-$SLURM_JOB_ID}"
export STEPS="${STEPS:-20}"

# One srun holds everything a step needs, so a re-run on a replacement node sets itself up
# again: entry.sh asks for NODE_LIST and MASTER_ADDR afresh on every attempt.
srun --auto-resume=1 --ntasks-per-node=1 "$here/entry.sh" python3 "$here/train.py"
echo "training finished: $(tail -n 1 "$CKPT_DIR/steps.log")"
