package org.slurmautoresume.supervisor.step.record;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The job's timeline as one supervisor writes it: each event goes to the job's
 * {@link EventHistory} file and to the agent's metrics, stamped with the attempt and the step
 * it belongs to. Outside a job both are absent and nothing is written.
 */
public final class JobTimeline {

    private final Optional<EventHistory> history;
    private final Optional<MetricsReporter> metrics;
    private volatile int attempt;
    /** The Slurm step id of the current attempt, once the step watch found it. */
    private volatile String stepId;

    public JobTimeline(Optional<EventHistory> history, Optional<MetricsReporter> metrics) {
        this.history = history;
        this.metrics = metrics;
    }

    public Optional<EventHistory> history() {
        return history;
    }

    /** A new attempt: its events carry its number, and no step id until its step is found. */
    public void beginAttempt(int number) {
        attempt = number;
        stepId = null;
    }

    public void stepFound(String id) {
        stepId = id;
    }

    public Optional<String> stepId() {
        return Optional.ofNullable(stepId);
    }

    int attempt() {
        return attempt;
    }

    /** One line of the timeline; {@code details} alternate names and values. */
    public void record(EventHistory.Kind kind, OptionalLong latencyMs, String... details) {
        int number = attempt;
        history.ifPresent(h -> h.record(kind, number, stepId, latencyMs, details));
        if (metrics.isPresent()) {
            Map<String, String> named = new HashMap<>();
            for (int i = 0; i + 1 < details.length; i += 2) {
                named.put(details[i], details[i + 1]);
            }
            metrics.get().onEvent(kind, number, latencyMs, named);
        }
    }

    public void close() {
        metrics.ifPresent(MetricsReporter::close);
    }
}
