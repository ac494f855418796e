package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.Goodput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "job",
        mixinStandardHelpOptions = true,
        description = {
            "Show a job as the toolkit sees it: state, nodes, batch host, restarts, its steps, and its goodput.",
            "",
            "Goodput is worked out from the job's auto-resume timeline (see `autoresume history`), so it is shown"
                    + " where that is: on the job's batch host, or with --state-dir. Productive time is work the job"
                    + " kept; lost time is split into detection (last sign of health to detection), recovery"
                    + " (detection to the next launch), restart (launch to the first heartbeat or new checkpoint)"
                    + " and redone (newest complete checkpoint to the last sign of health). Time no heartbeat or"
                    + " checkpoint rule could split is shown as not attributed, and the goodput as a range."
        })
final class JobCommand implements Callable<Integer> {

    private static final long POLL_MILLIS = 500;

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ID", description = "Job id.")
    private String jobId;

    @Option(names = "--json", description = "Print JSON with stable field names.")
    private boolean json;

    @Option(
            names = "--wait",
            description = "Wait until the job has finished, then show it; exit 0 only if it" + " COMPLETED, else 1.")
    private boolean waitForEnd;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            defaultValue = "600",
            description = "With --wait: give up after this long (exit 6). Default: ${DEFAULT-VALUE}.")
    private int timeoutSeconds;

    @Option(
            names = "--state-dir",
            paramLabel = "DIR",
            description = "Where the job's supervisors kept its timeline, for its goodput"
                    + " (default: your own state directory, as the supervisor chooses it).")
    private Path stateDir;

    JobCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        JobId id = JobIdOption.parse(jobId, "ID");
        SlurmClient slurm = context.slurm();
        Job job = waitForEnd ? awaitEnd(slurm, id) : slurm.requireJob(id);
        List<Step> steps = job.state().isActive() ? slurm.steps(id) : List.of();
        PrintWriter out = spec.commandLine().getOut();
        Goodput goodput = null;
        String noGoodput = null;
        try {
            Path file = TimelineFile.of(context, stateDir, job.userName(), id.toString());
            if (Files.exists(file)) {
                List<EventHistory.Event> events =
                        TimelineFile.read(file, spec.commandLine().getErr());
                // What still runs counts up to now; an ended job's time ends with its last event.
                Instant until = job.state().isActive() || events.isEmpty()
                        ? Instant.now()
                        : events.get(events.size() - 1).at();
                goodput = Goodput.of(events, until, false);
            } else {
                noGoodput = "no auto-resume timeline here: " + file;
            }
        } catch (CliException e) {
            noGoodput = e.getMessage();
        }
        if (json) {
            Map<String, Object> doc = jobFields(job);
            List<Map<String, Object>> stepDocs = new ArrayList<>();
            for (Step step : steps) {
                Map<String, Object> s = new LinkedHashMap<>();
                s.put("stepId", step.fullId());
                s.put("name", step.name());
                s.put("state", step.state());
                s.put("nodeList", step.nodeList());
                s.put("numNodes", step.numNodes().isPresent() ? step.numNodes().getAsInt() : null);
                s.put("numTasks", step.numTasks().isPresent() ? step.numTasks().getAsInt() : null);
                stepDocs.add(s);
            }
            doc.put("steps", stepDocs);
            doc.put("goodput", goodput == null ? null : GoodputView.json(goodput));
            out.println(Json.write(doc));
        } else {
            List<String[]> rows = new ArrayList<>();
            for (Map.Entry<String, Object> field : jobFields(job).entrySet()) {
                rows.add(new String[] {
                    field.getKey(),
                    field.getValue() == null ? "-" : field.getValue().toString()
                });
            }
            rows.addAll(goodput == null ? GoodputView.unknown(noGoodput) : GoodputView.rows(goodput));
            Table.print(out, rows);
            for (Step step : steps) {
                out.println(
                        "step " + step.fullId() + "  " + step.state() + "  " + step.nodeList() + "  " + step.name());
            }
        }
        out.flush();
        if (waitForEnd && job.state() != JobState.COMPLETED) {
            return ExitCode.FAILED.code();
        }
        return ExitCode.OK.code();
    }

    private Job awaitEnd(SlurmClient slurm, JobId jobId) {
        if (timeoutSeconds <= 0) {
            throw new CliException(ExitCode.USAGE, "--timeout must be positive: " + timeoutSeconds);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            Job job = slurm.requireJob(jobId);
            if (job.state().isFinished()) {
                return job;
            }
            if (System.nanoTime() > deadline) {
                throw new CliException(
                        ExitCode.TIMEOUT,
                        "job " + jobId + " is still " + job.state() + " after " + timeoutSeconds + " s");
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException(ExitCode.FAILED, "interrupted while waiting for job " + jobId);
            }
        }
    }

    private static Map<String, Object> jobFields(Job job) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("jobId", job.jobId());
        doc.put("name", job.name());
        doc.put("user", job.userName());
        doc.put("state", job.state().name());
        doc.put("reason", job.reason());
        doc.put("nodeList", job.nodeList());
        doc.put("numNodes", job.numNodes());
        doc.put("batchHost", job.batchHost().orElse(null));
        doc.put("excludedNodes", job.excludedNodes());
        doc.put("partition", job.partition());
        doc.put("restarts", job.restarts());
        doc.put("requeue", job.requeue());
        doc.put(
                "exitCode",
                job.exitCode().map(e -> e.status() + ":" + e.signal()).orElse(null));
        doc.put("startTime", job.startTime().map(Object::toString).orElse(null));
        doc.put("endTime", job.endTime().map(Object::toString).orElse(null));
        return doc;
    }
}
