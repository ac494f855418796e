#!/bin/bash
# The same training step from an interactive allocation: salloc holds the nodes and runs the
# srun on the login node, so nothing here needs a batch script. If a node dies (the first
# one, MASTER_ADDR's, included) the supervisor replaces it and runs the step again.
#
#   cd examples/sbatch && ./salloc.sh                    # extra salloc options: ./salloc.sh -N4 -p gpu
#
# The spare pool and agent socket are read from the environment as in batch.sh.
set -euo pipefail

here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
export CKPT_DIR="${CKPT_DIR:-$PWD/checkpoints-salloc-$$}"

# salloc's own options first ("$@" may override --nodes), then the command it runs.
exec salloc --nodes=2 --exclusive --job-name=train-salloc "$@" \
  srun --auto-resume=1 --ntasks-per-node=1 "$here/entry.sh" python3 "$here/train.py"
