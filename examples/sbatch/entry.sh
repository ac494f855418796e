#!/bin/bash
# The entry script every task of a step runs first: it asks Slurm, through
# `autoresume env`, which nodes the job has *now* and who the master is, instead of trusting
# $SLURM_JOB_NODELIST (stale once a node was replaced) or parsing scontrol with awk. Then it
# hands over to the training command with the usual distributed-training variables set.
#
#   srun --auto-resume=1 --ntasks-per-node=1 ./entry.sh python3 train.py
#
# Sets (exported): NODE_LIST, MASTER_NODE, MASTER_ADDR, NNODES (from autoresume env),
# MASTER_PORT (default 29500), NODE_RANK (this node's index in the step), and, one task per
# node assumed, RANK and WORLD_SIZE unless a launcher such as torchrun sets its own.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "entry.sh: usage: entry.sh COMMAND [ARG...] (run by srun, once per task)" >&2
  exit 2
fi

eval "$(autoresume env)"
export NODE_LIST MASTER_NODE MASTER_ADDR NNODES
export MASTER_PORT="${MASTER_PORT:-29500}"
export NODE_RANK="${SLURM_NODEID:?entry.sh runs inside a job step (srun)}"
export RANK="${RANK:-${SLURM_PROCID:-0}}"
export WORLD_SIZE="${WORLD_SIZE:-${SLURM_NTASKS:-$NNODES}}"

exec "$@"
