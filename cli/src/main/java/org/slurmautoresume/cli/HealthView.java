package org.slurmautoresume.cli;

import java.util.List;
import org.slurmautoresume.nodeops.health.CheckResult;
import org.slurmautoresume.nodeops.health.HealthReport;

/**
 * The stable JSON shape of {@code autoresume health --json}: the node, the overall status and
 * action, every check with its evidence, and the {@code scontrol} command that marked the node
 * (or would have, with {@code --dry-run}; null when nothing was marked).
 */
record HealthView(String node, String status, String action, String reason, List<CheckView> checks,
                  String markCommand, boolean dryRun) {

    record CheckView(String name, String status, String action, String summary, List<String> evidence,
                     long elapsedMillis) {

        static CheckView of(CheckResult result) {
            return new CheckView(result.check(), result.status().name(), result.action().name(), result.summary(),
                    result.evidence(), result.elapsed().toMillis());
        }
    }

    static HealthView of(String node, HealthReport report, String markCommand, boolean dryRun) {
        String reason = report.worstAction().reason();
        return new HealthView(node, report.status().name(), report.worstAction().name(),
                reason.isEmpty() ? null : reason, report.results().stream().map(CheckView::of).toList(),
                markCommand, dryRun);
    }
}
