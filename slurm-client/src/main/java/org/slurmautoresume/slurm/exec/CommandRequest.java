package org.slurmautoresume.slurm.exec;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One external command to run: an argv list (never a shell string), a timeout and
 * extra environment variables added to the current process's environment.
 */
public record CommandRequest(List<String> argv, Duration timeout, Map<String, String> environment) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    public CommandRequest {
        Objects.requireNonNull(argv, "argv");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(environment, "environment");
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("argv must name a program");
        }
        for (String arg : argv) {
            if (arg == null) {
                throw new IllegalArgumentException("argv contains null: " + argv);
            }
            if (arg.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("argv contains a NUL byte: " + argv);
            }
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        argv = List.copyOf(argv);
        environment = Map.copyOf(environment);
    }

    public static CommandRequest of(String... argv) {
        return new CommandRequest(List.of(argv), DEFAULT_TIMEOUT, Map.of());
    }

    public static CommandRequest of(List<String> argv) {
        return new CommandRequest(argv, DEFAULT_TIMEOUT, Map.of());
    }

    /** The command as a person would type it, for messages only; never executed. */
    public String display() {
        StringBuilder out = new StringBuilder();
        for (String arg : argv) {
            if (out.length() > 0) {
                out.append(' ');
            }
            out.append(ShellQuote.quoteIfNeeded(arg));
        }
        return out.toString();
    }
}
