package org.slurmautoresume.agent.server;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The node sets recorded by {@code watch}: a node that Slurm later drops from the job because it
 * stopped responding (srun's "Node failure on node2" under {@code --no-kill}) is still the
 * caller's to have marked ({@link JobAuthority} decides; a node the user shrank away is
 * {@link #forget forgotten}). Only nodes read from {@code scontrol show job} are ever added.
 * Bounded: the least recently watched jobs are forgotten first. Kept in memory; an agent restart
 * forgets them (the supervisor watches again at each step start).
 */
final class WatchedJobs {

    private final int capacity;
    private final Map<String, Set<String>> nodesByJob;

    WatchedJobs(int capacity) {
        this.capacity = capacity;
        this.nodesByJob = new LinkedHashMap<>(16, 0.75f, true);
    }

    /** Adds the job's current nodes to what was recorded; returns everything recorded for it, sorted. */
    synchronized List<String> record(String jobId, Collection<String> nodes) {
        Set<String> recorded = nodesByJob.computeIfAbsent(jobId, id -> new TreeSet<>());
        recorded.addAll(nodes);
        while (nodesByJob.size() > capacity) {
            String eldest = nodesByJob.keySet().iterator().next();
            nodesByJob.remove(eldest);
        }
        return List.copyOf(recorded);
    }

    /** The key of a job: its id with its owner's uid, so a reused job id inherits nothing. */
    static String key(String jobId, long owner) {
        return jobId + "/" + owner;
    }

    /** Removes nodes from what was recorded for the job. */
    synchronized void forget(String jobId, Collection<String> nodes) {
        Set<String> recorded = nodesByJob.get(jobId);
        if (recorded != null) {
            recorded.removeAll(nodes);
        }
    }

    synchronized Set<String> nodes(String jobId) {
        Set<String> recorded = nodesByJob.get(jobId);
        return recorded == null ? Set.of() : Set.copyOf(recorded);
    }
}
