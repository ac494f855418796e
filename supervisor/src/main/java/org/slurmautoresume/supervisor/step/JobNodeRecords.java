package org.slurmautoresume.supervisor.step;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.DebugLogging;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.settings.Allocation;
import org.slurmautoresume.supervisor.step.settings.FirstAttemptNodes;

/**
 * The job's node records (address, slurmd port), read once ahead: the first attempt's
 * MASTER_ADDR is the master's NodeAddr, the field re-runs take it from
 * ({@link org.slurmautoresume.slurm.env.JobEnvironmentResolver}), and the slurmd probes of a step
 * whose nodes are known before srun starts (in-job spares) need the records before slurmctld has
 * named the step, which it may not do for a while if it is away. The environment carries no node
 * addresses, so it costs one {@code scontrol show node} for the job's nodes; that read starts on a
 * thread of its own when the supervisor is built, so that Slurm answers while the supervisor
 * builds itself rather than while srun waits. A job of more than {@link #READ_ALL_UP_TO} nodes
 * has only its first node read (the master in every case but a one-node in-job-spares step
 * placed on a batch host that is not first; that case reads its own master when asked).
 *
 * <p>The launcher starts that {@code scontrol} itself, before the JVM, for a job of up to
 * {@link #READ_ALL_UP_TO} nodes, and leaves its answer on a pipe ({@link Allocation#NODE_RECORDS_FD}):
 * so the answer is there by the time the first srun needs it. An answer that lacks a node, or no
 * answer, is asked again here the ordinary way (which rides out a controller outage).
 */
final class JobNodeRecords {

    /** Larger jobs read only their first node ahead: parsing thousands of records delays the first srun. */
    static final int READ_ALL_UP_TO = 256;

    private final SlurmClient slurm;
    private final SupervisorLog log;
    /** The nodes read ahead (the first being the job's first), or empty when nothing was. */
    private final List<String> ahead;
    /** The records read ahead; empty when the read failed (said once). */
    private final CompletableFuture<Optional<Map<String, Node>>> aheadRecords;

    private JobNodeRecords(
            SlurmClient slurm,
            SupervisorLog log,
            List<String> ahead,
            CompletableFuture<Optional<Map<String, Node>>> aheadRecords) {
        this.slurm = slurm;
        this.log = log;
        this.ahead = ahead;
        this.aheadRecords = aheadRecords;
    }

    /** Starts reading the records of the job's nodes (from SLURM_JOB_NODELIST) at once. */
    static JobNodeRecords readAhead(SlurmClient slurm, SupervisorLog log, Allocation allocation) {
        List<String> hosts = allocation.jobNodes().map(FirstAttemptNodes::hosts).orElse(List.of());
        List<String> read = List.copyOf(hosts.size() > READ_ALL_UP_TO ? hosts.subList(0, 1) : hosts);
        if (read.isEmpty()) {
            return none(slurm, log);
        }
        return readAhead(slurm, log, read, read.size() == hosts.size() ? allocation.launcherPipe() : Optional.empty());
    }

    /** As {@link #readAhead(SlurmClient, SupervisorLog, Allocation)}: {@code read}, from {@code launcherPipe} where it has them all. */
    static JobNodeRecords readAhead(
            SlurmClient slurm, SupervisorLog log, List<String> read, Optional<Path> launcherPipe) {
        return new JobNodeRecords(
                slurm,
                log,
                read,
                ReadAhead.start(
                        "job-node-records",
                        () -> launcherPipe
                                .flatMap(pipe -> readPipe(slurm, pipe, read))
                                .or(() -> read(slurm, log, read))));
    }

    /** One that reads nothing ahead: outside a job. */
    static JobNodeRecords none(SlurmClient slurm, SupervisorLog log) {
        return new JobNodeRecords(slurm, log, List.of(), CompletableFuture.completedFuture(Optional.empty()));
    }

    /** The node's address; empty, and said, when Slurm does not answer (the step starts without MASTER_ADDR). */
    Optional<String> addressOf(String node) {
        Optional<Map<String, Node>> records =
                ahead.contains(node) ? aheadRecords.join() : read(slurm, log, List.of(node));
        if (records.isEmpty()) {
            return Optional.empty(); // the read said why
        }
        Optional<String> address =
                Optional.ofNullable(records.get().get(node)).map(Node::address).filter(a -> !a.isBlank());
        if (address.isEmpty()) {
            log.say("scontrol does not know the step's first node " + node + "; the first attempt gets no MASTER_ADDR");
        }
        return address;
    }

    /**
     * The records of {@code nodes}, in that order, when the read ahead has them all; empty when it
     * is not done, failed, or lacks one (a node that joined later). Never waits.
     */
    Optional<List<Node>> cached(List<String> nodes) {
        Map<String, Node> known = aheadRecords.getNow(Optional.empty()).orElse(Map.of());
        List<Node> found = new ArrayList<>();
        for (String node : nodes) {
            Node record = known.get(node);
            if (record == null) {
                return Optional.empty();
            }
            found.add(record);
        }
        return found.isEmpty() ? Optional.empty() : Optional.of(found);
    }

    /** The records the launcher's scontrol printed; empty (nothing said) unless they hold every node asked for. */
    private static Optional<Map<String, Node>> readPipe(SlurmClient slurm, Path pipe, List<String> nodes) {
        try {
            Map<String, Node> records = slurm.nodesFromText(Files.readString(pipe)).stream()
                    .collect(Collectors.toMap(Node::name, Function.identity(), (a, b) -> a));
            return records.keySet().containsAll(nodes) ? Optional.of(records) : Optional.empty();
        } catch (IOException | RuntimeException e) { // no pipe, a failed scontrol: ask again the ordinary way
            DebugLogging.debug(
                    JobNodeRecords.class,
                    "the launcher's node records unusable ({}); reading them again",
                    e.getMessage());
            return Optional.empty();
        }
    }

    private static Optional<Map<String, Node>> read(SlurmClient slurm, SupervisorLog log, List<String> nodes) {
        try {
            return Optional.of(slurm.nodes(Hostlist.compress(nodes)).stream()
                    .collect(Collectors.toMap(Node::name, Function.identity(), (a, b) -> a)));
        } catch (RuntimeException e) { // SlurmException, or anything else: never worth failing the start for
            log.say("could not read the address of " + Hostlist.compress(nodes) + " (" + e.getMessage()
                    + "); the first attempt gets no MASTER_ADDR");
            return Optional.empty();
        }
    }
}
