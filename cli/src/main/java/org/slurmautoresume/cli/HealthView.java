package org.slurmautoresume.cli;

import java.util.List;
import java.util.Locale;
import org.slurmautoresume.nodeops.health.CheckResult;
import org.slurmautoresume.nodeops.health.HealthReport;
import org.slurmautoresume.slurm.plugin.PluginCheck;

/**
 * The stable JSON shape of {@code autoresume health --json}: the node, the overall status and
 * action, every check with its evidence, the {@code scontrol} command that marked or resumed the
 * node (or would have, with {@code --dry-run}; null when nothing ran), what {@code --mark}
 * decided ({@code nodeUpdate}: {@code mark}, {@code resume}, {@code leave-alone} or
 * {@code nothing}; null without {@code --mark} or when it had nothing to look at) and why, and
 * whether the auto_resume.so the node's plugstack lists loads into its Slurm (never part of the
 * status).
 */
record HealthView(
        String node,
        String status,
        String action,
        String reason,
        List<CheckView> checks,
        String markCommand,
        String nodeUpdate,
        String nodeUpdateWhy,
        boolean dryRun,
        List<PluginView> spankPlugins) {

    record PluginView(String plugin, String listedIn, String builtFor, String running, boolean loads, String problem) {

        static PluginView of(PluginCheck check) {
            return new PluginView(
                    check.plugin().toString(),
                    check.listedIn().toString(),
                    check.builtFor().map(Object::toString).orElse(null),
                    check.running().toString(),
                    check.loads(),
                    check.problem().orElse(null));
        }
    }

    record CheckView(
            String name, String status, String action, String summary, List<String> evidence, long elapsedMillis) {

        static CheckView of(CheckResult result) {
            return new CheckView(
                    result.check(),
                    result.status().name(),
                    result.action().name(),
                    result.summary(),
                    result.evidence(),
                    result.elapsed().toMillis());
        }
    }

    static HealthView of(
            String node, HealthReport report, HealthCommand.Marked marked, boolean dryRun, List<PluginCheck> plugins) {
        String reason = report.worstAction().reason();
        return new HealthView(
                node,
                report.status().name(),
                report.worstAction().name(),
                reason.isEmpty() ? null : reason,
                report.results().stream().map(CheckView::of).toList(),
                marked == null ? null : marked.command(),
                marked == null
                        ? null
                        : marked.update().kind().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                marked == null ? null : marked.update().why(),
                dryRun,
                plugins.stream().map(PluginView::of).toList());
    }
}
