package org.slurmautoresume.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * A job's auto-resume timeline, read back as the job's owner would ({@code autoresume history
 * --json} as the test user). Tests assert on its events and fields rather than on the
 * supervisor's log wording, which is for people and may be reworded.
 *
 * <p>The kind, level and outcome names are spelled out here rather than taken from the
 * supervisor's enums: they are the history's published format, and a rename must fail a test.
 */
final class Timeline {

    /** The {@code event} field's values. */
    enum Kind {
        LAUNCH("launch"),
        PROGRESS("progress"),
        DETECTION("detection"),
        ATTEMPT_ENDED("attempt-ended"),
        DECISION("decision"),
        DUMP("dump"),
        REPLACEMENT("replacement"),
        REQUEUE("requeue"),
        GIVE_UP("give-up"),
        REPEATED_FAILURE("repeated-failure"),
        SUCCEEDED("succeeded"),
        PATHS("recovery-paths"),
        CONTROLLER("controller"),
        WATCH("watch"),
        PAUSE("pause");

        final String word;

        Kind(String word) {
            this.word = word;
        }
    }

    /** One event; {@code details} are the event's own fields (rule, nodeList, level...). */
    record Event(
            Instant at, String event, int attempt, String stepId, OptionalLong latencyMs, Map<String, String> details) {

        boolean is(Kind kind) {
            return event.equals(kind.word);
        }

        /** A detail that must be there. */
        String detail(String name) {
            String value = details.get(name);
            if (value == null) {
                throw new AssertionError("no " + name + " in " + this);
            }
            return value;
        }

        long latency() {
            return latencyMs.orElseThrow(() -> new AssertionError("no latencyMs in " + this));
        }

        /** A decision's restart level: RERUN_IN_PLACE, REPLACE_NODES_AND_RERUN, REQUEUE_JOB, GIVE_UP. */
        String level() {
            return detail("level");
        }

        /** How an attempt ended: SUCCEEDED, APP_FAILURE, NODE_FAULT, CANCELLED, INTERRUPTED... */
        String outcome() {
            return detail("outcome");
        }

        /** srun's exit status, for attempt-ended and give-up. */
        int status() {
            return Integer.parseInt(detail("status"));
        }

        /** The job's NodeList after a replacement, as Slurm wrote it (a hostlist). */
        String nodeList() {
            return detail("nodeList");
        }

        /** The nodes a replacement took out, as a hostlist. */
        String faultyNodes() {
            return detail("faultyNodes");
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<Event> events;
    private final String raw;

    private Timeline(List<Event> events, String raw) {
        this.events = List.copyOf(events);
        this.raw = raw;
    }

    /** The job's timeline now; fails when there is none. */
    static Timeline of(LocalCluster cluster, String jobId) {
        return read(cluster, jobId).orElseThrow(() -> new AssertionError("no auto-resume history for job " + jobId));
    }

    /** Waits until the job's timeline holds an event that {@code wanted} accepts. */
    static Timeline awaitEvent(
            LocalCluster cluster, String jobId, String what, Duration timeout, Predicate<Event> wanted) {
        return Wait.until(
                "job " + jobId + "'s timeline to hold " + what,
                timeout,
                () -> read(cluster, jobId).filter(t -> t.events.stream().anyMatch(wanted)));
    }

    /** Waits until the policy chose to replace the job's failed nodes and re-run the step. */
    static Timeline awaitReplaceDecision(LocalCluster cluster, String jobId, Duration timeout) {
        return awaitEvent(
                cluster,
                jobId,
                "a decision to replace nodes",
                timeout,
                e -> e.is(Kind.DECISION) && e.level().equals("REPLACE_NODES_AND_RERUN"));
    }

    /** Waits until the supervisor watches the step's nodes (its probes run): the timeline's watch event. */
    static Timeline awaitWatch(LocalCluster cluster, String jobId, Duration timeout) {
        return awaitEvent(cluster, jobId, "the watch of the step's nodes", timeout, e -> e.is(Kind.WATCH));
    }

    /**
     * The job's timeline from a state directory the job chose itself ({@code XDG_RUNTIME_DIR} or
     * {@code TMPDIR} in its script), not the test user's default one; fails when there is none.
     */
    static Timeline of(LocalCluster cluster, String jobId, Path stateDir) {
        return read(cluster, jobId, List.of("--state-dir", stateDir.toString()))
                .orElseThrow(() -> new AssertionError("no auto-resume history for job " + jobId + " in " + stateDir));
    }

    private static Optional<Timeline> read(LocalCluster cluster, String jobId) {
        return read(cluster, jobId, List.of());
    }

    /** Through {@code autoresume history} as the test user: it finds the user's own state directory. */
    private static Optional<Timeline> read(LocalCluster cluster, String jobId, List<String> options) {
        List<String> argv = new ArrayList<>(
                List.of(cluster.launcher().toString(), "history", "--json", "--user", cluster.testUser()));
        argv.addAll(options);
        argv.add(jobId);
        CommandResult history = cluster.runAsTestUser(argv);
        if (!history.succeeded()) {
            return Optional.empty();
        }
        try {
            List<Event> events = new ArrayList<>();
            for (JsonNode e : JSON.readTree(history.stdout())) {
                Map<String, String> details = new LinkedHashMap<>();
                e.path("details")
                        .fields()
                        .forEachRemaining(
                                f -> details.put(f.getKey(), f.getValue().asText()));
                JsonNode latency = e.path("latencyMs");
                events.add(new Event(
                        Instant.parse(e.get("at").asText()),
                        e.get("event").asText(),
                        e.get("attempt").asInt(),
                        e.path("stepId").isTextual() ? e.get("stepId").asText() : null,
                        latency.isNumber() ? OptionalLong.of(latency.asLong()) : OptionalLong.empty(),
                        details));
            }
            return Optional.of(new Timeline(events, history.stdout()));
        } catch (IOException e) {
            throw new UncheckedIOException("autoresume history printed no JSON list: " + history.stdout(), e);
        }
    }

    List<Event> events() {
        return events;
    }

    List<Event> all(Kind kind) {
        return events.stream().filter(e -> e.is(kind)).toList();
    }

    /** The one event of a kind; fails when there are none or several. */
    Event only(Kind kind) {
        List<Event> found = all(kind);
        if (found.size() != 1) {
            throw new AssertionError(found.size() + " " + kind.word + " events, expected 1: " + raw);
        }
        return found.get(0);
    }

    /** How each attempt ended, in order: the attempt-ended events' outcomes. */
    List<String> outcomes() {
        return all(Kind.ATTEMPT_ENDED).stream().map(Event::outcome).toList();
    }

    /**
     * From the {@code from}-th attempt end on: attempts srun could not start (NOT_STARTED: slurmctld
     * away, or the nodes not yet registered again after a restart), then one that succeeded.
     */
    void assertSucceededAfterOnlyUnstarted(int from) {
        List<String> outcomes = outcomes();
        org.junit.jupiter.api.Assertions.assertTrue(
                outcomes.size() > from
                        && outcomes.get(outcomes.size() - 1).equals("SUCCEEDED")
                        && outcomes.subList(from, outcomes.size() - 1).stream().allMatch("NOT_STARTED"::equals),
                raw);
    }

    Event last(Kind kind) {
        List<Event> found = all(kind);
        if (found.isEmpty()) {
            throw new AssertionError("no " + kind.word + " event: " + raw);
        }
        return found.get(found.size() - 1);
    }

    /** The event kinds in order, as the {@code event} field spells them. */
    List<String> kinds() {
        return events.stream().map(Event::event).toList();
    }

    /**
     * Each event as ATTEMPT:EVENT, in order, but for the recovery paths and the attempts' first
     * progress: the paths are recorded once the job has been read, beside the first launch, and a
     * progress event when the rules' timer sees the first heartbeat or checkpoint, so neither's
     * place in the order is the step's story (read them with {@code all(Kind.PATHS)},
     * {@code all(Kind.PROGRESS)}).
     */
    List<String> attemptsAndKinds() {
        return events.stream()
                .filter(e -> !e.event().equals(Kind.PATHS.word) && !e.event().equals(Kind.PROGRESS.word))
                .map(e -> e.attempt() + ":" + e.event())
                .toList();
    }

    /** The attempt numbers launched, in order. */
    List<Integer> launchedAttempts() {
        return all(Kind.LAUNCH).stream().map(Event::attempt).toList();
    }

    /** The JSON as printed, for assertion messages. */
    @Override
    public String toString() {
        return raw;
    }
}
