package org.slurmautoresume.slurm.client;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.slurm.exec.CommandException;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * What one Slurm write did. Never thrown: callers decide whether a failure is fatal (the resizer
 * reads the job back, the sweep reports and goes on). Either {@code result} is there, or the
 * program could not be started at all and {@code notStarted} says why.
 */
public record WriteResult(
        CommandRequest request, Optional<CommandResult> result, Optional<CommandException> notStarted) {

    public WriteResult {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(notStarted, "notStarted");
        if (result.isPresent() == notStarted.isPresent()) {
            throw new IllegalArgumentException("a write either ran or could not start");
        }
    }

    public static WriteResult ran(CommandResult result) {
        return new WriteResult(result.request(), Optional.of(result), Optional.empty());
    }

    public static WriteResult notStarted(CommandRequest request, CommandException e) {
        return new WriteResult(request, Optional.empty(), Optional.of(e));
    }

    public boolean ok() {
        return result.map(CommandResult::succeeded).orElse(false);
    }

    /** The command as a person would type it. */
    public String command() {
        return request.display();
    }

    /** Empty when it worked; else the command, how it ended and the tail of its stderr. */
    public String message() {
        if (ok()) {
            return "";
        }
        return asException().getMessage();
    }

    /** The failure as {@link CommandException} (naming the command and stderr's tail); only when not ok. */
    public CommandException asException() {
        if (ok()) {
            throw new IllegalStateException("`" + command() + "` succeeded");
        }
        return result.map(CommandException::failed).orElseGet(notStarted::get);
    }

    /** The last lines Slurm printed (stderr, else stdout), or why nothing ran. */
    public String diagnosticTail() {
        return result.map(CommandResult::diagnosticTail)
                .orElseGet(() -> notStarted.get().getMessage());
    }

    /**
     * scontrol's refusal of a caller who is not root, the SlurmUser or a Slurm admin ("Invalid
     * user id", "Access/permission denied").
     */
    public boolean deniedBySlurm() {
        if (result.isEmpty() || ok()) {
            return false;
        }
        CommandResult r = result.get();
        String text = (r.stderr() + "\n" + r.stdout()).toLowerCase(Locale.ROOT);
        return text.contains("invalid user id")
                || text.contains("access/permission denied")
                || text.contains("permission denied");
    }

    /** This result when it worked, else a {@link SlurmException} saying what could not be done. */
    public WriteResult orThrow(String purpose) {
        if (ok()) {
            return this;
        }
        SlurmException.Kind kind = result.isEmpty()
                ? SlurmException.Kind.UNAVAILABLE
                : result.get().timedOut() ? SlurmException.Kind.TIMEOUT : SlurmException.Kind.COMMAND_FAILED;
        throw new SlurmException(kind, "could not " + purpose + ": " + message());
    }
}
