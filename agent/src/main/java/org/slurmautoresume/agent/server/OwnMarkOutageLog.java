package org.slurmautoresume.agent.server;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.slurm.exec.ControllerOutage;

/**
 * What the agent's log says while a mark of its own node waits for slurmctld: once when the
 * controller stops answering, once when it answers again, and if the agent gave up.
 */
public final class OwnMarkOutageLog implements ControllerOutage.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(OwnMarkOutageLog.class);

    private final String node;

    public OwnMarkOutageLog(String node) {
        this.node = node;
    }

    @Override
    public void unreachable(String why, Duration bound) {
        LOG.warn(
                "slurmctld does not answer ({}); marking {} keeps trying for up to {} s", why, node, bound.toSeconds());
    }

    @Override
    public void answersAgain(Duration lasted) {
        LOG.warn("slurmctld answers again after {} s", lasted.toSeconds());
    }

    @Override
    public void gaveUp(Duration lasted, Duration bound) {
        LOG.error(
                "slurmctld still does not answer after {} s (--controller-outage {}): {} is not marked; the"
                        + " health check or the sweep will find the fault again",
                lasted.toSeconds(),
                bound.toSeconds(),
                node);
    }
}
