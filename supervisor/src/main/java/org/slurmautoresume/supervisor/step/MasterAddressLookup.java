package org.slurmautoresume.supervisor.step;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.model.Node;

/**
 * The first attempt's MASTER_ADDR: the master's NodeAddr, the field re-runs take it from
 * ({@link org.slurmautoresume.slurm.env.JobEnvironmentResolver}). The environment carries no node
 * addresses, so it costs one {@code scontrol show node}; that read starts on a thread of its own
 * when the supervisor is built, for the job's first node, so that Slurm answers while the
 * supervisor builds itself rather than while srun waits. The job's first node is the master in
 * every case but a one-node in-job-spares step placed on a batch host that is not first; that
 * case reads its own master when asked.
 */
final class MasterAddressLookup {

    private final SlurmClient slurm;
    private final SupervisorLog log;
    /** The node read ahead, or null when nothing was. */
    private final String ahead;
    private final CompletableFuture<Optional<String>> aheadAddress = new CompletableFuture<>();

    private MasterAddressLookup(SlurmClient slurm, SupervisorLog log, String ahead) {
        this.slurm = slurm;
        this.log = log;
        this.ahead = ahead;
    }

    /** Starts reading the address of the job's first node (from SLURM_JOB_NODELIST) at once. */
    static MasterAddressLookup readAhead(SlurmClient slurm, SupervisorLog log, Map<String, String> environment) {
        Optional<String> first = FirstAttemptNodes.of(environment, Optional.empty()).map(FirstAttemptNodes::master);
        MasterAddressLookup lookup = new MasterAddressLookup(slurm, log, first.orElse(null));
        first.ifPresent(node -> {
            Thread thread = new Thread(() -> lookup.aheadAddress.complete(lookup.read(node)), "master-address");
            thread.setDaemon(true);
            thread.start();
        });
        return lookup;
    }

    /** One that reads nothing ahead: outside a job. */
    static MasterAddressLookup none(SlurmClient slurm, SupervisorLog log) {
        return new MasterAddressLookup(slurm, log, null);
    }

    /** The node's address; empty, and said, when Slurm does not answer (the step starts without MASTER_ADDR). */
    Optional<String> of(String node) {
        return node.equals(ahead) ? aheadAddress.join() : read(node);
    }

    private Optional<String> read(String node) {
        try {
            Optional<String> address = slurm.node(node).map(Node::address).filter(a -> !a.isBlank());
            if (address.isEmpty()) {
                log.say("scontrol does not know the step's first node " + node + "; the first attempt gets no MASTER_ADDR");
            }
            return address;
        } catch (RuntimeException e) { // SlurmException, or anything else: never worth failing the start for
            log.say("could not read the address of " + node + " (" + e.getMessage()
                    + "); the first attempt gets no MASTER_ADDR");
            return Optional.empty();
        }
    }
}
