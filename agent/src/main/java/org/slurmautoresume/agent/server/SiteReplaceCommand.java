package org.slurmautoresume.agent.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;

/**
 * The site's own way of replacing a node (a cloud API that swaps the instance, a ticket to the
 * data centre), configured by the administrator on the agent and never by a job: the program
 * runs as root with the node name as its last argument. It runs in the background, one at a
 * time per node, because a replacement takes minutes; the supervisor meanwhile waits for the
 * node to register again under its name.
 */
public final class SiteReplaceCommand {

    private static final Logger LOG = LoggerFactory.getLogger(SiteReplaceCommand.class);

    private final Path program;
    private final Duration timeout;
    private final CommandRunner runner;
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "site-replace");
        thread.setDaemon(true);
        return thread;
    });
    private final Set<String> running = ConcurrentHashMap.newKeySet();

    public SiteReplaceCommand(Path program, Duration timeout, CommandRunner runner) {
        this.program = Objects.requireNonNull(program);
        this.timeout = Objects.requireNonNull(timeout);
        this.runner = Objects.requireNonNull(runner);
        if (!program.isAbsolute() || !Files.isExecutable(program)) {
            throw new IllegalArgumentException(
                    "the replace command must be an absolute path to an executable: " + program);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the replace command's timeout must be positive: " + timeout);
        }
    }

    /** Starts the command for one (validated) node; says what it did. */
    public String start(String node) {
        if (!running.add(node)) {
            return "the replace command for " + node + " is already running";
        }
        List<String> argv = new ArrayList<>(List.of(program.toString(), node));
        CommandRequest request = new CommandRequest(argv, timeout, Map.of());
        background.execute(() -> {
            try {
                CommandResult result = runner.run(request);
                if (result.succeeded()) {
                    LOG.info("replace command for {} finished: `{}`", node, request.display());
                } else {
                    LOG.warn(
                            "replace command for {} failed: {}",
                            node,
                            CommandException.failed(result).getMessage());
                }
            } catch (RuntimeException e) {
                LOG.warn("replace command for {} could not run: {}", node, e.getMessage());
            } finally {
                running.remove(node);
            }
        });
        return "started `" + request.display() + "` (at most " + timeout.toSeconds() + " s)";
    }
}
