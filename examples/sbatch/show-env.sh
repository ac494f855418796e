#!/bin/bash
# Shows what a training entry script should do before launching: ask Slurm for the job's
# nodes now, instead of trusting $SLURM_JOB_NODELIST, which goes stale when the job shrinks
# or grows. Submit with: sbatch -N2 show-env.sh
set -euo pipefail

eval "$(autoresume env)"
echo "NODE_LIST=$NODE_LIST"
echo "MASTER_NODE=$MASTER_NODE"
echo "MASTER_ADDR=$MASTER_ADDR"
echo "NNODES=$NNODES"

# Every node reports in; rank 0 runs on MASTER_NODE.
srun -N "$NNODES" --ntasks-per-node=1 bash -c 'echo "rank $SLURM_PROCID on $SLURMD_NODENAME"' | sort
