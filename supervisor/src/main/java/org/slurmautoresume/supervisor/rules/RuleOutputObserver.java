package org.slurmautoresume.supervisor.rules;

/** Feeds both of srun's streams, line by line, to one attempt's {@link RuleMonitor}. */
public final class RuleOutputObserver implements OutputObserver {

    private final LineSplitter stdout;
    private final LineSplitter stderr;

    public RuleOutputObserver(RuleMonitor monitor) {
        this.stdout = new LineSplitter(line -> monitor.onLine(Stream.STDOUT, line));
        this.stderr = new LineSplitter(line -> monitor.onLine(Stream.STDERR, line));
    }

    @Override
    public void onBytes(Stream which, byte[] buf, int off, int len) {
        splitter(which).accept(buf, off, len);
    }

    @Override
    public void onEnd(Stream which) {
        splitter(which).finish();
    }

    private LineSplitter splitter(Stream which) {
        return which == Stream.STDOUT ? stdout : stderr;
    }
}
