package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.OutputFormat;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.client.WriteResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;

/**
 * Turns a health report into the one {@code scontrol update} that tells Slurm:
 * <ul>
 * <li>REPLACE or REBOOT: {@code state=fail reason=Action:Replace|Action:Reboot} (fail lets
 *     running jobs finish);</li>
 * <li>a failure that needs a person (NONE): {@code state=drain reason="health check failed: CHECKS"};</li>
 * <li>any of those on a node someone already took out (an administrator, NHC, slurmctld, an
 *     earlier mark): nothing; the node keeps the state and reason it has;</li>
 * <li>filesystems short of space (FREE_SPACE): {@code state=drain} with the {@link DiskDrain}
 *     reason, on a node in service only: a node someone else took out keeps their reason, since
 *     this drain is one the toolkit lifts and it must never lift theirs;</li>
 * <li>a passing report whose disk check passed: {@code state=resume} where the node's drain is
 *     still the disk check's own ({@link DiskDrain#whyNotLifted}); nothing otherwise.</li>
 * </ul>
 * {@link #plan} decides from the report and the node as Slurm shows it; {@link #apply} runs it.
 */
public final class NodeMarker {

    static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    /** What the report calls for: the mark to set, a resume, a drain left as it is, or nothing. */
    public record Update(Kind kind, String node, Optional<NodeMark> mark, String why) {

        public enum Kind {
            NOTHING,
            MARK,
            RESUME,
            LEAVE_ALONE
        }

        public Update {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(mark, "mark");
            Objects.requireNonNull(why, "why");
            if ((kind == Kind.MARK) != mark.isPresent()) {
                throw new IllegalArgumentException("a mark, and only a mark, carries a NodeMark");
            }
        }

        static Update nothing(String node, String why) {
            return new Update(Kind.NOTHING, node, Optional.empty(), why);
        }
    }

    private final SlurmControl control;
    private final SlurmClient slurm;
    private final String self;

    /** {@code self}: the account this runs as; reasons it set are its own (root under slurmd). */
    public NodeMarker(CommandRunner runner, Path scontrol, String self) {
        this(runner, scontrol, self, OutputFormat.AUTO);
    }

    /** {@code format}: the scontrol output the node is read from, where the caller knows the release. */
    public NodeMarker(CommandRunner runner, Path scontrol, String self, OutputFormat format) {
        this.control = new SlurmControl(
                Objects.requireNonNull(runner), SlurmControl.Programs.withScontrol(scontrol.toString()));
        this.slurm = new SlurmClient(runner, scontrol.toString(), READ_TIMEOUT, format);
        this.self = Objects.requireNonNull(self);
    }

    /**
     * The mark {@code report} calls for on a node in service, or empty when it passed. Not public:
     * a disk-full drain goes only where {@link #plan} found the node in service.
     */
    static Optional<NodeMark> markFor(String node, HealthReport report) {
        requireNode(node);
        if (!report.failed()) {
            return Optional.empty();
        }
        HealthAction worst = report.worstAction();
        if (worst == HealthAction.FREE_SPACE) {
            List<String> shortages =
                    report.failures().stream().flatMap(r -> r.faults().stream()).toList();
            return Optional.of(new NodeMark(node, NodeMark.State.DRAIN, DiskDrain.reason(shortages)));
        }
        Optional<NodeMark.Action> action = worst.mark();
        if (action.isEmpty()) {
            List<String> names =
                    report.failures().stream().map(CheckResult::check).toList();
            return Optional.of(
                    new NodeMark(node, NodeMark.State.DRAIN, "health check failed: " + String.join(",", names)));
        }
        return Optional.of(NodeMark.of(node, NodeMark.State.FAIL, action.get()));
    }

    /**
     * True when deciding needs the node as Slurm shows it: every mark (only a node in service is
     * marked) and a disk-full drain to lift.
     */
    public static boolean readsNode(HealthReport report) {
        return report.failed() || diskPassed(report);
    }

    /**
     * The update for {@code report}. {@code current} is the node as Slurm shows it, read when
     * {@link #readsNode} says so (else ignored); {@code checkedMounts} the mount points the disk
     * check was given.
     */
    public static Update plan(
            String node, HealthReport report, Optional<Node> current, String self, Collection<Path> checkedMounts) {
        requireNode(node);
        if (!readsNode(report)) {
            return markFor(node, report)
                    .map(m -> new Update(Update.Kind.MARK, node, Optional.of(m), "health check failed"))
                    .orElseGet(() -> Update.nothing(node, "the checks passed"));
        }
        if (current.isEmpty()) {
            return report.failed()
                    ? new Update(Update.Kind.LEAVE_ALONE, node, Optional.empty(), "Slurm does not know " + node)
                    : Update.nothing(node, "Slurm does not know " + node);
        }
        Node seen = current.get();
        if (report.failed() && report.worstAction() == HealthAction.FREE_SPACE) {
            return diskFull(node, report, seen, self);
        }
        if (report.failed()) {
            // The disk check's own drain is the toolkit's: a fault found since may take it further.
            boolean ownDrain = DiskDrain.hasOwnReasonText(seen)
                    && seen.reason().flatMap(r -> r.user()).orElse("").equals(self);
            if (seen.state().isTakenOut() && !ownDrain) {
                return new Update(
                        Update.Kind.LEAVE_ALONE,
                        node,
                        Optional.empty(),
                        "already out of service (" + held(seen) + "): not overwritten");
            }
            return new Update(Update.Kind.MARK, node, markFor(node, report), "health check failed");
        }
        if (!seen.state().isTakenOut()) {
            return Update.nothing(node, "the checks passed and the node is in service");
        }
        Optional<String> whyNot = DiskDrain.whyNotLifted(seen, self, checkedMounts);
        if (whyNot.isPresent()) {
            return new Update(
                    Update.Kind.LEAVE_ALONE, node, Optional.empty(), "out of service, not lifted: " + whyNot.get());
        }
        return new Update(
                Update.Kind.RESUME,
                node,
                Optional.empty(),
                "the disk check's own drain, lifted: every filesystem it named has space again");
    }

    private static Update diskFull(String node, HealthReport report, Node seen, String self) {
        if (!seen.state().isTakenOut()) {
            return new Update(Update.Kind.MARK, node, markFor(node, report), "filesystem short of space");
        }
        String held = held(seen);
        if (DiskDrain.hasOwnReasonText(seen)
                && seen.reason().flatMap(r -> r.user()).orElse("").equals(self)) {
            return new Update(
                    Update.Kind.LEAVE_ALONE,
                    node,
                    Optional.empty(),
                    "already drained by the disk check (" + held + ")");
        }
        return new Update(
                Update.Kind.LEAVE_ALONE,
                node,
                Optional.empty(),
                "already out of service (" + held
                        + "): not overwritten, so that lifting the disk-full drain later cannot return it");
    }

    /** The state and reason a node shows, with who set the reason. */
    private static String held(Node seen) {
        return seen.state().display()
                + seen.reason()
                        .map(r -> ", reason \"" + r.text() + "\""
                                + r.user().map(u -> " set by " + u).orElse(""))
                        .orElse(", no reason");
    }

    private static boolean diskPassed(HealthReport report) {
        return report.result(DiskCheck.NAME)
                .map(r -> r.status() == HealthStatus.PASSED)
                .orElse(false);
    }

    /**
     * Reads the node when {@link #readsNode} says so, then {@link #plan}s. A read that fails
     * throws {@link org.slurmautoresume.slurm.client.SlurmException}: without the node's state
     * nothing is drained or lifted.
     */
    public Update plan(String node, HealthReport report, Collection<Path> checkedMounts) {
        requireNode(node);
        Optional<Node> current = readsNode(report) ? slurm.node(node) : Optional.empty();
        return plan(node, report, current, self, checkedMounts);
    }

    /** The argv {@link #apply} runs for {@code update}, or empty when it runs nothing (for a dry run). */
    public List<String> argv(Update update) {
        return switch (update.kind()) {
            case MARK -> control.markArgv(update.mark().orElseThrow());
            case RESUME -> control.resumeArgv(update.node());
            case NOTHING, LEAVE_ALONE -> List.of();
        };
    }

    /**
     * Runs the update; returns the command as a person would type it (empty when there was none
     * to run), or throws a {@link org.slurmautoresume.slurm.exec.CommandException} naming
     * scontrol's complaint.
     */
    public Optional<String> apply(Update update) {
        WriteResult result = switch (update.kind()) {
            case MARK -> control.mark(update.mark().orElseThrow());
            case RESUME -> control.resume(update.node());
            case NOTHING, LEAVE_ALONE -> null;
        };
        if (result == null) {
            return Optional.empty();
        }
        if (!result.ok()) {
            throw result.asException();
        }
        return Optional.of(result.command());
    }

    private static void requireNode(String node) {
        if (!Hostlist.isValidHostname(node)) {
            throw new IllegalArgumentException("not a valid node name: \"" + node + "\"");
        }
    }
}
