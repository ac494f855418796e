package org.slurmautoresume.slurm.exec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.commons.exec.CommandLine;
import org.apache.commons.exec.DefaultExecutor;
import org.apache.commons.exec.ExecuteException;
import org.apache.commons.exec.ExecuteWatchdog;
import org.apache.commons.exec.PumpStreamHandler;

/** Runs commands with Apache Commons Exec: argv as given, no shell, output captured in memory. */
public final class CommonsExecCommandRunner implements CommandRunner {

    @Override
    public CommandResult run(CommandRequest request) {
        return run(request, new Cancel());
    }

    @Override
    public CommandResult run(CommandRequest request, Cancel cancel) {
        CommandLine commandLine = new CommandLine(request.argv().get(0));
        for (String arg : request.argv().subList(1, request.argv().size())) {
            // handleQuoting=false: the argument reaches the program byte for byte.
            commandLine.addArgument(arg, false);
        }
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        ExecuteWatchdog watchdog =
                ExecuteWatchdog.builder().setTimeout(request.timeout()).get();
        DefaultExecutor executor = DefaultExecutor.builder().get();
        executor.setStreamHandler(new PumpStreamHandler(stdout, stderr));
        executor.setWatchdog(watchdog);
        cancel.onCancel(watchdog::destroyProcess);
        executor.setExitValues(null); // every exit status is a result, not an exception

        long started = System.nanoTime();
        int exitCode;
        try {
            exitCode = executor.execute(commandLine, environmentFor(request));
        } catch (ExecuteException e) {
            exitCode = e.getExitValue();
            if (!watchdog.killedProcess()
                    && stdout.size() == 0
                    && stderr.size() == 0
                    && e.getCause() instanceof IOException) {
                throw CommandException.cannotStart(request, e);
            }
        } catch (IOException e) {
            throw CommandException.cannotStart(request, e);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        CommandResult result = new CommandResult(
                request,
                exitCode,
                stdout.toString(StandardCharsets.UTF_8),
                stderr.toString(StandardCharsets.UTF_8),
                watchdog.killedProcess(),
                elapsed);
        DebugLogging.debug(
                CommonsExecCommandRunner.class,
                "ran `{}`: exit {}{} in {} ms",
                request.display(),
                exitCode,
                result.timedOut() ? " (timed out)" : "",
                elapsed.toMillis());
        return result;
    }

    /**
     * The child's environment: this process's, with the request's own variables over it; null
     * (inherited as it is) when the request adds none, which spares Commons Exec copying it
     * through a stream pipeline at every command's start.
     */
    private static Map<String, String> environmentFor(CommandRequest request) {
        if (request.environment().isEmpty()) {
            return null;
        }
        Map<String, String> environment = new HashMap<>(System.getenv());
        environment.putAll(request.environment());
        return environment;
    }
}
