package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.model.NodeState;

/**
 * The toolkit's own drain of a node whose filesystem is short of space or inodes: its reason,
 * {@code autoresume: disk full: /scratch 99% used, /tmp inodes 100% used}, and the one rule by
 * which the toolkit lifts it again.
 *
 * <p>Lifting returns a node to service, so it is the one place where a health check undoes a
 * decision, and it may only undo its own. The drain is lifted when the current reason is still
 * exactly such a reason, set by the account that now lifts it, on a node that is drained and
 * nothing else (not DOWN, not FAIL, no reboot pending, responding), and every filesystem the
 * reason names was checked by this run and found fine. An administrator's drain, NHC's
 * ({@code NHC: ...}), a reason someone rewrote or to which slurmctld appended its own
 * ({@code ... : Not responding}) is never lifted. Anyone may type a reason with this prefix:
 * root and Slurm's operators, the only ones who can set a reason, are told in the docs that it
 * is the toolkit's.
 */
public final class DiskDrain {

    /** How every reason of this drain begins; the toolkit owns it. */
    public static final String PREFIX = "autoresume: disk full: ";
    /** Slurm keeps longer reasons, but a reason is read in one line of sinfo. */
    static final int MAX_REASON = 200;

    private static final String SEPARATOR = ", ";
    private static final Pattern ITEM = Pattern.compile("(/.*?) (?:inodes )?(\\d{1,3})% used");

    private DiskDrain() {}

    /** {@code /scratch 99% used}: one filesystem short of space, as the reason names it. */
    static String spaceShortage(Path mountPoint, long percentUsed) {
        return printable(mountPoint.toString()) + " " + percentUsed + "% used";
    }

    /** {@code /scratch inodes 100% used}. */
    static String inodeShortage(Path mountPoint, long percentUsed) {
        return printable(mountPoint.toString()) + " inodes " + percentUsed + "% used";
    }

    /**
     * The reason for these shortages ({@link CheckResult#faults()} of the FREE_SPACE results):
     * whole items only, as many as fit in {@value #MAX_REASON} characters, so that the reason
     * always reads back as this drain's.
     */
    public static String reason(List<String> shortages) {
        if (shortages.isEmpty()) {
            throw new IllegalArgumentException("a disk-full drain names at least one filesystem");
        }
        StringBuilder reason = new StringBuilder(PREFIX).append(shortages.get(0));
        for (String item : shortages.subList(1, shortages.size())) {
            if (reason.length() + SEPARATOR.length() + item.length() > MAX_REASON) {
                break;
            }
            reason.append(SEPARATOR).append(item);
        }
        return reason.toString();
    }

    /** The mount points a reason of this drain names; empty when the text is not (or no longer) one. */
    static Optional<List<String>> mountPointsNamed(String reasonText) {
        if (!reasonText.startsWith(PREFIX)) {
            return Optional.empty();
        }
        List<String> mountPoints = new ArrayList<>();
        for (String item : reasonText.substring(PREFIX.length()).split(SEPARATOR, -1)) {
            Matcher m = ITEM.matcher(item);
            if (!m.matches()) {
                return Optional.empty();
            }
            mountPoints.add(m.group(1));
        }
        return Optional.of(mountPoints);
    }

    /** True when the node's reason reads as this drain's, whoever set it and whatever the state. */
    public static boolean hasOwnReasonText(Node node) {
        return node.reason().map(r -> mountPointsNamed(r.text()).isPresent()).orElse(false);
    }

    /**
     * Why this drain may not be lifted from {@code node} by a run as {@code self} whose disk
     * check found every one of {@code checkedFine} fine; empty when it may.
     */
    public static Optional<String> whyNotLifted(Node node, String self, Collection<Path> checkedFine) {
        Optional<NodeReason> reason = node.reason();
        if (reason.isEmpty()) {
            return Optional.of("it has no reason");
        }
        Optional<List<String>> named = mountPointsNamed(reason.get().text());
        if (named.isEmpty()) {
            return Optional.of(
                    "its reason is not the disk check's own: \"" + reason.get().text() + "\"");
        }
        String setBy = reason.get().user().orElse("");
        if (!setBy.equals(self)) {
            return Optional.of(
                    "its reason was set by " + (setBy.isEmpty() ? "an unknown user" : setBy) + ", not by " + self);
        }
        List<String> checked = checkedFine.stream().map(Path::toString).toList();
        for (String mountPoint : named.get()) {
            if (!checked.contains(mountPoint)) {
                return Optional.of("its reason names " + mountPoint + ", which this run did not check");
            }
        }
        NodeState state = node.state();
        if (!state.isDrain()) {
            return Optional.of("it is " + state.display() + ", not drained");
        }
        if (state.isDown()
                || state.isFail()
                || state.notResponding()
                || state.has("REBOOT_REQUESTED")
                || state.has("REBOOT_ISSUED")) {
            return Optional.of("it is " + state.display() + ": more than the disk check's drain");
        }
        return Optional.empty();
    }

    /** One line without control characters: a reason is one argument and one line in sinfo. */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return out.toString();
    }
}
