package org.slurmautoresume.nodeops.admin;

/**
 * What happened to one node: {@code result} is {@code changed}, {@code refused} (left alone,
 * {@code message} says why), {@code ignored} (the command succeeded but Slurm left the node as
 * it was: a reboot it skipped, {@code message} gives the state read back and why), {@code failed}
 * or {@code denied} (Slurm refused the caller).
 */
public record NodeOutcome(String node, String result, String command, String message) {

    public static final String CHANGED = "changed";
    public static final String REFUSED = "refused";
    public static final String IGNORED = "ignored";
    public static final String FAILED = "failed";
    public static final String DENIED = "denied";

    static NodeOutcome of(String node, NodeUpdater.Result result) {
        String word = result.ok() ? CHANGED : result.denied() ? DENIED : FAILED;
        return new NodeOutcome(node, word, result.command(), result.message());
    }

    public boolean changed() {
        return result.equals(CHANGED);
    }
}
