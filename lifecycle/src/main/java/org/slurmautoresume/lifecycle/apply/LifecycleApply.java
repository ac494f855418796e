package org.slurmautoresume.lifecycle.apply;

import java.util.List;
import java.util.Optional;
import org.slurmautoresume.lifecycle.model.ProvisioningParameters;
import org.slurmautoresume.lifecycle.model.ResourceConfig;

/** apply from start to end: the plan, this node in it, its files, written or diffed. */
public final class LifecycleApply {

    private LifecycleApply() {}

    /** How to find this node: by name, by address, or from the machine itself. */
    public record Selector(Optional<String> node, Optional<String> address, LocalHost host) {}

    public record Result(
            PlannedNode node,
            List<FileChange> changes,
            List<String> notes,
            List<String> unitsToEnable,
            boolean dryRun) {

        public boolean changed() {
            return changes.stream().anyMatch(FileChange::changed);
        }
    }

    public static Result run(
            ProvisioningParameters parameters,
            ResourceConfig config,
            Selector selector,
            InstallLayout layout,
            boolean dryRun) {
        ClusterPlan plan = ClusterPlan.of(parameters, config);
        PlannedNode node = selector.node()
                .map(name -> RoleDetector.byName(plan, name))
                .or(() -> selector.address().map(address -> RoleDetector.byAddress(plan, address)))
                .orElseGet(() -> RoleDetector.detect(plan, selector.host()));
        NodeSetup.Setup setup = NodeSetup.plan(plan, node, layout);
        List<FileChange> changes = Applier.apply(setup.files(), layout, dryRun);
        return new Result(node, changes, setup.notes(), setup.unitsToEnable(), dryRun);
    }
}
