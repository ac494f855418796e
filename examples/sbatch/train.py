#!/usr/bin/env python3
"""A toy training loop that checkpoints every step and resumes from its newest checkpoint.

It stands in for a real trainer: what matters for auto-resume is the shape, not the maths.
Each step "trains" for STEP_SECONDS, then rank 0 writes the checkpoint (to a temporary file,
renamed into place, so a node dying mid-write never leaves a torn checkpoint) and appends one
line to CKPT_DIR/steps.log. When the step is run again after a node failure, every rank starts
after the newest complete checkpoint, so no step before it is repeated.

Environment (all optional):
  CKPT_DIR      where checkpoints go (default ./checkpoints-$SLURM_JOB_ID); shared by all nodes
  STEPS         how many steps to train (default 20)
  STEP_SECONDS  how long one step takes (default 1)
  KEEP          how many checkpoints to keep (default 3)
  RANK, WORLD_SIZE            set by torchrun; otherwise SLURM_PROCID, SLURM_NTASKS are used
  MASTER_ADDR, NODE_LIST      from `eval "$(autoresume env)"` (see entry.sh), printed only
"""

import json
import os
import re
import socket
import sys
import time

CHECKPOINT = re.compile(r"^step-(\d{8})\.json$")


def env_int(name, default):
    value = os.environ.get(name, "")
    if value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        sys.exit(f"train.py: {name} must be a whole number, not {value!r}")
    if number < 0:
        sys.exit(f"train.py: {name} must not be negative: {number}")
    return number


def newest_checkpoint(ckpt_dir):
    """The newest checkpoint that reads back whole, as (step, state); (0, initial state) if none."""
    steps = sorted((int(m.group(1)) for m in map(CHECKPOINT.match, os.listdir(ckpt_dir)) if m), reverse=True)
    for step in steps:
        path = os.path.join(ckpt_dir, f"step-{step:08d}.json")
        try:
            with open(path, encoding="utf-8") as f:
                state = json.load(f)
            if state.get("step") == step:
                return step, state
        except (OSError, ValueError):
            pass  # a checkpoint we cannot read is skipped; the one before it still counts
    return 0, {"step": 0, "loss": 1.0}


def save_checkpoint(ckpt_dir, state, keep):
    path = os.path.join(ckpt_dir, f"step-{state['step']:08d}.json")
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)
    old = sorted(int(m.group(1)) for m in map(CHECKPOINT.match, os.listdir(ckpt_dir)) if m)
    for step in old[:-keep] if keep > 0 else []:
        os.remove(os.path.join(ckpt_dir, f"step-{step:08d}.json"))


def main():
    job = os.environ.get("SLURM_JOB_ID", "local")
    ckpt_dir = os.environ.get("CKPT_DIR") or os.path.join(os.getcwd(), f"checkpoints-{job}")
    steps = env_int("STEPS", 20)
    step_seconds = float(os.environ.get("STEP_SECONDS", "1"))
    keep = max(1, env_int("KEEP", 3))
    rank = env_int("RANK", env_int("SLURM_PROCID", 0))
    world = env_int("WORLD_SIZE", env_int("SLURM_NTASKS", 1))
    attempt = os.environ.get("AUTO_RESUME_ATTEMPT", "1")
    node = os.environ.get("SLURMD_NODENAME", socket.gethostname())
    os.makedirs(ckpt_dir, exist_ok=True)

    start, state = newest_checkpoint(ckpt_dir)
    print(f"rank {rank}/{world} on {node}: attempt {attempt}, nodes {os.environ.get('NODE_LIST', '?')}, "
          f"master {os.environ.get('MASTER_ADDR', '?')}, resuming after step {start}", flush=True)
    for step in range(start + 1, steps + 1):
        time.sleep(step_seconds)  # one "training step"
        state = {"step": step, "loss": round(state["loss"] * 0.9, 6)}
        if rank == 0:
            save_checkpoint(ckpt_dir, state, keep)
            with open(os.path.join(ckpt_dir, "steps.log"), "a", encoding="utf-8") as log:
                log.write(f"step={step} attempt={attempt} node={node} loss={state['loss']}\n")
    print(f"rank {rank}/{world} on {node}: finished step {steps}", flush=True)


if __name__ == "__main__":
    main()
