package org.slurmautoresume.slurm.client;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.exec.DebugLogging;
import org.slurmautoresume.slurm.exec.RetryPolicy;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.hostlist.HostlistException;
import org.slurmautoresume.slurm.model.InvalidJobIdException;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.JobListing;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeEvent;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.model.SlurmVersion;
import org.slurmautoresume.slurm.model.Step;
import org.slurmautoresume.slurm.parse.NodeEventParser;
import org.slurmautoresume.slurm.parse.ParseException;

/**
 * Read-only queries of the Slurm controller through {@code scontrol}. The runner passed in
 * decides retries (wrap it in a {@link org.slurmautoresume.slurm.exec.RetryingCommandRunner}).
 *
 * <p>Nodes, jobs and steps are read from {@code scontrol --json} where the format says so
 * ({@link OutputFormat}), else from {@code scontrol -o}; both give the same model values.
 * Nodes are read from the text on releases whose JSON cannot name every state flag (24.05 to
 * 25.05: BLOCKED, EXTERNAL), which is found from their first JSON answer. A
 * JSON answer that holds no records, or fails for a reason other than an unreachable
 * controller, is asked again as text: scontrol 23.11 and later print an empty list and exit 0
 * when the lookup itself failed (an unknown job, say), so only the text answer tells "not
 * found" from other errors.
 */
public final class SlurmClient {

    /**
     * Looked up when first used, not when the class loads: a supervised step that ends well
     * never starts the logging framework (about a quarter of the classes a start-up loads).
     */
    private static Logger log() {
        return LoggerFactory.getLogger(SlurmClient.class);
    }

    private final CommandRunner runner;
    private final String scontrol;
    private final Duration timeout;
    /** Set by the first JSON node answer that cannot name every state flag: nodes are read as text from then on. */
    private volatile boolean nodesInText;
    /** TEXT or JSON once known; null while AUTO has not asked scontrol's version yet. */
    private volatile OutputFormat resolvedFormat;

    private final ScontrolParsers parsers;

    public SlurmClient(CommandRunner runner) {
        this(runner, OutputFormat.AUTO);
    }

    public SlurmClient(CommandRunner runner, OutputFormat format) {
        this(runner, "scontrol", Duration.ofSeconds(30), format);
    }

    public SlurmClient(CommandRunner runner, String scontrolPath, Duration timeout) {
        this(runner, scontrolPath, timeout, OutputFormat.AUTO);
    }

    public SlurmClient(CommandRunner runner, String scontrolPath, Duration timeout, OutputFormat format) {
        this(runner, scontrolPath, timeout, format, ZoneId::systemDefault);
    }

    /** {@code zone}: where JSON's epoch seconds are read, as the text's local times are (tests). */
    SlurmClient(CommandRunner runner, String scontrolPath, Duration timeout, OutputFormat format, ZoneId zone) {
        this(runner, scontrolPath, timeout, format, () -> zone);
        Objects.requireNonNull(zone);
    }

    /** {@code zone}: asked once, on the first JSON answer (tests count the asking). */
    SlurmClient(
            CommandRunner runner, String scontrolPath, Duration timeout, OutputFormat format, Supplier<ZoneId> zone) {
        this.runner = Objects.requireNonNull(runner);
        this.scontrol = Objects.requireNonNull(scontrolPath);
        this.timeout = Objects.requireNonNull(timeout);
        this.resolvedFormat = Objects.requireNonNull(format) == OutputFormat.AUTO ? null : format;
        this.parsers = new ScontrolParsers(zone);
    }

    /**
     * TEXT or JSON: the format queries use. AUTO asks {@code scontrol --version} the first time
     * and keeps the answer; when the version cannot be read it uses text this time and asks again
     * next time (text works with every release, and the query will report what is wrong).
     */
    private boolean versionUnreadableTold;

    public OutputFormat outputFormat() {
        OutputFormat format = resolvedFormat;
        if (format != null) {
            return format;
        }
        synchronized (this) {
            if (resolvedFormat == null) {
                SlurmVersion version;
                try {
                    version = version();
                } catch (SlurmException e) {
                    // Told once per client: a long-lived caller (the agent's GPU checks) asks again
                    // at every query, and a node without Slurm's client would log it every time.
                    if (!versionUnreadableTold) {
                        versionUnreadableTold = true;
                        log().warn(
                                        "could not read Slurm's version ({}); reading scontrol's text output",
                                        e.getMessage());
                    } else {
                        DebugLogging.debug(
                                SlurmClient.class, "could not read Slurm's version again ({})", e.getMessage());
                    }
                    return OutputFormat.TEXT;
                }
                resolvedFormat = version.atLeast(SlurmVersion.FIRST_WITH_JSON) ? OutputFormat.JSON : OutputFormat.TEXT;
                DebugLogging.debug(
                        SlurmClient.class, "Slurm {}: reading scontrol's {} output", version, resolvedFormat);
            }
            return resolvedFormat;
        }
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
        return nodesFromJson(List.of("show", "node"), "list nodes")
                .orElseGet(() -> ScontrolParsers.parse(
                        () -> parsers.nodeText().parseAll(scontrol(List.of("-o", "show", "node"), "list nodes"))));
    }

    /**
     * The nodes named by a hostlist expression, in the controller's order; unknown names are
     * NOT_FOUND; a malformed or oversized expression is a {@link HostlistException}.
     */
    public List<Node> nodes(String hostlist) {
        long wanted = requireValidHostlist(hostlist);
        Optional<List<Node>> fromJson = nodesFromJson(List.of("show", "node", hostlist), "show nodes " + hostlist);
        // JSON leaves unknown names out; the text names them, which makes the answer NOT_FOUND.
        if (fromJson.isPresent() && fromJson.get().size() >= wanted) {
            return fromJson.get();
        }
        CommandResult result = run(List.of("-o", "show", "node", hostlist));
        if (!result.succeeded()) {
            if (ScontrolAnswers.mentionsNotFound(result)) {
                throw new SlurmException(
                        SlurmException.Kind.NOT_FOUND, "no such node in " + hostlist + ": " + result.diagnosticTail());
            }
            throw ScontrolAnswers.failure(result, "show nodes " + hostlist);
        }
        return ScontrolParsers.parse(() -> parsers.nodeText().parseAll(result.stdout()));
    }

    /** Records as {@code scontrol -o show node} printed them, to someone else (the launcher reads ahead). */
    public List<Node> nodesFromText(String text) {
        return ScontrolParsers.parse(() -> parsers.nodeText().parseAll(text));
    }

    public Optional<Node> node(String name) {
        if (!Hostlist.isValidHostname(name)) {
            throw new SlurmException(SlurmException.Kind.NOT_FOUND, "not a valid node name: \"" + name + "\"");
        }
        List<String> args = List.of("show", "node", name);
        return query(
                        args,
                        "show node " + name,
                        () -> nodesFromJson(args, "show node " + name),
                        parsers.nodeText()::parseAll,
                        ScontrolAnswers::mentionsNotFound)
                .flatMap(nodes -> named(nodes, name));
    }

    /**
     * The node called {@code name} among {@code nodes}. A loop, not a stream's findFirst: that
     * spins the JDK's find lambdas at the first call, which health --mark paid on every node.
     */
    private static Optional<Node> named(List<Node> nodes, String name) {
        for (Node node : nodes) {
            if (node.name().equals(name)) {
                return Optional.of(node);
            }
        }
        return Optional.empty();
    }

    /**
     * Every job the controller still holds (running, pending, and finished within MinJobAge).
     * {@code scontrol -o show job} prints "No jobs in the system" (exit 0) when there are none.
     */
    public List<Job> jobs() {
        return json(
                        List.of("show", "job"),
                        "list jobs",
                        text -> parsers.json().jobs().parseAll(text))
                .orElseGet(() -> {
                    String out = scontrol(List.of("-o", "show", "job"), "list jobs");
                    if (out.strip().startsWith("No jobs in the system")) {
                        return List.of();
                    }
                    return ScontrolParsers.parse(() -> parsers.jobText().parseAll(out));
                });
    }

    /**
     * Every job the controller holds and every record it printed that could not be read (a
     * user's line break in a name, see {@link JobListing}), so one job cannot hide the others.
     */
    public JobListing readJobs() {
        Optional<List<Job>> fromJson = json(
                List.of("show", "job"),
                "list jobs",
                text -> parsers.json().jobs().parseAll(text));
        if (fromJson.isPresent()) {
            return new JobListing(fromJson.get(), List.of());
        }
        String out = scontrol(List.of("-o", "show", "job"), "list jobs");
        if (out.strip().startsWith("No jobs in the system")) {
            return new JobListing(List.of(), List.of());
        }
        return parsers.jobText().readAll(out);
    }

    /**
     * The job ids slurmctld holds, as {@code squeue -h -a -t all -o %A} (next to scontrol) lists
     * them: ids alone, no user text, so no job attribute can add one. Empty when squeue cannot
     * be run or prints anything but ids.
     */
    public Optional<java.util.Set<String>> listedJobIds() {
        try {
            CommandResult result = run(beside("squeue"), List.of("-h", "-a", "-t", "all", "-o", "%A"));
            if (!result.succeeded()) {
                return Optional.empty();
            }
            List<String> ids = result.stdout()
                    .lines()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty())
                    .toList();
            return ids.stream().allMatch(id -> id.matches("[0-9]{1,10}"))
                    ? Optional.of(java.util.Set.copyOf(ids))
                    : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The job states in which a job holds its nodes: {@link org.slurmautoresume.slurm.model.JobState#isActive}'s. */
    private static final String ACTIVE_STATES =
            "RUNNING,SUSPENDED,COMPLETING,CONFIGURING,RESIZING,SIGNALING," + "STAGE_OUT,STOPPED";

    /**
     * The ids of the jobs that hold {@code node} now ({@code squeue -h -a -w NODE -t <active> -o %A}):
     * ids alone, so nothing a user put into a job (a name with a line break, a comment) can add,
     * hide or spoil an entry, and no record of another job is read to answer. Throws when squeue
     * cannot say (not run, failed, or printed anything but ids): the caller decides how to fail.
     */
    public java.util.Set<String> activeJobIdsOn(String node) {
        requireValidHostlist(node);
        if (Hostlist.count(node) != 1) {
            throw new IllegalArgumentException("one node name expected, not \"" + node + "\"");
        }
        CommandResult result = run(beside("squeue"), List.of("-h", "-a", "-w", node, "-t", ACTIVE_STATES, "-o", "%A"));
        if (!result.succeeded()) {
            throw ScontrolAnswers.failure(result, "list the jobs on " + node);
        }
        List<String> ids = result.stdout()
                .lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty())
                .toList();
        if (!ids.stream().allMatch(id -> id.matches("[0-9]{1,10}"))) {
            String first = ids.stream()
                    .filter(id -> !id.matches("[0-9]{1,10}"))
                    .findFirst()
                    .orElse("");
            throw new SlurmException(
                    SlurmException.Kind.BAD_OUTPUT,
                    "squeue listed the jobs on " + node
                            + " with a line that is not a job id: \""
                            + first.codePoints()
                                    .limit(60)
                                    .map(c -> c < 0x20 || c == 0x7f ? '?' : c)
                                    .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                            + "\"");
        }
        return java.util.Set.copyOf(ids);
    }

    /**
     * The node state changes Slurm's accounting recorded for {@code hostlist} since {@code since}
     * ({@code sacctmgr -n -P show event event=node nodes=... start=...}), oldest first. Needs
     * accounting through slurmdbd; throws a {@link SlurmException} when sacctmgr cannot answer,
     * so that the caller decides what a missing history means.
     */
    public List<NodeEvent> nodeEvents(String hostlist, LocalDateTime since) {
        requireValidHostlist(hostlist);
        CommandResult result = run(
                beside("sacctmgr"),
                List.of(
                        "-n",
                        "-P",
                        "show",
                        "event",
                        "event=node",
                        "nodes=" + hostlist,
                        "start=" + since.withNano(0),
                        "format=" + NodeEventParser.FORMAT));
        if (!result.succeeded()) {
            throw ScontrolAnswers.failure(result, "read the node events of " + hostlist + " from Slurm's accounting");
        }
        try {
            List<NodeEvent> events = new ArrayList<>(NodeEventParser.parse(result.stdout()));
            events.sort(java.util.Comparator.comparing(NodeEvent::start));
            return events;
        } catch (ParseException e) {
            throw new SlurmException(SlurmException.Kind.BAD_OUTPUT, e.getMessage(), e);
        }
    }

    /**
     * The ids of the jobs Slurm's accounting shows on {@code node} at {@code time}
     * ({@code sacct -a -X -n -P -N NODE -S T -E T -o JobID}): ids alone, no user text. Empty when
     * sacct cannot say; this only tells a person which job a node failed under.
     */
    public List<String> jobIdsOnNodeAt(String node, LocalDateTime time) {
        requireValidHostlist(node);
        try {
            String at = time.withNano(0).toString();
            CommandResult result = run(
                    beside("sacct"), List.of("-a", "-X", "-n", "-P", "-N", node, "-S", at, "-E", at, "-o", "JobID"));
            if (!result.succeeded()) {
                return List.of();
            }
            return result.stdout()
                    .lines()
                    .map(String::strip)
                    .filter(id -> id.matches("[0-9]{1,10}(_[0-9]{1,10})?(\\+[0-9]{1,4})?"))
                    .distinct()
                    .toList();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /** A Slurm client program in scontrol's directory (or on PATH when scontrol is named bare). */
    private String beside(String program) {
        int slash = scontrol.lastIndexOf('/');
        return (slash < 0 ? "" : scontrol.substring(0, slash + 1)) + program;
    }

    /** Whether queries read scontrol's text (no {@code --json}): its listing needs {@link #listedJobIds()}. */
    public boolean readsText() {
        return outputFormat() == OutputFormat.TEXT;
    }

    /** The job; text that is not a {@link JobId} is a NOT_FOUND {@link SlurmException} quoting it. */
    public Optional<Job> job(String jobId) {
        return job(requireJobId(jobId));
    }

    public Optional<Job> job(JobId jobId) {
        String id = jobId.toString();
        List<String> args = List.of("show", "job", id);
        return query(
                        args,
                        "show job " + id,
                        () -> json(
                                args,
                                "show job " + id,
                                text -> parsers.json().jobs().parseAll(text)),
                        parsers.jobText()::parseAll,
                        ScontrolAnswers::mentionsInvalidJob)
                .flatMap(jobs -> JobAnswer.onlyRecordOf(id, jobs));
    }

    /** The job, or a NOT_FOUND {@link SlurmException} that names it. */
    public Job requireJob(String jobId) {
        return requireJob(requireJobId(jobId));
    }

    public Job requireJob(JobId jobId) {
        return job(jobId)
                .orElseThrow(() -> new SlurmException(
                        SlurmException.Kind.NOT_FOUND,
                        "job " + jobId + " is not known to Slurm (finished long ago, or never existed)"));
    }

    /** The job's steps; empty when it has none or it is not known. */
    public List<Step> steps(String jobId) {
        return steps(requireJobId(jobId));
    }

    public List<Step> steps(JobId jobId) {
        String id = jobId.toString();
        List<String> args = List.of("show", "step", id);
        return query(
                        args,
                        "show steps of " + id,
                        () -> json(
                                args,
                                "show steps of " + id,
                                text -> parsers.json().steps().parseAll(text)),
                        parsers.stepText()::parseAll,
                        r -> ScontrolAnswers.mentionsInvalidJob(r) || ScontrolAnswers.mentionsNoStepOf(r, id))
                .orElse(List.of());
    }

    public SlurmConfig config() {
        return ScontrolParsers.parse(
                () -> parsers.configText().parse(scontrol(List.of("show", "config"), "read the Slurm configuration")));
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

    /**
     * The records of {@code scontrol [--json|-o] ARGS}: JSON when in use and it found some, else
     * the text, whose error message tells "does not exist" (empty) from a failure (thrown).
     */
    private <T> Optional<List<T>> query(
            List<String> args,
            String purpose,
            Supplier<Optional<List<T>>> jsonAnswer,
            Function<String, List<T>> textReader,
            Predicate<CommandResult> notFound) {
        Optional<List<T>> fromJson = jsonAnswer.get();
        if (fromJson.isPresent()) {
            return fromJson;
        }
        List<String> argv = new ArrayList<>(args.size() + 1);
        argv.add("-o");
        argv.addAll(args);
        CommandResult result = run(argv);
        if (!result.succeeded()) {
            if (notFound.test(result)) {
                return Optional.empty();
            }
            throw ScontrolAnswers.failure(result, purpose);
        }
        return Optional.of(ScontrolParsers.parse(() -> textReader.apply(result.stdout())));
    }

    /**
     * Nodes from {@code scontrol --json ARGS}, empty when the text should be asked: also, from
     * the first answer that could not name BLOCKED or EXTERNAL nodes on (24.05 to 25.05), for
     * the client's life, since a spare must not be taken from a node it cannot see is blocked.
     */
    private Optional<List<Node>> nodesFromJson(List<String> args, String purpose) {
        if (nodesInText) {
            return Optional.empty();
        }
        return json(
                args,
                purpose,
                text -> parsers.json().nodes().parseAllWithEveryFlag(text).orElseGet(() -> {
                    nodesInText = true;
                    DebugLogging.debug(
                            SlurmClient.class,
                            "this release's scontrol --json has no word for BLOCKED or EXTERNAL"
                                    + " nodes: reading nodes from its text");
                    return List.of();
                }));
    }

    /**
     * The records of {@code scontrol --json ARGS} when JSON is in use and answered with some;
     * empty when the text should be asked instead. Unreadable JSON is BAD_OUTPUT, an
     * unreachable controller or a timeout fails at once (the text would only wait again).
     */
    private <T> Optional<List<T>> json(List<String> args, String purpose, Function<String, List<T>> reader) {
        if (outputFormat() != OutputFormat.JSON) {
            return Optional.empty();
        }
        List<String> argv = new ArrayList<>(args.size() + 1);
        argv.add("--json");
        argv.addAll(args);
        CommandResult result = run(argv);
        if (result.timedOut() || RetryPolicy.DEFAULT.isTransient(result)) {
            throw ScontrolAnswers.failure(result, purpose);
        }
        if (!result.succeeded() || result.stdout().isBlank()) {
            return Optional.empty();
        }
        List<T> records = ScontrolParsers.parse(() -> reader.apply(result.stdout()));
        return records.isEmpty() ? Optional.empty() : Optional.of(records);
    }

    private String scontrol(List<String> args, String purpose) {
        CommandResult result = run(args);
        if (!result.succeeded()) {
            throw ScontrolAnswers.failure(result, purpose);
        }
        return result.stdout();
    }

    private CommandResult run(List<String> args) {
        return run(scontrol, args);
    }

    /** {@code program} (scontrol, or a Slurm client beside it) with {@code args}, within the client's timeout. */
    private CommandResult run(String program, List<String> args) {
        List<String> argv = new ArrayList<>(args.size() + 1);
        argv.add(program);
        argv.addAll(args);
        CommandRequest request = new CommandRequest(argv, timeout, java.util.Map.of());
        try {
            return Objects.requireNonNull(runner.run(request), "the command runner returned no result");
        } catch (CommandException e) {
            throw new SlurmException(
                    SlurmException.Kind.UNAVAILABLE,
                    "cannot run " + program + ": is Slurm's client (slurm-client) installed and on PATH?",
                    e);
        }
    }

    private static JobId requireJobId(String jobId) {
        try {
            return JobId.parse(jobId);
        } catch (InvalidJobIdException e) {
            throw new SlurmException(SlurmException.Kind.NOT_FOUND, e.getMessage(), e);
        }
    }

    /**
     * The number of names in the expression; throws {@link HostlistException} (bad input, not a
     * Slurm error) before scontrol sees it.
     */
    private static long requireValidHostlist(String hostlist) {
        return Hostlist.count(hostlist);
    }
}
