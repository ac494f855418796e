#!/bin/bash
# A toy training job that survives a node failure: the step is started with
# `srun --auto-resume=1`; when a node dies, the supervisor has it replaced by a spare, grows the
# job back and runs the step again, which resumes from its last checkpoint.
#
#   sbatch --nodes=2 --exclusive train-auto-resume.sh
#
# The supervisor reads where spares come from and where the root agent listens from its
# environment (a site would set these once for everyone):
#   AUTORESUME_SPARE_PARTITION / AUTORESUME_SPARE_FEATURE / AUTORESUME_SPARE_NODES
#   AUTORESUME_AGENT_SOCKET (default /run/autoresume/agent.sock)
#SBATCH --exclusive
set -euo pipefail

export STEPS="${STEPS:-20}"
export CKPT="${CKPT:-$PWD/checkpoint-$SLURM_JOB_ID}"

# Everything a step needs happens inside this one srun, so a re-run on a replacement node sets
# itself up again; NODE_LIST and MASTER_ADDR are asked afresh on every attempt.
srun --auto-resume=1 --ntasks-per-node=1 bash -c '
  set -euo pipefail
  eval "$(autoresume env)"
  start=$(cat "$CKPT" 2>/dev/null || echo 0)
  echo "rank $SLURM_PROCID on $SLURMD_NODENAME: attempt ${AUTO_RESUME_ATTEMPT:-1}, nodes $NODE_LIST, master $MASTER_ADDR, resuming after step $start"
  for ((i = start + 1; i <= STEPS; i++)); do
    sleep 1                                   # one "training step"
    if [ "$SLURM_PROCID" = 0 ]; then echo "$i" > "$CKPT.tmp" && mv "$CKPT.tmp" "$CKPT"; fi
  done
  echo "rank $SLURM_PROCID on $SLURMD_NODENAME: finished step $STEPS"
'
echo "training finished at step $(cat "$CKPT")"
