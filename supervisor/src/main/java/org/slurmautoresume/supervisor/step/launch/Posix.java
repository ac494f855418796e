package org.slurmautoresume.supervisor.step.launch;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** The few libc calls the supervisor needs and Java lacks. */
public final class Posix {

    private interface LibC extends Library {
        int kill(int pid, int sig);

        int getpgrp();

        int tcgetpgrp(int fd);
    }

    private static volatile LibC libc;

    private Posix() {}

    private static LibC libc() {
        LibC l = libc;
        if (l == null) {
            synchronized (Posix.class) {
                if (libc == null) {
                    libc = Native.load("c", LibC.class);
                }
                l = libc;
            }
        }
        return l;
    }

    /** Sends a signal; returns false if the process no longer exists or may not be signalled. */
    public static boolean kill(long pid, int signal) {
        return libc().kill((int) pid, signal) == 0;
    }

    /**
     * True when this process runs in the foreground of a terminal on stdin: then a key like
     * Ctrl-C reaches the whole process group (our srun child included) straight from the tty.
     */
    public static boolean inTerminalForeground() {
        int foreground = libc().tcgetpgrp(0);
        return foreground > 0 && foreground == libc().getpgrp();
    }
}
