package org.slurmautoresume.supervisor.step.watch;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.exec.DebugLogging;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.probe.NodeProber;
import org.slurmautoresume.supervisor.recovery.SlurmdWatch;
import org.slurmautoresume.supervisor.rules.OutputObserver;
import org.slurmautoresume.supervisor.step.launch.Srun;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobTimeline;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;

/**
 * Everything that watches one attempt while it runs: the lookup that finds the Slurm step srun
 * created (for the log prefix, the timeline and the hosts the step runs on), the slurmd probes
 * over that step's nodes once it is found, and the log and checkpoint rules. Each runs on a
 * thread of its own; none acts on what it finds beyond handing it on: a silent slurmd goes to
 * {@link SlurmdFindings}, a rule violation to the handler the {@link RuleWatch} was made with.
 */
public final class StepWatch {

    /** Where the slurmd probes' findings go: the restart actions, which mark, cancel and shrink. */
    public interface SlurmdFindings {

        /** Before the first probe: the agent records the job's nodes, so they stay its own after a shrink. */
        void watching(Step step);

        /**
         * Some of the step's nodes missed {@link #PROBE_MISSES} probes in a row while srun still
         * ran; {@code gone}: those of them whose agent and slurmd both refused the last probe;
         * {@code found}: when the probes found it, which is earlier than this call where the
         * step was not yet known (found while slurmctld was away, handed on once it named the step).
         */
        void silent(Step step, Srun srun, List<String> suspects, List<String> gone, Instant found);

        /**
         * Some of the step's nodes were taken out of service while srun still ran, though their
         * slurmd answers: marked by their own agent (a GPU fault), or set down.
         */
        void markedOut(Step step, Srun srun, List<Node> marked);
    }

    private static final int STEP_LOOKUP_POLLS = 50;
    private static final long STEP_LOOKUP_INTERVAL_MS = 200;
    /** Steps shorter than this never pay for a lookup (a `srun true` takes about 150 ms). */
    private static final long STEP_LOOKUP_DELAY_MS = 500;

    private static final long JOIN_MS = 15_000;
    /** Fast detection: a probe every second, three misses in a row make a node suspect. */
    public static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

    public static final int PROBE_MISSES = 3;
    /**
     * The pace of probes for a node that is gone (its agent and its slurmd both refuse): the
     * three misses then take half a second, not two to three.
     */
    public static final Duration GONE_PACE = Duration.ofMillis(250);
    /**
     * How often Slurm's view of the step's nodes is read while nothing is wrong, in probe rounds
     * (seconds). Each read is one scontrol call for all of them, but slurmctld answers it by
     * packing every node of the cluster and its partitions (two RPCs; about 22 ms of its time with
     * 10,000 nodes in the table), so the pace is what keeps a supervised step's cost to the
     * controller the same on any site. Where every step node's agent greets the probes, its
     * greeting says when it marked its node (a GPU fault: Slurm is read at once), and the read
     * only catches marks others made (an administrator's, a health check run by slurmd): every
     * five minutes. Without agents the read is how such marks end a step: every minute.
     */
    public static final SlurmdWatch.StateReads STATE_READS = new SlurmdWatch.StateReads(60, 300);
    /** How long the end of an attempt waits for a rule violation's handler (dump grace included elsewhere). */
    private static final Duration HANDLER_JOIN = Duration.ofSeconds(30);

    private final SlurmClient slurm;
    private final Optional<JobId> jobId;
    private final SupervisorLog log;
    private final JobTimeline timeline;
    private final Supplier<NodeProber> prober;
    private final Optional<SlurmdFindings> findings;
    /** The attempt's log and checkpoint rules; null when none are configured. */
    private final RuleWatch rules;

    private final Optional<List<Node>> knownNodes;
    private final Runnable beforeLookup;
    private final List<String> hosts = new ArrayList<>();
    private final AtomicReference<Step> found = new AtomicReference<>();
    /** The lookup's outcome: the step, or empty once it gave up (srun ended, or Slurm never named it). */
    private final CompletableFuture<Optional<Step>> lookedUp = new CompletableFuture<>();
    /** True once the probes handed suspects on: their handler must not be interrupted mid-update. */
    private final AtomicBoolean handedOn = new AtomicBoolean();

    private Thread lookup;
    private volatile Thread probes;
    /** Slurm's view of the watched nodes, read beside the probes; null until the watch starts. */
    private volatile NodeStateRead stateRead;

    /**
     * @param findings   empty when no recovery is configured: then no slurmd is probed
     * @param rules      the attempt's rules, already made (srun's output goes through them); may be null
     * @param knownNodes the records of the nodes srun was told to run on (in-job spares: its
     *                   {@code --nodelist}), when known before srun starts: they are probed from
     *                   srun's start, without waiting for slurmctld to name the step
     */
    StepWatch(
            SlurmClient slurm,
            Optional<JobId> jobId,
            SupervisorLog log,
            JobTimeline timeline,
            Supplier<NodeProber> prober,
            Optional<SlurmdFindings> findings,
            RuleWatch rules,
            Optional<List<Node>> knownNodes) {
        this(slurm, jobId, log, timeline, prober, findings, rules, knownNodes, () -> {});
    }

    /** @param beforeLookup run on the lookup's thread before its first question to Slurm (a test's pause) */
    public StepWatch(
            SlurmClient slurm,
            Optional<JobId> jobId,
            SupervisorLog log,
            JobTimeline timeline,
            Supplier<NodeProber> prober,
            Optional<SlurmdFindings> findings,
            RuleWatch rules,
            Optional<List<Node>> knownNodes,
            Runnable beforeLookup) {
        this.beforeLookup = beforeLookup;
        this.slurm = slurm;
        this.jobId = jobId;
        this.log = log;
        this.timeline = timeline;
        this.prober = prober;
        this.findings = findings;
        this.rules = rules;
        this.knownNodes = jobId.isPresent() ? knownNodes : Optional.empty();
    }

    /** What srun's output goes through: null without log rules. */
    OutputObserver observer() {
        return rules == null ? null : rules.observer();
    }

    /**
     * Starts looking for srun's step. The slurmd probes start at once when the attempt's nodes
     * are known, else once the step is found; either way on a thread of their own.
     */
    public void follow(Srun srun) {
        lookup = daemon(
                () -> {
                    Optional<Step> step = Optional.empty();
                    try {
                        step = findStep(srun);
                    } finally {
                        lookedUp.complete(step);
                    }
                    step.ifPresent(s -> stepFound(srun, s));
                },
                "step-lookup");
        if (findings.isPresent() && knownNodes.isPresent()) {
            probes = daemon(() -> probeKnown(srun, knownNodes.get(), findings.get()), "slurmd-watch");
        }
    }

    /**
     * Finds the step srun created (its SrunHost:Pid is our child). Runs beside the step. Polls
     * that found slurmctld away do not count against the lookup's patience: Slurm calls ride out
     * an outage themselves, and once the controller answers again the step is found and watched,
     * however long srun ran meanwhile.
     */
    private Optional<Step> findStep(Srun srun) {
        if (jobId.isEmpty()) {
            return Optional.empty();
        }
        try {
            Thread.sleep(STEP_LOOKUP_DELAY_MS);
        } catch (InterruptedException e) {
            return Optional.empty();
        }
        beforeLookup.run();
        boolean toldAway = false;
        for (int polls = 0; polls < STEP_LOOKUP_POLLS && srun.isAlive(); ) {
            try {
                for (Step s : slurm.steps(jobId.get())) {
                    if (createdBy(s, srun.pid())) {
                        return Optional.of(s);
                    }
                }
                polls++;
                Thread.sleep(STEP_LOOKUP_INTERVAL_MS);
            } catch (InterruptedException e) {
                return Optional.empty();
            } catch (SlurmException e) {
                if (!controllerAway(e)) {
                    polls++;
                    DebugLogging.debug(StepWatch.class, "step lookup failed: {}", e.getMessage());
                } else if (!toldAway) {
                    toldAway = true;
                    log.say("the step's nodes are not watched until slurmctld answers and names them");
                }
            } catch (RuntimeException e) {
                polls++;
                DebugLogging.debug(StepWatch.class, "step lookup failed: {}", e.getMessage());
            }
        }
        return Optional.empty();
    }

    /** A call that failed because slurmctld did not get or did not answer it. */
    static boolean controllerAway(SlurmException e) {
        return e.kind() == SlurmException.Kind.UNAVAILABLE || e.kind() == SlurmException.Kind.TIMEOUT;
    }

    /**
     * Whether {@code step} is the one the srun of {@code pid} created and it runs. From 24.11 a
     * step still waiting for resources is listed as {@code JOB.TDB}, State=PENDING, with its
     * srun's pid already: not yet a step anyone can watch or cancel, so the lookup waits for its id.
     */
    static boolean createdBy(Step step, long pid) {
        return step.srunPid().isPresent() && step.srunPid().getAsInt() == pid && !"PENDING".equals(step.state());
    }

    private void stepFound(Srun srun, Step step) {
        log.stepId(step.stepId());
        timeline.stepFound(step.stepId());
        synchronized (hosts) {
            hosts.addAll(Hostlist.expand(step.nodeList()));
        }
        found.set(step);
        if (findings.isPresent() && knownNodes.isPresent()) {
            findings.get().watching(step); // the probes run already
        } else if (findings.isPresent() && srun.isAlive()) {
            probes = daemon(() -> probe(srun, step, findings.get()), "slurmd-watch");
        }
    }

    /**
     * Fast detection: probes the step's slurmd until the step ends, instead of waiting for
     * slurmctld's SlurmdTimeout, and hands the silent nodes on once. Once the nodes' records are
     * read the probes need no slurmctld: a node that dies while it is away is found all the same.
     */
    private void probe(Srun srun, Step step, SlurmdFindings to) {
        to.watching(step);
        Optional<List<Node>> nodes = stepNodes(srun, step);
        if (nodes.isEmpty()) {
            return;
        }
        watch(srun, nodes.get(), () -> Optional.of(step), to);
    }

    /**
     * The probes of nodes known before srun started: no Slurm call before the first probe, so a
     * node that dies while slurmctld is away, even before it named the step, is found all the
     * same. What is found is handed on once the step is known (the lookup rides the outage).
     */
    private void probeKnown(Srun srun, List<Node> nodes, SlurmdFindings to) {
        watch(
                srun,
                nodes,
                () -> {
                    try {
                        return lookedUp.get();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return Optional.empty();
                    } catch (ExecutionException e) {
                        return Optional.empty();
                    }
                },
                to);
    }

    private void watch(Srun srun, List<Node> nodes, Supplier<Optional<Step>> step, SlurmdFindings to) {
        String nodeList = Hostlist.compress(nodes.stream().map(Node::name).toList());
        timeline.record(EventHistory.Kind.WATCH, java.util.OptionalLong.empty(), "nodes", nodeList);
        NodeStateRead states = new NodeStateRead(slurm, nodeList);
        stateRead = states;
        NodeProber probing = prober.get();
        new SlurmdWatch(probing, PROBE_INTERVAL, GONE_PACE, PROBE_MISSES)
                .watch(
                        nodes,
                        srun::isAlive,
                        suspects -> {
                            Instant found = Instant.now();
                            List<String> gone = nodes.stream()
                                    .filter(n -> suspects.contains(n.name()))
                                    .filter(probing::gone)
                                    .map(Node::name)
                                    .toList();
                            step.get().ifPresent(s -> {
                                handedOn.set(true);
                                to.silent(s, srun, suspects, gone, found);
                            });
                        },
                        states::markedOut,
                        STATE_READS,
                        marked -> step.get().ifPresent(s -> {
                            handedOn.set(true);
                            to.markedOut(s, srun, states.lastRead(marked));
                        }));
    }

    /**
     * The records (address, port) of the nodes to probe, read while srun runs: a read that met a
     * slurmctld outage longer than the bound is tried again, for the watch is worth having as
     * long as the step runs. Any other failure ends the watch, and the job's output says so.
     */
    private Optional<List<Node>> stepNodes(Srun srun, Step step) {
        while (srun.isAlive()) {
            try {
                return Optional.of(slurm.nodes(step.nodeList()));
            } catch (SlurmException e) {
                if (!controllerAway(e)) {
                    log.say("the step's nodes are not watched: cannot read them from Slurm (" + e.getMessage() + ")");
                    return Optional.empty();
                }
            }
            try {
                Thread.sleep(PROBE_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /**
     * srun exited with {@code status}: stops the rules (waiting for a violation's handler), the
     * lookup and the probes. A failed attempt waits for the lookup, whose hosts are evidence; a
     * handler of silent nodes is waited for, never interrupted: its scontrol would die mid-update
     * and the repair after it would race a second one.
     */
    public void attemptEnded(int status) throws InterruptedException {
        if (rules != null) {
            rules.close();
            rules.awaitHandler(HANDLER_JOIN);
        }
        lookup.interrupt();
        if (status != 0) {
            lookup.join(JOIN_MS);
        }
        NodeStateRead states = stateRead;
        if (states != null) {
            states.stop();
        }
        Thread probing = probes;
        if (probing == null) {
            return;
        }
        if (handedOn.get()) {
            probing.join(JOIN_MS);
        } else {
            probing.interrupt();
        }
    }

    /** Hosts the step ran on, as the lookup found them; empty when it did not find the step. */
    public List<String> hosts() {
        synchronized (hosts) {
            return List.copyOf(hosts);
        }
    }

    Optional<Step> step() {
        return Optional.ofNullable(found.get());
    }

    static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
