package org.slurmautoresume.nodeops.sweep;

import java.util.Objects;
import java.util.Optional;
import org.slurmautoresume.nodeops.health.NodeHealth;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.NodeProber;

/** The least a returned node must pass: its slurmd accepts a connection. */
public final class SlurmdProbeHealth implements NodeHealth {

    private final NodeProber prober;

    public SlurmdProbeHealth(NodeProber prober) {
        this.prober = Objects.requireNonNull(prober);
    }

    @Override
    public Verdict check(Node node) {
        Optional<String> silent = prober.unreachable(node);
        return silent.map(why -> Verdict.unhealthy("replace", why))
                .orElseGet(() -> Verdict.healthy("slurmd accepts connections"));
    }
}
