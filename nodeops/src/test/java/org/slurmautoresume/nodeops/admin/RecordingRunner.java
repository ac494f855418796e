package org.slurmautoresume.nodeops.admin;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;

/**
 * A mocked {@link CommandRunner}: queries answered from a table (argv after the program name),
 * changes ({@code scontrol update|reboot}, {@code scancel}) recorded and answered with exit 0
 * unless told otherwise.
 */
public final class RecordingRunner {

    public final CommandRunner runner = mock(CommandRunner.class);
    public final List<List<String>> changes = new ArrayList<>();
    private final Map<List<String>, String> answers = new HashMap<>();
    private final Map<List<String>, String> afterChange = new HashMap<>();
    private String changeStderr;

    public RecordingRunner() {
        when(runner.run(any())).thenAnswer(invocation -> answer(invocation.getArgument(0)));
    }

    private final Map<String, String> idsOnNode = new HashMap<>();

    /** The job ids {@code squeue -w NODE ... -o %A} lists on {@code node} (none where not told). */
    public RecordingRunner jobsOn(String node, String... jobIds) {
        idsOnNode.put(
                node,
                String.join(
                        "", java.util.Arrays.stream(jobIds).map(id -> id + "\n").toList()));
        return this;
    }

    public RecordingRunner answer(List<String> args, String stdout) {
        answers.put(args, stdout);
        return this;
    }

    /** The answer to {@code args} once a change ran: what Slurm would show after it. */
    public RecordingRunner answerAfterAChange(List<String> args, String stdout) {
        afterChange.put(args, stdout);
        return this;
    }

    /** Every change fails with this stderr and exit 1, as scontrol does for an unprivileged caller. */
    public RecordingRunner refuseChanges(String stderr) {
        changeStderr = stderr;
        return this;
    }

    private CommandResult answer(CommandRequest request) {
        List<String> argv = request.argv();
        List<String> args = argv.subList(1, argv.size());
        boolean change = argv.get(0).equals("scancel")
                || args.get(0).equals("update")
                || args.get(0).equals("reboot");
        if (change) {
            changes.add(argv);
            if (changeStderr == null) {
                answers.putAll(afterChange);
                afterChange.clear();
            }
            return changeStderr == null ? result(request, 0, "", "") : result(request, 1, "", changeStderr);
        }
        String out = answers.get(args);
        if (out == null && argv.get(0).endsWith("squeue") && args.contains("-w")) {
            out = idsOnNode.getOrDefault(args.get(args.indexOf("-w") + 1), "");
        }
        if (out == null) {
            throw new AssertionError("unexpected command " + argv);
        }
        return result(request, 0, out, "");
    }

    private static CommandResult result(CommandRequest request, int exit, String out, String err) {
        return new CommandResult(request, exit, out, err, false, Duration.ZERO);
    }
}
