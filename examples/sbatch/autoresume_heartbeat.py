"""Heartbeat for slurm-autoresume: tell the step's supervisor the training loop still moves.

Call beat() once per training step and checkpoint() just before writing a checkpoint. Each
prints one line, AUTORESUME_HEARTBEAT (or AUTORESUME_HEARTBEAT phase=checkpoint), which the
supervisor reads from the step's output when the job's configuration has a heartbeat section:

    runPolicy:
      heartbeat: {startupTimeoutSeconds: 600, steadyTimeoutSeconds: 300, checkpointTimeoutSeconds: 1800}

A beat that does not come in time is a hang: the supervisor dumps (SIGUSR1 by default), ends the
step and runs it again as the restart policy says. Any beat counts, so rank 0 alone may beat; a
collective that hangs stops every rank, rank 0 included. Any language can do the same by
printing the line and flushing stdout.
"""

import sys
import time

MARKER = "AUTORESUME_HEARTBEAT"
_last = None


def beat(min_interval=1.0, out=None):
    """Print a heartbeat line, at most one per min_interval seconds so that a fast loop stays quiet."""
    global _last
    now = time.monotonic()
    if _last is not None and now - _last < min_interval:
        return
    _last = now
    _say(MARKER, out)


def checkpoint(out=None):
    """Say a checkpoint begins: the next beat may take checkpointTimeoutSeconds instead."""
    global _last
    _last = time.monotonic()
    _say(MARKER + " phase=checkpoint", out)


def _say(line, out):
    stream = out if out is not None else sys.stdout
    stream.write(line + "\n")
    stream.flush()
