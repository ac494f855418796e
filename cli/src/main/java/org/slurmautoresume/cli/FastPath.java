package org.slurmautoresume.cli;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.List;

/**
 * The command lines that start most often, run without picocli: {@code nodes --json} (scripts
 * poll it), {@code health --mark} (Slurm's HealthCheckProgram runs it on every node, through
 * the wrapper {@code lifecycle apply} writes), a bare {@code health} (what a person types on a
 * node) and {@code health --check disk} with or without {@code --on-request}. Building picocli's model of a
 * command reads its annotations by reflection, about a third of such a start.
 *
 * <p>Only these exact words are taken; anything else, a reordering, another option, --help or a
 * mistake included, goes to picocli, so its messages and exit codes stay the only ones. What runs
 * is the command's own code, set up as picocli sets it up (a unit test compares the commands'
 * fields and their output both ways), and a failure is reported as {@link CliFactory} has
 * picocli report it.
 */
final class FastPath {

    /** A command taken here, ready to run: its exit status. */
    @FunctionalInterface
    interface Command {
        int run(PrintWriter out) throws Exception;
    }

    private FastPath() {}

    /** The command these words ask for when they are one of the shapes above; null for any other. */
    static Command match(CliContext context, String[] args) {
        if (args.length == 2 && args[0].equals("nodes") && args[1].equals("--json")) {
            return out -> {
                NodesCommand.json(context).run(out);
                return ExitCode.OK.code();
            };
        }
        if ((args.length == 3 || args.length == 4 && args[3].equals("--on-request"))
                && args[0].equals("health")
                && args[1].equals("--check")
                && args[2].equals("disk")) {
            boolean onRequest = args.length == 4;
            return out -> HealthCommand.checking(context, List.of("disk"), onRequest, false)
                    .call(out);
        }
        if (args.length >= 1
                && args.length <= 2
                && args[0].equals("health")
                && (args.length == 1 || args[1].equals("--mark"))) {
            boolean mark = args.length == 2;
            return out ->
                    HealthCommand.checking(context, List.of(), false, mark).call(out);
        }
        return null;
    }

    /** Runs a matched command on stdout, and reports its failure on stderr, as picocli's execute does. */
    static int execute(Command command) {
        return execute(command, writer(System.out, "sun.stdout.encoding"), writer(System.err, "sun.stderr.encoding"));
    }

    static int execute(Command command, PrintWriter out, PrintWriter err) {
        try {
            return command.run(out);
        } catch (Exception e) {
            return CliFactory.reportFailure(e, err);
        }
    }

    /** A writer as picocli makes for System.out and System.err: the JVM's encoding for the stream, flushing each line. */
    private static PrintWriter writer(PrintStream stream, String encodingProperty) {
        return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset(encodingProperty))), true);
    }

    private static Charset charset(String encodingProperty) {
        String name = System.getProperty(encodingProperty);
        if (name == null) {
            return Charset.defaultCharset();
        }
        try {
            return Charset.forName("cp65001".equalsIgnoreCase(name) ? "UTF-8" : name);
        } catch (RuntimeException e) {
            return Charset.defaultCharset();
        }
    }
}
