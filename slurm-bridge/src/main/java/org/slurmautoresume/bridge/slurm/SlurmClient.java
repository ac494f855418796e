package org.slurmautoresume.bridge.slurm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.bridge.exec.CommandException;
import org.slurmautoresume.bridge.exec.CommandRequest;
import org.slurmautoresume.bridge.exec.CommandResult;
import org.slurmautoresume.bridge.exec.CommandRunner;
import org.slurmautoresume.bridge.exec.RetryPolicy;
import org.slurmautoresume.bridge.hostlist.Hostlist;
import org.slurmautoresume.bridge.hostlist.HostlistException;
import org.slurmautoresume.bridge.model.Job;
import org.slurmautoresume.bridge.model.Node;
import org.slurmautoresume.bridge.model.SlurmConfig;
import org.slurmautoresume.bridge.model.SlurmVersion;
import org.slurmautoresume.bridge.model.Step;
import org.slurmautoresume.bridge.parse.ConfigParser;
import org.slurmautoresume.bridge.parse.JobParser;
import org.slurmautoresume.bridge.parse.NodeParser;
import org.slurmautoresume.bridge.parse.ParseException;
import org.slurmautoresume.bridge.parse.StepParser;

/**
 * Read-only queries of the Slurm controller through {@code scontrol}. The runner passed in
 * decides retries (wrap it in a {@link org.slurmautoresume.bridge.exec.RetryingCommandRunner}).
 */
public final class SlurmClient {

    private final CommandRunner runner;
    private final String scontrol;
    private final Duration timeout;
    private final NodeParser nodeParser = new NodeParser();
    private final JobParser jobParser = new JobParser();
    private final StepParser stepParser = new StepParser();
    private final ConfigParser configParser = new ConfigParser();

    public SlurmClient(CommandRunner runner) {
        this(runner, "scontrol", Duration.ofSeconds(30));
    }

    public SlurmClient(CommandRunner runner, String scontrolPath, Duration timeout) {
        this.runner = Objects.requireNonNull(runner);
        this.scontrol = Objects.requireNonNull(scontrolPath);
        this.timeout = Objects.requireNonNull(timeout);
    }

    public SlurmVersion version() {
        String out = scontrol(List.of("--version"), "read Slurm's version");
        try {
            return SlurmVersion.parse(out);
        } catch (IllegalArgumentException e) {
            throw new SlurmException(SlurmException.Kind.BAD_OUTPUT, e.getMessage(), e);
        }
    }

    /** Every node the controller knows. */
    public List<Node> nodes() {
        return parse(() -> nodeParser.parseAll(scontrol(List.of("-o", "show", "node"), "list nodes")));
    }

    /**
     * The nodes named by a hostlist expression, in the controller's order; unknown names are
     * NOT_FOUND; a malformed or oversized expression is a {@link HostlistException}.
     */
    public List<Node> nodes(String hostlist) {
        requireValidHostlist(hostlist);
        CommandResult result = run(List.of("-o", "show", "node", hostlist));
        if (!result.succeeded()) {
            if (mentionsNotFound(result)) {
                throw new SlurmException(SlurmException.Kind.NOT_FOUND,
                        "no such node in " + hostlist + ": " + result.diagnosticTail());
            }
            throw failure(result, "show nodes " + hostlist);
        }
        return parse(() -> nodeParser.parseAll(result.stdout()));
    }

    public Optional<Node> node(String name) {
        if (!Hostlist.isValidHostname(name)) {
            throw new SlurmException(SlurmException.Kind.NOT_FOUND, "not a valid node name: \"" + name + "\"");
        }
        CommandResult result = run(List.of("-o", "show", "node", name));
        if (!result.succeeded()) {
            if (mentionsNotFound(result)) {
                return Optional.empty();
            }
            throw failure(result, "show node " + name);
        }
        List<Node> nodes = parse(() -> nodeParser.parseAll(result.stdout()));
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst();
    }

    public Optional<Job> job(String jobId) {
        requireJobId(jobId);
        CommandResult result = run(List.of("-o", "show", "job", jobId));
        if (!result.succeeded()) {
            if (mentionsInvalidJob(result)) {
                return Optional.empty();
            }
            throw failure(result, "show job " + jobId);
        }
        List<Job> jobs = parse(() -> jobParser.parseAll(result.stdout()));
        return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.get(0));
    }

    /** The job, or a NOT_FOUND {@link SlurmException} that names it. */
    public Job requireJob(String jobId) {
        return job(jobId).orElseThrow(() -> new SlurmException(SlurmException.Kind.NOT_FOUND,
                "job " + jobId + " is not known to Slurm (finished long ago, or never existed)"));
    }

    /** The job's steps; empty when it has none or it is not known. */
    public List<Step> steps(String jobId) {
        requireJobId(jobId);
        CommandResult result = run(List.of("-o", "show", "step", jobId));
        if (!result.succeeded()) {
            if (mentionsInvalidJob(result)) {
                return List.of();
            }
            throw failure(result, "show steps of " + jobId);
        }
        return parse(() -> stepParser.parseAll(result.stdout()));
    }

    public SlurmConfig config() {
        return parse(() -> configParser.parse(scontrol(List.of("show", "config"), "read the Slurm configuration")));
    }

    /** Slurm's own expansion, for cross-checks: {@code scontrol show hostnames}. */
    public List<String> hostnames(String hostlist) {
        String out = scontrol(List.of("show", "hostnames", hostlist), "expand " + hostlist);
        List<String> hosts = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isBlank()) {
                hosts.add(line.strip());
            }
        }
        return hosts;
    }

    private String scontrol(List<String> args, String purpose) {
        CommandResult result = run(args);
        if (!result.succeeded()) {
            throw failure(result, purpose);
        }
        return result.stdout();
    }

    private CommandResult run(List<String> args) {
        List<String> argv = new ArrayList<>(args.size() + 1);
        argv.add(scontrol);
        argv.addAll(args);
        CommandRequest request = new CommandRequest(argv, timeout, java.util.Map.of());
        try {
            return runner.run(request);
        } catch (CommandException e) {
            throw new SlurmException(SlurmException.Kind.UNAVAILABLE,
                    "cannot run " + scontrol + ": is Slurm's client (slurm-client) installed and on PATH?", e);
        }
    }

    private static SlurmException failure(CommandResult result, String purpose) {
        String message = "could not " + purpose + ": " + CommandException.failed(result).getMessage();
        if (result.timedOut()) {
            return new SlurmException(SlurmException.Kind.TIMEOUT, message);
        }
        if (RetryPolicy.DEFAULT.isTransient(result)) {
            return new SlurmException(SlurmException.Kind.UNAVAILABLE, message);
        }
        return new SlurmException(SlurmException.Kind.COMMAND_FAILED, message);
    }

    private static boolean mentionsInvalidJob(CommandResult result) {
        String text = result.stderr().toLowerCase(Locale.ROOT);
        return text.contains("invalid job id") || text.contains("job not found");
    }

    private static boolean mentionsNotFound(CommandResult result) {
        String text = (result.stderr() + result.stdout()).toLowerCase(Locale.ROOT);
        return text.contains("not found") || text.contains("invalid node name");
    }

    private static void requireJobId(String jobId) {
        // 123, 123_4 (array task), 123+1 (het component): digits and those separators only.
        if (jobId == null || !jobId.matches("[0-9]{1,10}([_+][0-9]{1,10})?")) {
            throw new SlurmException(SlurmException.Kind.NOT_FOUND, "not a valid job id: \"" + jobId + "\"");
        }
    }

    /** Throws {@link HostlistException} (bad input, not a Slurm error) before scontrol sees it. */
    private static void requireValidHostlist(String hostlist) {
        Hostlist.count(hostlist);
    }

    private interface ParseAction<T> {
        T parse();
    }

    private static <T> T parse(ParseAction<T> action) {
        try {
            return action.parse();
        } catch (ParseException e) {
            throw new SlurmException(SlurmException.Kind.BAD_OUTPUT,
                    "unexpected scontrol output: " + e.getMessage(), e);
        }
    }
}
