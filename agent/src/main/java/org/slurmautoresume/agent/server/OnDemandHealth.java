package org.slurmautoresume.agent.server;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.nodeops.health.HealthChecks;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.nodeops.sweep.CommandNodeHealth;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.model.Node;

/**
 * The site's health command ({@code autoresume agent --health-command}) as the agent runs it for
 * callers: any user whose job holds a node may ask ({@code diagnose}, {@code mark}), and root
 * runs the command, which may probe GPUs on a node that other users' jobs share. So:
 * <ul>
 *   <li>per node, the command runs at most once at a time, and its verdict answers everyone who
 *       asks while it runs or within {@code reuse} after it ended ({@link SharedRound}): however
 *       many ask, a node sees one run per run time plus {@code reuse};</li>
 *   <li>the command is told that a request asked for it ({@value #ENVIRONMENT}={@value #ON_REQUEST}
 *       in its environment), so that it leaves out checks that disturb jobs (DCGM's diagnostic,
 *       CPU stress): {@code autoresume health} does;</li>
 *   <li>callers get a verdict, not the command's output: healthy or not, the action, how the
 *       command ended ({@code exited 8}) and its program's name, in printable ASCII and at most
 *       {@value #MAX_DETAIL} characters. What it printed can name other users' processes (an Xid
 *       line names the process that faulted) or the site's internals; it goes to the agent's
 *       own log, for the operator.</li>
 * </ul>
 * One entry per node name asked about; only nodes Slurm knows, of the caller's own job, reach
 * here (the policy checks first), so the map is bounded by the cluster.
 */
public final class OnDemandHealth implements NodeHealth {

    private static final Logger LOG = LoggerFactory.getLogger(OnDemandHealth.class);
    /** The variable that tells the site's command who asked, and its value for a request. */
    public static final String ENVIRONMENT = HealthChecks.ON_REQUEST_VARIABLE;

    public static final String ON_REQUEST = HealthChecks.ON_REQUEST;
    /** How long one run's verdict answers later askers about the node, unless the agent is told otherwise. */
    public static final Duration DEFAULT_REUSE = Duration.ofSeconds(10);
    /** The most a caller reads of a verdict's detail. */
    static final int MAX_DETAIL = 160;
    /** The most of each output stream the agent's log keeps per run: its end, which says what failed. */
    static final int LOGGED_OUTPUT = 16 * 1024;

    private final CommandNodeHealth command;
    private final Duration reuse;
    private final LongSupplier nanoClock;
    private final Map<String, SharedRound<Verdict>> rounds = new ConcurrentHashMap<>();

    OnDemandHealth(CommandNodeHealth command, Duration reuse, LongSupplier nanoClock) {
        this.command = Objects.requireNonNull(command);
        this.reuse = Objects.requireNonNull(reuse);
        this.nanoClock = Objects.requireNonNull(nanoClock);
        if (reuse.isNegative()) {
            throw new IllegalArgumentException("the reuse time must not be negative: " + reuse);
        }
    }

    /**
     * The site's command {@code argv} ({@code {node}} replaced by the node's name), killed after
     * {@code timeout}, run with {@value #ENVIRONMENT}={@value #ON_REQUEST} and shared for {@code reuse}.
     */
    public static OnDemandHealth of(CommandRunner runner, List<String> argv, Duration timeout, Duration reuse) {
        return of(runner, argv, timeout, reuse, System::nanoTime);
    }

    static OnDemandHealth of(
            CommandRunner runner, List<String> argv, Duration timeout, Duration reuse, LongSupplier nanoClock) {
        return new OnDemandHealth(
                new CommandNodeHealth(runner, argv, timeout, Map.of(ENVIRONMENT, ON_REQUEST)), reuse, nanoClock);
    }

    /**
     * The verdict of the run under way or of the last one within the reuse time, else of a new
     * run made by this caller's thread while later askers wait for it. A run that broke (a bug,
     * not a failed check: those are verdicts) is an {@link IllegalStateException} for every
     * asker it answers, saying no more than that the agent's log has it.
     */
    @Override
    public Verdict check(Node node) {
        SharedRound<Verdict> round = rounds.computeIfAbsent(node.name(), n -> new SharedRound<>(reuse, nanoClock));
        try {
            return round.ask(Runnable::run, () -> runOnce(node)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the site health check of " + node.name(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "the site health check of " + node.name() + " could not be run (the" + " agent's log says why)");
        }
    }

    private Verdict runOnce(Node node) {
        CommandNodeHealth.Run run;
        try {
            run = command.run(node);
        } catch (RuntimeException e) {
            LOG.error("the site health check of {} broke", node.name(), e);
            throw e;
        }
        Map<String, Object> output = new LinkedHashMap<>();
        output.put("stdout", tail(run.stdout()));
        output.put("stderr", tail(run.stderr()));
        // One line, every byte of the output escaped as a JSON string: it cannot forge lines of the log.
        String printed = AgentJson.line(output);
        if (run.verdict().healthy()) {
            LOG.info("site health check of {}: {}, healthy; output {}", node.name(), run.ended(), printed);
        } else {
            LOG.warn(
                    "site health check of {}: {}, unhealthy ({}); output {}",
                    node.name(),
                    run.ended(),
                    run.verdict().action(),
                    printed);
        }
        return forCallers(run);
    }

    /** The verdict as callers read it: the command's outcome in our own words, none of its output. */
    static Verdict forCallers(CommandNodeHealth.Run run) {
        String program = run.program().substring(run.program().lastIndexOf('/') + 1);
        String detail =
                printable("`" + program + "` " + run.ended() + " (what it printed is in the agent's log)", MAX_DETAIL);
        return new Verdict(run.verdict().healthy(), run.verdict().action(), detail);
    }

    /**
     * {@code text} as one line of printable ASCII: every other character, and every run of
     * them, becomes one space; cut to {@code max} characters with "..." where longer.
     */
    static String printable(String text, int max) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), max + 1));
        boolean gap = false;
        for (int i = 0; i < text.length() && out.length() <= max; i++) {
            char c = text.charAt(i);
            if (c >= 0x21 && c <= 0x7e) {
                if (gap && out.length() > 0) {
                    out.append(' ');
                }
                out.append(c);
                gap = false;
            } else {
                gap = true;
            }
        }
        return out.length() <= max ? out.toString() : out.substring(0, max - 3) + "...";
    }

    private static String tail(String text) {
        return text.length() <= LOGGED_OUTPUT ? text : "..." + text.substring(text.length() - LOGGED_OUTPUT);
    }
}
