package org.slurmautoresume.cli;

import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.slurmautoresume.nodeops.sweep.SweepAction;
import org.slurmautoresume.nodeops.sweep.SweepPlan;
import org.slurmautoresume.nodeops.sweep.SweepReport;

/**
 * A sweep pass as metrics for node_exporter's textfile collector ({@code --textfile FILE}): the
 * sweep is a one-shot command, so nothing stays up to be scraped; the collector reads the file
 * at each scrape. Every value describes the last pass; every label value is one of the sweep's
 * own words (action kinds, results, finding kinds, statuses), never a node or job name.
 *
 * <p>The file is replaced whole: written to a new file in the same directory (created
 * exclusively, so no link planted there is followed), then renamed over {@code FILE} (a link at
 * {@code FILE} is replaced, not written through). The collector never reads half a pass.
 */
final class SweepTextfile {

    /** Every status a pass can end in, each a series of its own (1 for the last pass's, 0 else). */
    static final List<String> STATUSES = List.of("nothing-to-do", "acted", "held-back", "failed", "lock-busy");
    /** An action's results after a pass that changed things (a dry run writes no file). */
    static final List<String> RESULTS = List.of(
            SweepReport.Outcome.DONE, SweepReport.Outcome.KEPT, SweepReport.Outcome.FAILED, SweepReport.Outcome.DENIED);

    private SweepTextfile() {}

    /** The metrics of a pass that ran (its report) at {@code at}. */
    static String of(SweepReport report, Instant at) {
        PrometheusRegistry registry = new PrometheusRegistry();
        common(registry, report.status(), at);
        Gauge.builder()
                .name("autoresume_sweep_last_pass_nodes_seen")
                .help("Nodes the last sweep pass read.")
                .register(registry)
                .set(report.nodesSeen());
        Gauge actions = Gauge.builder()
                .name("autoresume_sweep_last_pass_actions")
                .help("Actions of the last sweep pass, by kind and result (done, kept, failed, denied).")
                .labelNames("kind", "result")
                .register(registry);
        // Every kind and result is a series from the first pass on, 0 until it happens: a query or
        // an alert over them has data (and a misspelled name none) whether or not anything was done.
        for (SweepAction.Kind kind : SweepAction.Kind.values()) {
            for (String result : RESULTS) {
                actions.labelValues(kind.word(), result).set(0);
            }
        }
        for (SweepReport.Outcome outcome : report.actions()) {
            actions.labelValues(outcome.kind(), outcome.result()).inc();
        }
        Gauge held = Gauge.builder()
                .name("autoresume_sweep_last_pass_held_back")
                .help("Actions the last sweep pass held back by its caps (maxNodes, maxPartitionPercent), by kind.")
                .labelNames("kind")
                .register(registry);
        for (SweepAction.Kind kind : SweepAction.Kind.values()) {
            held.labelValues(kind.word()).set(0);
        }
        for (SweepReport.HeldBack heldBack : report.heldBack()) {
            held.labelValues(heldBack.kind()).inc();
        }
        Gauge findings = Gauge.builder()
                .name("autoresume_sweep_last_pass_findings")
                .help("What the last sweep pass reported and did not act on, by kind.")
                .labelNames("kind")
                .register(registry);
        for (SweepPlan.Finding finding : report.findings()) {
            findings.labelValues(finding.kind()).inc();
        }
        Gauge leftovers = Gauge.builder()
                .name("autoresume_sweep_last_pass_leftover_jobs")
                .help("Job records left by job expansion that the last sweep pass reported, by kind.")
                .labelNames("kind")
                .register(registry);
        for (SweepPlan.LeftoverJob leftover : report.leftoverJobs()) {
            leftovers.labelValues(leftover.kind()).inc();
        }
        return text(registry);
    }

    /** The metrics of a pass that found another sweep holding the lock and did nothing. */
    static String lockBusy(Instant at) {
        PrometheusRegistry registry = new PrometheusRegistry();
        common(registry, "lock-busy", at);
        return text(registry);
    }

    private static void common(PrometheusRegistry registry, String status, Instant at) {
        Gauge.builder()
                .name("autoresume_sweep_last_pass_timestamp_seconds")
                .help("When the last sweep pass ended (Unix time).")
                .register(registry)
                .set(at.toEpochMilli() / 1000.0);
        Gauge statuses = Gauge.builder()
                .name("autoresume_sweep_last_pass_status")
                .help("1 for the status the last sweep pass ended in, 0 for the others.")
                .labelNames("status")
                .register(registry);
        for (String each : STATUSES) {
            statuses.labelValues(each).set(each.equals(status) ? 1 : 0);
        }
    }

    private static String text(PrometheusRegistry registry) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            PrometheusTextFormatWriter.create().write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // into memory
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Replaces {@code file} with {@code text}, readable by all (the collector runs as its own user). */
    static void write(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path temporary = Files.createTempFile(
                dir,
                "." + file.getFileName() + ".",
                ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(temporary, text, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-r--r--"));
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot replace " + file + " in one step: " + e.getMessage(), e);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
