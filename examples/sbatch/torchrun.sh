#!/bin/bash
# A torchrun-style launch under auto-resume: one torchrun per node, started by
# `srun --auto-resume=1`, which reads its rendezvous from the job as it is now (entry.sh:
# MASTER_ADDR and NNODES from `autoresume env`, NODE_RANK from Slurm). After a node is
# replaced the whole srun runs again, so every torchrun restarts with the new master and
# the trainer resumes from its checkpoint; torchrun's own restarts (--max-restarts) are for
# faults that leave the nodes healthy.
#
#   cd examples/sbatch && sbatch torchrun.sh            # TRAIN_SCRIPT=my_train.py for yours
#   STEP_NODES=2 sbatch -N3 torchrun.sh                 # train on 2 nodes, hold 1 as an in-job spare
#
# With STEP_NODES below the job's node count the step runs on that many nodes and the rest are
# in-job spares (docs/in-job-spares.md): NNODES and NODE_LIST from `autoresume env` count the
# nodes this attempt runs on, so torchrun waits for no rank on an idle spare.
#
# LAUNCHER picks how each node starts the trainer:
#   torchrun  torchrun, as above (fails where torchrun is missing or broken)
#   direct    the trainer itself, with the variables torchrun would give it (RANK, LOCAL_RANK,
#             WORLD_SIZE, LOCAL_WORLD_SIZE): for machines without a working torchrun
#   auto      (default) torchrun where it can launch one process on this node (a 2 s check),
#             direct otherwise
# Debian bookworm's torchrun (torch 1.13) is on PATH but fails to launch anything under Python
# 3.11 (`Std` enum), so auto takes direct there; ddp.sh shows ranks launched by srun instead.
# The output says which launcher ran.
#SBATCH --job-name=torchrun
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive
set -euo pipefail

here="${EXAMPLES_DIR:-$SLURM_SUBMIT_DIR}"
export CKPT_DIR="${CKPT_DIR:-$SLURM_SUBMIT_DIR/checkpoints-$SLURM_JOB_ID}"
export TRAIN_SCRIPT="${TRAIN_SCRIPT:-$here/train.py}"
export GPUS_PER_NODE="${GPUS_PER_NODE:-1}"
export LAUNCHER="${LAUNCHER:-auto}"
case "$LAUNCHER" in
  auto|torchrun|direct) ;;
  *) echo "torchrun.sh: LAUNCHER must be auto, torchrun or direct, not '$LAUNCHER'" >&2; exit 2 ;;
esac
step_size=()
if [[ -n "${STEP_NODES:-}" ]]; then
  if [[ ! "$STEP_NODES" =~ ^[1-9][0-9]*$ ]]; then
    echo "torchrun.sh: STEP_NODES must be a node count, not '$STEP_NODES'" >&2
    exit 2
  fi
  # --ntasks as well as -N: srun would otherwise take the job's task count, one per node of all.
  step_size=(-N "$STEP_NODES" --ntasks="$STEP_NODES")
fi

# The single quotes are deliberate: the variables are expanded by each task, after entry.sh
# has set them for the job as it is at this attempt.
# shellcheck disable=SC2016
srun --auto-resume=1 "${step_size[@]}" --ntasks-per-node=1 "$here/entry.sh" bash -c '
  set -euo pipefail
  if [ "$LAUNCHER" = torchrun ] || { [ "$LAUNCHER" = auto ] \
      && torchrun --standalone --nnodes=1 --nproc_per_node=1 --no_python true >/dev/null 2>&1; }; then
    echo "node $NODE_RANK: torchrun --nnodes=$NNODES --node_rank=$NODE_RANK --master_addr=$MASTER_ADDR"
    exec torchrun --nnodes="$NNODES" --node_rank="$NODE_RANK" --nproc_per_node="$GPUS_PER_NODE" \
        --master_addr="$MASTER_ADDR" --master_port="$MASTER_PORT" "$TRAIN_SCRIPT"
  fi
  echo "node $NODE_RANK: direct launch (LAUNCHER=$LAUNCHER): stand-in: python3 $TRAIN_SCRIPT as rank $NODE_RANK of $NNODES, master $MASTER_ADDR:$MASTER_PORT"
  RANK="$NODE_RANK" LOCAL_RANK=0 WORLD_SIZE="$NNODES" LOCAL_WORLD_SIZE=1 exec python3 "$TRAIN_SCRIPT"
'
echo "training finished: $(tail -n 1 "$CKPT_DIR/steps.log")"
