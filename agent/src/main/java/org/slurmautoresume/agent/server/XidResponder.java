package org.slurmautoresume.agent.server;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.nodeops.xid.XidCatalog;
import org.slurmautoresume.nodeops.xid.XidWatch;
import org.slurmautoresume.slurm.client.NodeMark;

/**
 * What the agent does with an Xid its own node's kernel reported: a reset-class one marks the
 * node {@code fail} with {@code Action:Reboot}, an isolate-class one with {@code Action:Replace},
 * at once, whether or not a job runs there (the job's tasks are dying of it anyway; a supervisor
 * then finds the node marked and takes the node-fault path). Application-class and unknown Xids
 * are only counted and logged.
 *
 * <p>The reason says which Xid on which GPU, in our words: the driver's text after the code can
 * hold a process name, which a user chooses, so none of it reaches Slurm. An Xid that was
 * already in the log when the agent started is not acted on again (a restart of the agent must
 * not re-mark a node an administrator returned to service); the health check covers those.
 * A node that is already out of service (down, drained, failing) keeps the reason it has.
 */
public final class XidResponder implements XidWatch.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(XidResponder.class);

    private final String node;
    private final OwnNodeMarker marker;
    private final AuditLog audit;
    private final AgentMetrics metrics;

    /** @param marker marks the node (and tells the liveness port so) */
    public XidResponder(OwnNodeMarker marker, AuditLog audit, AgentMetrics metrics) {
        this.marker = Objects.requireNonNull(marker);
        this.node = marker.node();
        this.audit = Objects.requireNonNull(audit);
        this.metrics = Objects.requireNonNull(metrics);
    }

    @Override
    public void seen(XidWatch.Sighting sighting) {
        XidCatalog.XidClass xidClass = sighting.xidClass();
        metrics.xidSeen(xidClass);
        String what = "Xid " + sighting.event().code() + " ("
                + meaning(sighting.event().code()) + ") on GPU "
                + sighting.event().device();
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("node", node);
        entry.put("xid", sighting.event().code());
        entry.put("gpu", sighting.event().device());
        entry.put("class", xidClass.name().toLowerCase(Locale.ROOT));
        entry.put("afterStart", sighting.afterStart());
        entry.put("kernelSequence", sighting.sequence());
        if (!xidClass.isFault()) {
            LOG.info(
                    "{} on {}: {}-class, evidence only",
                    what,
                    node,
                    xidClass.name().toLowerCase(Locale.ROOT));
            audit.recordXid(entry, "evidence only");
            return;
        }
        if (!sighting.afterStart()) {
            LOG.warn(
                    "{} on {} was in the kernel log before the agent started: not acted on again (the health check"
                            + " reports it until the node reboots)",
                    what,
                    node);
            audit.recordXid(entry, "in the log before the agent started: not acted on");
            return;
        }
        NodeMark.Action action =
                xidClass == XidCatalog.XidClass.ISOLATE ? NodeMark.Action.REPLACE : NodeMark.Action.REBOOT;
        audit.recordXid(entry, marker.mark(action, reasonDetail(sighting), what));
    }

    /** "Xid 79 GPU PCI:0000:3b:00 (GPU has fallen off the bus), agent": ours alone, no driver text. */
    static String reasonDetail(XidWatch.Sighting sighting) {
        int code = sighting.event().code();
        return "Xid " + code + " GPU " + sighting.event().device() + " (" + meaning(code)
                + "), seen by autoresume agent";
    }

    private static String meaning(int code) {
        return XidCatalog.lookup(code)
                .map(XidCatalog.Entry::meaning)
                .orElse(code == 154 ? "driver asks for a recovery action" : "not in our table");
    }
}
