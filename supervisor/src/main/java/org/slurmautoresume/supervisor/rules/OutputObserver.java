package org.slurmautoresume.supervisor.rules;

/**
 * Sees a copy of what srun wrote, after it was written to the user's stream. An observer must
 * not keep {@code buf}: the pump reuses it for the next read. It runs on the pump's thread, so
 * a slow observer slows the copy; one that throws is dropped and the copy goes on unchanged.
 */
@FunctionalInterface
public interface OutputObserver {

    /** Which of srun's streams the bytes came from. */
    enum Stream {
        STDOUT,
        STDERR;

        public String tag() {
            return this == STDOUT ? "stdout" : "stderr";
        }
    }

    void onBytes(Stream which, byte[] buf, int off, int len);

    /** Called once when the stream has ended, so a last line without a newline is not lost. */
    default void onEnd(Stream which) {}
}
