package org.slurmautoresume.nodeops.lemon;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.model.NodeEvent;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * A node's fault marks from its accounting events: a pure function, tested over recorded
 * {@code sacctmgr show event} output.
 *
 * <p>One fault is one spell out of service. Slurm writes an event for every state change, so a
 * single fault shows as several events that follow each other without a gap (FAIL, then DOWN
 * when slurmctld stops hearing the node, then FAIL again, or the sweep's {@code Action:Replace
 * health check failed}); such a run counts once, as the mark that began it. Only the toolkit's
 * fault words count: an administrator's maintenance drain ({@code bad DIMM}), NHC's drain and
 * slurmctld's own reasons do not. Marks made before an administrator ended a lemon hold (the
 * hold's event has an end) are forgiven: returning the node was a person's decision, and the
 * toolkit does not take it back on the same evidence.
 */
public final class FaultMarks {

    /** Events this close count as one spell: Slurm prints whole seconds. */
    static final long CONTIGUOUS_SECONDS = 1;

    private FaultMarks() {}

    /** Each node's fault marks, oldest first; nodes without a mark are left out. */
    public static Map<String, List<FaultMark>> byNode(List<NodeEvent> events) {
        Map<String, List<NodeEvent>> grouped = new LinkedHashMap<>();
        for (NodeEvent event : events) {
            grouped.computeIfAbsent(event.node(), n -> new ArrayList<>()).add(event);
        }
        Map<String, List<FaultMark>> marks = new LinkedHashMap<>();
        grouped.forEach((node, own) -> {
            List<FaultMark> found = of(own);
            if (!found.isEmpty()) {
                marks.put(node, found);
            }
        });
        return marks;
    }

    /** The fault marks among one node's events (any order), oldest first. */
    public static List<FaultMark> of(List<NodeEvent> events) {
        List<NodeEvent> sorted =
                events.stream().sorted(Comparator.comparing(NodeEvent::start)).toList();
        Optional<LocalDateTime> forgivenUntil = lastReleaseOfAHold(sorted);
        List<FaultMark> marks = new ArrayList<>();
        LocalDateTime spellEnd = null; // null: no spell yet; LocalDateTime.MAX: the spell is still open
        boolean spellCounted = false;
        for (NodeEvent event : sorted) {
            boolean continues = spellEnd != null && !event.start().isAfter(spellEnd.plusSeconds(CONTIGUOUS_SECONDS));
            if (!continues) {
                spellCounted = false;
            }
            LocalDateTime end = event.end().orElse(LocalDateTime.MAX);
            spellEnd = continues && spellEnd.isAfter(end) ? spellEnd : end;
            // Strictly before: a mark in the very second the hold ended (accounting keeps whole
            // seconds) came after the release, which must precede it.
            boolean forgiven = forgivenUntil.isPresent() && event.start().isBefore(forgivenUntil.get());
            if (isFault(event) && !spellCounted && !forgiven) {
                marks.add(new FaultMark(event.node(), event.start(), event.state(), event.reason(), event.user()));
            }
            if (isFault(event)) {
                spellCounted = true;
            }
            if (isReleasedHold(event)) {
                // A person returned the node: whatever comes after is a new spell, however soon.
                spellEnd = null;
                spellCounted = false;
            }
        }
        return marks;
    }

    /** The toolkit's fault words: {@code Action:Replace} or {@code Action:Reboot}, with or without detail. */
    static boolean isFault(NodeEvent event) {
        return event.nodeReason()
                .map(r -> r.isAction(NodeMark.Action.REPLACE.word()) || r.isAction(NodeMark.Action.REBOOT.word()))
                .orElse(false);
    }

    /** A lemon hold that has ended: someone returned the node or rewrote its reason. */
    private static boolean isReleasedHold(NodeEvent event) {
        return event.nodeReason().map(NodeReason::text).map(LemonHold::isHold).orElse(false)
                && event.end().isPresent();
    }

    /** When the latest lemon hold that has ended ended. */
    private static Optional<LocalDateTime> lastReleaseOfAHold(List<NodeEvent> sorted) {
        Optional<LocalDateTime> last = Optional.empty();
        for (NodeEvent event : sorted) {
            if (isReleasedHold(event) && (last.isEmpty() || event.end().get().isAfter(last.get()))) {
                last = event.end();
            }
        }
        return last;
    }
}
