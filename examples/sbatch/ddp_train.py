#!/usr/bin/env python3
"""A small but real PyTorch DistributedDataParallel job, one process per task, started by srun.

Every task srun starts is one rank: RANK and LOCAL_RANK come from Slurm (SLURM_PROCID,
SLURM_LOCALID), WORLD_SIZE from the environment where set (ddp.sh sets it from `autoresume env`'s
NNODES), else from SLURM_NTASKS, so no launcher (torchrun) sits between srun and
the trainer, and when auto-resume runs the step again on a repaired node set the ranks simply
start again and form a new process group there.

The rendezvous: MASTER_ADDR as auto-resume exports it for the step's nodes (it is fresh on every
attempt); where it is not set, the address of the first node of the step, asked from Slurm.
MASTER_PORT is fixed per job (derived from the job id), so every rank of every attempt agrees
without talking first.

Each step trains on a batch only this rank sees, so DDP's gradient all-reduce really crosses
ranks; rank 0 then saves the checkpoint with torch.save (to a temporary file, renamed into
place) and appends one line to CKPT_DIR/steps.log:

    step=3 world=2 attempt=1 allreduce=2 hosts=node1,node2 loss=0.512345 t=1795900870.123

`allreduce` is the sum of a 1 from every rank, `hosts` every rank's node in rank order (from an
all_gather), so the line shows which process group trained the step, `t` when its checkpoint was
taken (Unix time). On start every rank loads the newest checkpoint and goes on after it: no step
is trained twice; its first line says when the process started and when its process group
formed, so a restart's cost can be read off the output (benchmarks/scripts/training-again.sh).

Environment (all optional):
  CKPT_DIR       where the checkpoint and steps.log go (default ./ddp-$SLURM_JOB_ID); every node must see it
  STEPS          how many steps to train (default 20)
  STEP_SECONDS   extra time per step, standing in for a bigger model (default 0)
  WORLD_SIZE     how many ranks form the process group (default SLURM_NTASKS)
  MASTER_ADDR    rank 0's address (set by srun --auto-resume=1 on every attempt, and by `autoresume env`)
  MASTER_PORT    default 20000 + job id modulo 10000
  DDP_TIMEOUT    seconds to wait for the other ranks, at start and in a collective (default 120)
"""

import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import time

STARTED = time.time()  # before torch's import, which is most of a fresh rank's start

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402

CHECKPOINT = "checkpoint.pt"
STEP_LOG = "steps.log"


def env_int(name, default):
    value = os.environ.get(name, "")
    if value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        sys.exit(f"ddp_train.py: {name} must be a whole number, not {value!r}")
    if number < 0:
        sys.exit(f"ddp_train.py: {name} must not be negative: {number}")
    return number


def first_step_node():
    """The first node of the step (of the job outside a step), as `scontrol show hostnames` expands it."""
    nodelist = os.environ.get("SLURM_STEP_NODELIST") or os.environ.get("SLURM_JOB_NODELIST")
    if not nodelist:
        sys.exit("ddp_train.py: MASTER_ADDR is not set and this is not a Slurm job step; set MASTER_ADDR")
    hosts = subprocess.run(["scontrol", "show", "hostnames", nodelist], check=True,
                           capture_output=True, text=True, timeout=60).stdout.split()
    if not hosts:
        sys.exit(f"ddp_train.py: scontrol expanded {nodelist!r} to no host")
    return hosts[0]


def node_address(node):
    """Slurm's NodeAddr for the node, through `autoresume nodes --json` where it is installed.

    A node's name need not resolve (the local test cluster's don't); its NodeAddr is what its
    slurmd is reached at. Without autoresume, the name is used and must resolve.
    """
    if shutil.which("autoresume") is None:
        return node
    listing = subprocess.run(["autoresume", "nodes", node, "--json"], check=True,
                             capture_output=True, text=True, timeout=60).stdout
    for entry in json.loads(listing):
        if entry.get("name") == node and entry.get("address"):
            return entry["address"]
    return node


def rendezvous():
    """MASTER_ADDR and MASTER_PORT that every rank of this attempt computes alike."""
    address = os.environ.get("MASTER_ADDR") or node_address(first_step_node())
    job = env_int("SLURM_JOB_ID", 0)
    # Far from the ephemeral range and from Slurm's own ports; the same for every attempt of the
    # job, which is safe because the previous attempt's ranks have ended before a re-run starts.
    port = env_int("MASTER_PORT", 20000 + job % 10000)
    return address, port


def load_checkpoint(path, model, optimizer):
    """The last completed step (0 when none), with the model and optimizer restored from it."""
    if not os.path.exists(path):
        return 0, None
    state = torch.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["step"], state["record"]


def save_checkpoint(path, step, record, model, optimizer):
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        torch.save({"step": step, "record": record, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict()}, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)  # a rank killed mid-write leaves the previous checkpoint whole


def append_record(ckpt_dir, record):
    with open(os.path.join(ckpt_dir, STEP_LOG), "a", encoding="utf-8") as log:
        log.write(record + "\n")
        log.flush()
        os.fsync(log.fileno())


def logged_steps(ckpt_dir):
    path = os.path.join(ckpt_dir, STEP_LOG)
    if not os.path.exists(path):
        return 0
    with open(path, encoding="utf-8") as log:
        lines = [line for line in log.read().splitlines() if line.startswith("step=")]
    return int(lines[-1].split()[0].removeprefix("step=")) if lines else 0


def batch(step, rank):
    """The data this rank trains on at this step: the same after a restart, different per rank."""
    generator = torch.Generator().manual_seed(step * 1000 + rank)
    inputs = torch.randn(32, 8, generator=generator)
    targets = inputs.sum(dim=1, keepdim=True) + 0.1 * torch.randn(32, 1, generator=generator)
    return inputs, targets


def main():
    rank = env_int("SLURM_PROCID", 0)
    world = env_int("WORLD_SIZE", env_int("SLURM_NTASKS", 1))
    local_rank = env_int("SLURM_LOCALID", 0)
    job = os.environ.get("SLURM_JOB_ID", "local")
    ckpt_dir = os.environ.get("CKPT_DIR") or os.path.join(os.getcwd(), f"ddp-{job}")
    steps = env_int("STEPS", 20)
    step_seconds = float(os.environ.get("STEP_SECONDS", "0"))
    attempt = os.environ.get("AUTO_RESUME_ATTEMPT", "1")
    node = os.environ.get("SLURMD_NODENAME", socket.gethostname())
    address, port = rendezvous()
    os.makedirs(ckpt_dir, exist_ok=True)

    # torch.distributed reads these (init_method="env://"); set them for the process group only.
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(local_rank),
                      MASTER_ADDR=address, MASTER_PORT=str(port))
    # PyTorch 2.4 and later ask for a libuv TCPStore by default, and builds without libuv (Debian's
    # python3-torch) refuse that; the store is one small rendezvous, so the plain one serves.
    os.environ.setdefault("USE_LIBUV", "0")
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=env_int("DDP_TIMEOUT", 120)))
    torch.manual_seed(0)  # every rank starts from the same weights; DDP checks and syncs them anyway
    model = DistributedDataParallel(nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    checkpoint = os.path.join(ckpt_dir, CHECKPOINT)
    start, record = load_checkpoint(checkpoint, model.module, optimizer)
    # The record is appended after the checkpoint is renamed into place; a rank killed between the
    # two left a checkpointed step without its line, which the checkpoint itself still carries.
    if rank == 0 and record is not None and logged_steps(ckpt_dir) == start - 1:
        append_record(ckpt_dir, record)
    hosts = [None] * world
    dist.all_gather_object(hosts, node)
    print(f"rank {rank}/{world} on {node}: attempt {attempt}, process group of {world} on {','.join(hosts)},"
          f" master {address}:{port}, resuming after step {start}"
          f" (process started t={STARTED:.3f}, group formed t={time.time():.3f})", flush=True)

    loss_fn = nn.MSELoss()
    for step in range(start + 1, steps + 1):
        inputs, targets = batch(step, rank)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()  # DDP all-reduces the gradients across every rank here
        optimizer.step()
        ones = torch.ones(1)
        dist.all_reduce(ones)  # how many ranks took part, summed by the process group itself
        time.sleep(step_seconds)
        if rank == 0:
            record = (f"step={step} world={dist.get_world_size()} attempt={attempt} allreduce={int(ones.item())}"
                      f" hosts={','.join(hosts)} loss={loss.item():.6f} t={time.time():.3f}")
            save_checkpoint(checkpoint, step, record, model.module, optimizer)
            append_record(ckpt_dir, record)
        dist.barrier()  # no rank runs ahead of the checkpoint it would resume from
    print(f"rank {rank}/{world} on {node}: finished step {steps}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
