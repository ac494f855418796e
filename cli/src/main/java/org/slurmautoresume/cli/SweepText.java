package org.slurmautoresume.cli;

import java.io.PrintWriter;
import org.slurmautoresume.nodeops.sweep.SweepPlan;
import org.slurmautoresume.nodeops.sweep.SweepReport;

/** The sweep report for people: one line per action, held-back action, finding, leftover job
 * record and unreadable job. */
final class SweepText {

    private SweepText() {}

    static void print(PrintWriter out, SweepReport report) {
        out.println("sweep " + report.time() + (report.dryRun() ? " (dry run: nothing changed)" : "") + ": "
                + report.nodesSeen() + " nodes, " + report.jobsSeen() + " jobs, " + report.status());
        for (SweepReport.Outcome action : report.actions()) {
            out.println("  " + action.result() + ": " + action.kind() + " " + action.target() + ": " + action.why()
                    + (action.command().isEmpty() ? "" : " [" + action.command() + "]")
                    + (action.message().isEmpty() ? "" : " -> " + action.message()));
        }
        for (SweepReport.HeldBack held : report.heldBack()) {
            out.println("  held back: " + held.kind() + " " + held.target() + ": " + held.why() + " ("
                    + held.heldBecause() + ")");
        }
        for (SweepPlan.Finding finding : report.findings()) {
            out.println("  report: " + finding.kind() + " " + finding.node() + ": " + finding.why());
        }
        for (SweepPlan.LeftoverJob leftover : report.leftoverJobs()) {
            out.println("  report: " + leftover.kind() + " job " + leftover.jobId() + " (user " + leftover.user() + ", "
                    + leftover.state() + "): "
                    + leftover.why().replace("\n", "\\n").replace("\r", "\\r"));
        }
        for (var unreadable : report.unreadableJobs()) {
            // The problem quotes a user's job name: print it on one line, never as lines of its own.
            out.println("  unreadable job record " + (unreadable.jobId().isEmpty() ? "(no job id)" : unreadable.jobId())
                    + ": " + unreadable.problem().replace("\n", "\\n").replace("\r", "\\r"));
        }
    }
}
