package org.slurmautoresume.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.slurmautoresume.slurm.model.InvalidJobIdException;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "history",
        mixinStandardHelpOptions = true,
        description = {
            "Show a job's auto-resume timeline: each launch, detection (log rule, silent slurmd), how each attempt"
                    + " ended, the restart policy's decisions, dumps, replacements, requeues, with their latencies.",
            "",
            "Supervisors write it to autoresume-events-USER-JOBID.jsonl in the user's own state directory on the"
                    + " job's batch host ($XDG_RUNTIME_DIR/autoresume when that is the user's, else"
                    + " ${TMPDIR:-/tmp}/autoresume-UID), one JSON object a line; run this there (or point --state-dir at"
                    + " a copy). LATENCY is, for a"
                    + " detection, the time since the last matching line (or the start); for a replacement, since the"
                    + " step ended; for a launch, since the attempt before it ended; for a dump, how long the step took"
                    + " to end after the signal."
        })
final class HistoryCommand implements Callable<Integer> {

    private final CliContext context;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "JOBID", description = "The job id.")
    private String jobId;

    @Option(names = "--user", paramLabel = "USER", description = "Whose job (default: $USER).")
    private String user;

    @Option(
            names = "--state-dir",
            paramLabel = "DIR",
            description = "Where the supervisor kept its state"
                    + " (default: your own state directory, as the supervisor chooses it).")
    private Path stateDir;

    @Option(names = "--json", description = "Print the events as a JSON list with stable field names.")
    private boolean json;

    HistoryCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        // The id names a file: nothing but Slurm's own syntax may reach the path.
        try {
            jobId = JobId.parse(jobId).toString();
        } catch (InvalidJobIdException e) {
            throw new CliException(ExitCode.USAGE, "JOBID must be a job id such as 1234: " + e.getMessage());
        }
        String who = user != null ? user : context.env("USER").orElse(System.getProperty("user.name"));
        Path file = TimelineFile.of(context, stateDir, who, jobId);
        if (!Files.exists(file)) {
            throw new CliException(
                    ExitCode.NOT_FOUND,
                    "no auto-resume history for job " + jobId + " of " + who + ": " + file
                            + " does not exist (run this on the job's batch host, or use --state-dir/--user)");
        }
        PrintWriter out = spec.commandLine().getOut();
        List<EventHistory.Event> events =
                TimelineFile.read(file, spec.commandLine().getErr());
        if (json) {
            List<Map<String, Object>> docs = new ArrayList<>();
            for (EventHistory.Event event : events) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("at", event.at().toString());
                doc.put("event", event.event());
                doc.put("jobId", event.jobId());
                doc.put("attempt", event.attempt());
                doc.put("stepId", event.stepId());
                doc.put(
                        "latencyMs",
                        event.latencyMs().isPresent() ? event.latencyMs().getAsLong() : null);
                doc.put("details", event.details());
                docs.add(doc);
            }
            out.println(Json.write(docs));
        } else if (events.isEmpty()) {
            out.println("no events recorded for job " + jobId);
        } else {
            Instant first = events.get(0).at();
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"TIME", "+S", "ATTEMPT", "STEP", "EVENT", "LATENCY", "DETAILS"});
            for (EventHistory.Event event : events) {
                rows.add(new String[] {
                    event.at().toString(),
                    seconds(Duration.between(first, event.at())),
                    Integer.toString(event.attempt()),
                    event.stepId() == null ? "-" : event.stepId(),
                    event.event(),
                    event.latencyMs().isPresent() ? event.latencyMs().getAsLong() + " ms" : "-",
                    event.details().entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(" "))
                });
            }
            Table.print(out, rows);
        }
        out.flush();
        return ExitCode.OK.code();
    }

    private static String seconds(Duration since) {
        return String.format(java.util.Locale.ROOT, "%.3f", since.toMillis() / 1000.0);
    }
}
