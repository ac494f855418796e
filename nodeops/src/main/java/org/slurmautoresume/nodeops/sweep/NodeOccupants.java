package org.slurmautoresume.nodeops.sweep;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.hostlist.HostlistException;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;

/**
 * Who else still has work on a node, read two ways so that neither alone can hide a job: the
 * node's own state (ALLOCATED or MIXED while a job holds its resources: slurmctld's count, which
 * no job field changes) and the active job records that list the node. A job record a user
 * spoiled may go missing from the listing; it cannot clear the node's state. The sweep sets a
 * node DOWN, which kills every job on it, only where both say nothing else is there.
 */
final class NodeOccupants {

    /** The state words that mean a job still holds the node's resources. */
    static final List<String> RUNNING_FLAGS = List.of("ALLOCATED", "MIXED");
    /** As {@link #RUNNING_FLAGS}, counting a job still ending there too. */
    static final List<String> ANY_JOB_FLAGS = List.of("ALLOCATED", "MIXED", "COMPLETING");

    /** Jobs named in a why, so that a node with hundreds of small jobs still gives one short line. */
    private static final int NAMED = 5;

    private final Map<String, List<Job>> activeByNode = new HashMap<>();
    /** Active jobs whose node list could not be read: they may be on any node. */
    private final List<Job> unplaced = new ArrayList<>();

    NodeOccupants(List<Job> jobs) {
        for (Job job : jobs) {
            if (!job.state().isActive() || job.nodeList().isBlank()) {
                continue;
            }
            List<String> hosts;
            try {
                hosts = Hostlist.expand(job.nodeList());
            } catch (HostlistException e) {
                unplaced.add(job);
                continue;
            }
            for (String host : hosts) {
                activeByNode.computeIfAbsent(host, h -> new ArrayList<>()).add(job);
            }
        }
    }

    /** The active jobs whose node list names {@code node}. */
    List<Job> listing(String node) {
        return activeByNode.getOrDefault(node, List.of());
    }

    /** The active jobs listing {@code node}, and those whose node list could not be read. */
    List<Job> mayBeOn(String node) {
        List<Job> on = new ArrayList<>(listing(node));
        on.addAll(unplaced);
        return on;
    }

    /**
     * Why {@code node} still has work besides the jobs {@code ignored} accepts: the state words
     * of {@code flags} its state shows, then the other active job records that list it. Empty
     * when neither shows any.
     */
    Optional<String> otherWork(Node node, List<String> flags, Predicate<Job> ignored) {
        List<String> parts = new ArrayList<>();
        if (flags.stream().anyMatch(node.state()::has)) {
            parts.add("its state " + node.state().display() + " shows jobs on it");
        }
        List<Job> others =
                mayBeOn(node.name()).stream().filter(ignored.negate()).toList();
        if (!others.isEmpty()) {
            String named = others.stream()
                    .limit(NAMED)
                    .map(j -> j.jobId() + " (" + j.userName() + ", " + j.state() + ")")
                    .collect(Collectors.joining(", "));
            parts.add((others.size() == 1 ? "job " : "jobs ") + named
                    + (others.size() > NAMED ? " and " + (others.size() - NAMED) + " more" : "") + " still there");
        }
        return parts.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", parts));
    }
}
