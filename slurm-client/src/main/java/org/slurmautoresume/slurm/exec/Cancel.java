package org.slurmautoresume.slurm.exec;

import java.util.ArrayList;
import java.util.List;

/**
 * A way to end a running command early from another thread: the runner registers how to stop
 * its process, and {@link #cancel} does it (the result then reads as timed out). Cancelling
 * before the runner registered stops the process as soon as it does.
 */
public final class Cancel {

    private final List<Runnable> stops = new ArrayList<>();
    private boolean cancelled;

    /** Registers how to stop the command; run at once when it was cancelled already. */
    public void onCancel(Runnable stop) {
        boolean now;
        synchronized (this) {
            now = cancelled;
            if (!now) {
                stops.add(stop);
            }
        }
        if (now) {
            stop.run();
        }
    }

    public void cancel() {
        List<Runnable> toRun;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            toRun = List.copyOf(stops);
        }
        toRun.forEach(Runnable::run);
    }

    public synchronized boolean cancelled() {
        return cancelled;
    }
}
