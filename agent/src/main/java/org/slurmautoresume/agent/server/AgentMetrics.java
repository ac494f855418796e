package org.slurmautoresume.agent.server;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.agent.protocol.AgentReport;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.nodeops.xid.XidCatalog;
import org.slurmautoresume.slurm.client.NodeMark;

/**
 * The agent's Prometheus metrics, named after the SageMaker HyperPod training operator's (
 * {@code hyperpod_training_operator_jobs_restarted_total}, {@code ..._restart_latency},
 * {@code ..._fault_detection_latency}, ...) with the prefix {@code autoresume_}. A "job" here is
 * what the operator restarts: one supervised step ({@code srun --auto-resume=1}).
 *
 * <p>Two sources: supervisors' {@link AgentReport}s about their own jobs (accepted only from the
 * job's owner, like every request), and what the agent itself does (nodes it marks, requests it
 * answers). Every label value comes from a fixed set: no job id, node name or rule name (a
 * user's words, which one user could multiply until the series crowd out everyone else's). A
 * violated rule is counted by kind ({@code log} or {@code checkpoint}) and state; its name is in
 * the audit log's record of the report and in the job's own timeline. A detection's source
 * comes from a fixed set too ({@link #SOURCES}).
 */
public final class AgentMetrics {

    /**
     * What detects a fault, as this release's supervisors name it: the detection latency's
     * {@code source} label takes only these, any other word counts as {@value #OTHER_SOURCE}
     * (a caller's word must not make a series of its own).
     */
    static final Set<String> SOURCES = Set.of(
            "log-rule", "checkpoint-rule", "slurmd-probe", "node-state", "agent-verdict", "attempt-end", "unknown");

    static final String OTHER_SOURCE = "other";
    /** The rule kinds of the rule-violation counter: the checkpoint rule, and log rules of any name. */
    static final List<String> RULE_KINDS = List.of("log", "checkpoint");
    /** Seconds: a log rule fires in about a second, a node replaced under its name can take half an hour. */
    private static final double[] LATENCY_BUCKETS = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};

    private final PrometheusRegistry registry = new PrometheusRegistry();

    private final Counter started =
            counter("autoresume_jobs_started", "Supervised steps started (their first attempt).");
    private final Counter restarted = counter(
            "autoresume_jobs_restarted",
            "Supervised steps restarted: level retry (same nodes), recover (faulty nodes replaced) or requeue"
                    + " (the whole job requeued).",
            "level");
    private final Histogram restartLatency = histogram(
            "autoresume_jobs_restart_latency_seconds",
            "From the end of a failed attempt to the start of the next one, nodes replaced in between included.",
            "level");
    private final Histogram detectionLatency = histogram(
            "autoresume_jobs_fault_detection_latency_seconds",
            "From the last evidence of health (a log rule's last match, or the attempt's start) to the fault's"
                    + " detection.",
            "source");
    private final Counter successful =
            counter("autoresume_jobs_successful", "Supervised steps that ended successfully.");
    private final Counter failed = counter(
            "autoresume_jobs_failed", "Supervised steps given up on: the restart policy allowed no further restart.");
    private final Counter budgetLow = counter(
            "autoresume_jobs_restart_budget_low",
            "Restarts that left their step at most one more restart (jobMaxRetryCount): steps one failure from"
                    + " being given up.");
    private final Counter productive = counter(
            "autoresume_jobs_productive_seconds",
            "Time supervised steps spent on work they kept: from the start (after a restart, from the first"
                    + " heartbeat or new checkpoint) to the last sign of health, less work a fault made them redo.");
    private final Counter lost = counter(
            "autoresume_jobs_lost_seconds",
            "Time supervised steps lost to faults, by cause: detection (last sign of health to detection),"
                    + " recovery (detection to the next launch), restart (launch to the first heartbeat or new"
                    + " checkpoint), redone (newest complete checkpoint to the last sign of health).",
            "cause");
    private final Counter unattributed = counter(
            "autoresume_jobs_unattributed_seconds",
            "Time supervised steps ran that the supervisor cannot call productive or lost: a restart without a"
                    + " heartbeat or checkpoint rule to end it, work before a fault without a checkpoint rule.");
    private final Counter ruleViolations = counter(
            "autoresume_rule_violations",
            "Rules that ended an attempt, by kind (log, checkpoint) and state (SLOW, HANGING, FAULTED).",
            "kind",
            "state");
    private final Counter nodesReplaced = counter(
            "autoresume_nodes_replaced",
            "Faulty nodes replaced in a job's allocation (a spare, or the node back under its name).");
    private final Histogram replacementLatency = histogram(
            "autoresume_node_replacement_latency_seconds",
            "From the end of the attempt a node fault ended to the job's allocation being whole again.");
    private final Counter nodesMarked = counter(
            "autoresume_nodes_marked",
            "Nodes this agent set to fail/down with reason Action:Replace or Action:Reboot, or asked Slurm to"
                    + " reboot.",
            "action");
    private final Counter xids = counter(
            "autoresume_agent_xids",
            "Kinds of Xid (code and GPU, each counted once) the agent's kernel-log watch saw on its node, by class"
                    + " (reset, isolate, application, unknown).",
            "class");
    private final Counter gpuChecks = counter(
            "autoresume_agent_gpu_checks",
            "GPU checks the agent ran on its own node at its interval, by check and result (passed, failed, skipped).",
            "check",
            "result");
    private final Counter slurmdChecks = counter(
            "autoresume_agent_slurmd_checks",
            "Checks that this node's slurmd answers a request, run by the agent at its interval, by result (passed,"
                    + " failed, skipped).",
            "result");
    private final Counter requests = counter(
            "autoresume_agent_requests",
            "Requests this agent answered, by op and outcome (ok, refused).",
            "op",
            "outcome");

    private Counter counter(String name, String help, String... labels) {
        return Counter.builder()
                .name(name)
                .help(help)
                .labelNames(labels)
                .withoutExemplars()
                .register(registry);
    }

    private Histogram histogram(String name, String help, String... labels) {
        return Histogram.builder()
                .name(name)
                .help(help)
                .unit(Unit.SECONDS)
                .labelNames(labels)
                .classicOnly()
                .classicUpperBounds(LATENCY_BUCKETS)
                .withoutExemplars()
                .register(registry);
    }

    /** Counts what a supervisor reported about its job (already authorised by the caller). */
    public void record(AgentReport report) {
        switch (report.event()) {
            case LAUNCH -> {
                if (report.level() == null) {
                    started.inc();
                } else {
                    restarted.labelValues(report.level().word()).inc();
                    observe(restartLatency, report.latencyMs(), report.level().word());
                }
            }
            case DETECTION -> {
                observe(
                        detectionLatency,
                        report.latencyMs(),
                        SOURCES.contains(report.source()) ? report.source() : OTHER_SOURCE);
                if (report.rule() != null) {
                    // The report was checked on arrival: the state is one of three words.
                    ruleViolations
                            .labelValues(
                                    "checkpoint-rule".equals(report.source()) ? "checkpoint" : "log",
                                    report.ruleState())
                            .inc();
                }
            }
            case REPLACEMENT -> {
                nodesReplaced.inc(report.nodeCount());
                observe(replacementLatency, report.latencyMs());
            }
            case REQUEUE -> restarted.labelValues("requeue").inc();
            case GIVE_UP -> failed.inc();
            case BUDGET_LOW -> budgetLow.inc();
            case SUCCEEDED -> successful.inc();
            case GOODPUT -> {
                AgentReport.Time time = report.time(); // checked on arrival: each 0 to a year
                productive.inc(time.productiveMs() / 1000.0);
                lost.labelValues("detection").inc(time.detectionMs() / 1000.0);
                lost.labelValues("recovery").inc(time.recoveryMs() / 1000.0);
                lost.labelValues("restart").inc(time.restartMs() / 1000.0);
                lost.labelValues("redone").inc(time.redoneMs() / 1000.0);
                unattributed.inc(time.unattributedMs() / 1000.0);
            }
        }
    }

    /** A node this agent marked, or asked Slurm to reboot: {@code replace} or {@code reboot}. */
    void nodeMarked(NodeMark.Action action) {
        nodesMarked
                .labelValues(action.word().toLowerCase(java.util.Locale.ROOT))
                .inc();
    }

    void xidSeen(XidCatalog.XidClass xidClass) {
        xids.labelValues(xidClass.name().toLowerCase(java.util.Locale.ROOT)).inc();
    }

    void gpuCheck(String check, org.slurmautoresume.nodeops.health.HealthStatus status) {
        gpuChecks
                .labelValues(check, status.name().toLowerCase(java.util.Locale.ROOT))
                .inc();
    }

    void slurmdCheck(org.slurmautoresume.nodeops.health.HealthStatus status) {
        slurmdChecks
                .labelValues(status.name().toLowerCase(java.util.Locale.ROOT))
                .inc();
    }

    /** Where the Xid watch has got to, read at each scrape; call once, when the watch starts. */
    public void followKernelLog(LongSupplier sequence) {
        GaugeWithCallback.builder()
                .name("autoresume_agent_kernel_log_sequence")
                .help("Sequence number of the last kernel record the agent's Xid watch read (-1: none yet).")
                .callback(callback -> callback.call(sequence.getAsLong()))
                .register(registry);
    }

    /**
     * Whether every auto_resume.so the node's plugstack lists loads into its Slurm (1) or one does
     * not (0: rebuild it), as found at start; call once, and only when one is listed.
     */
    void spankPluginLoads(boolean loads) {
        GaugeWithCallback.builder()
                .name("autoresume_agent_spank_plugin_loads")
                .help("1 when every auto_resume.so this node's plugstack lists loads into its Slurm; 0 when one"
                        + " does not (built for another release: srun skips it and refuses --auto-resume=1).")
                .callback(callback -> callback.call(loads ? 1 : 0))
                .register(registry);
    }

    /**
     * What runs, for the dashboard's agents panel and a mixed-version fleet after an upgrade:
     * {@code autoresume_build_info{version, java_version} 1}; and the agent's own JVM and process
     * ({@code jvm_*}: heap, GC, threads; {@code process_*}: CPU seconds, open files, start time) as
     * the Prometheus client's JVM instrumentation exports them. Call once, at the agent's start.
     */
    public void describeProcess(String version) {
        Info.builder()
                .name("autoresume_build_info")
                .help("1, labelled with the autoresume version this agent runs and the Java it runs on.")
                .labelNames("version", "java_version")
                .register(registry)
                .setLabelValues(version, Runtime.version().toString());
        JvmMetrics.builder().register(registry);
    }

    void answered(AgentRequest.Op op, boolean ok) {
        requests.labelValues(AgentJson.wire(op), ok ? "ok" : "refused").inc();
    }

    private static void observe(Histogram histogram, Long latencyMs, String... labels) {
        if (latencyMs != null) {
            histogram.labelValues(labels).observe(latencyMs / 1000.0);
        }
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /**
     * Serves {@code /metrics} (the Prometheus text format, or OpenMetrics/protobuf when asked)
     * on {@code address}; port 0 takes a free one ({@link HTTPServer#getPort()} says which).
     */
    public HTTPServer serve(InetSocketAddress address) throws IOException {
        return HTTPServer.builder()
                .inetAddress(address.getAddress())
                .port(address.getPort())
                .registry(registry)
                .buildAndStart();
    }
}
