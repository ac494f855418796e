package org.slurmautoresume.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Sends one raw request line to the agent and prints its answer: how the end-to-end tests speak
 * to the agent as an ordinary user, and a way for an administrator to try it by hand. Hidden:
 * supervisors use the agent through {@link AgentClient}, users never need this.
 */
@Command(
        name = "agent-call",
        hidden = true,
        mixinStandardHelpOptions = true,
        description = "Send one JSON request line to the agent (argument, or stdin) and print its answer;"
                + " exit 0 when it answers ok, 1 when it refuses.")
final class AgentCallCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--socket", paramLabel = "PATH", description = "The agent's socket. Default: ${DEFAULT-VALUE}.")
    private Path socket = AgentClient.DEFAULT_SOCKET;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            defaultValue = "60",
            description = "Give up after this long. Default: ${DEFAULT-VALUE}.")
    private int timeoutSeconds;

    @Parameters(index = "0", arity = "0..1", paramLabel = "REQUEST", description = "The request, one JSON object.")
    private String request;

    @Override
    public Integer call() throws IOException {
        if (timeoutSeconds <= 0) {
            throw new CliException(ExitCode.USAGE, "--timeout must be positive: " + timeoutSeconds);
        }
        String line =
                request != null ? request : new String(System.in.readNBytes(1 << 20), StandardCharsets.UTF_8).strip();
        if (line.isEmpty() || line.indexOf('\n') >= 0) {
            throw new CliException(ExitCode.USAGE, "give exactly one JSON request line");
        }
        String response;
        try {
            response = new AgentClient(socket, Duration.ofSeconds(timeoutSeconds)).call(line);
        } catch (AgentException e) {
            throw new CliException(ExitCode.FAILED, e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(response);
        out.flush();
        return response.startsWith("{\"ok\":true") ? ExitCode.OK.code() : ExitCode.FAILED.code();
    }
}
