package org.slurmautoresume.lifecycle.apply;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.slurm.hostlist.Hostlist;

/**
 * The managed block of slurm.conf: the settings auto-resume needs that the admin has not made
 * (SlurmctldHost, {@code SchedulerParameters=permit_job_expansion}, the health check), one NodeName
 * line per compute node and the partitions, hot spares in their own partition as well.
 */
public final class SlurmConfBlock {

    /** Spares are picked last by the scheduler: Slurm allocates lower weights first (default 1). */
    public static final int SPARE_WEIGHT = 1000;

    static final String EXPANSION = "permit_job_expansion";

    private SlurmConfBlock() {}

    /** The block's lines and what apply left to the admin's own settings. */
    public record Rendered(List<String> lines, List<String> notes, Path plugstackConf) {}

    public static Rendered render(ClusterPlan plan, List<String> adminLines, InstallLayout layout) {
        SlurmConfSettings admin = SlurmConfSettings.parse(adminLines);
        List<String> conflicts = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<String> lines = new ArrayList<>();

        Optional<SlurmConfSettings.Setting> ctld = admin.get("SlurmctldHost").or(() -> admin.get("ControlMachine"));
        if (ctld.isPresent()) {
            notes.add("SlurmctldHost is set on line " + ctld.get().line() + ": left as it is");
        } else {
            plan.withRole(Role.CONTROLLER)
                    .forEach(n ->
                            lines.add("SlurmctldHost=" + n.hostname().orElse(n.nodeName()) + "(" + n.address() + ")"));
        }
        Optional<SlurmConfSettings.Setting> scheduler = admin.get("SchedulerParameters");
        if (scheduler.isEmpty()) {
            lines.add("SchedulerParameters=" + EXPANSION);
        } else if (!Arrays.asList(scheduler.get().value().split(",")).contains(EXPANSION)) {
            conflicts.add("line " + scheduler.get().line() + " sets SchedulerParameters="
                    + scheduler.get().value()
                    + " without " + EXPANSION + ", which auto-resume needs to grow a job back: add ," + EXPANSION
                    + " to that line (or remove the line and apply writes it)");
        }
        int interval = plan.site().healthCheckSeconds();
        if (interval > 0) {
            Optional<SlurmConfSettings.Setting> health = admin.get("HealthCheckProgram");
            if (health.isPresent() && health.get().value().contains("nhc")) {
                // LBNL NHC owns it: the toolkit's checks run inside NHC instead (the packages ship the check).
                notes.add("HealthCheckProgram is LBNL NHC on line "
                        + health.get().line() + " (" + health.get().value()
                        + "): run autoresume's checks inside it: /etc/nhc/scripts/autoresume.nhc (shipped in the"
                        + " packages, and under share/autoresume/nhc in the tarball) and the line"
                        + " `* || check_autoresume gpu,neuron,efa,disk` in /etc/nhc/nhc.conf; a node NHC drains"
                        + " (reason NHC: ...) counts as faulty for supervised steps, the agents and the sweep");
            } else if (health.isPresent()) {
                notes.add("HealthCheckProgram is set on line " + health.get().line() + " ("
                        + health.get().value() + "): autoresume's health check is not installed in slurm.conf");
            } else {
                lines.add("HealthCheckProgram=" + layout.healthCheckWrapper());
                lines.add("HealthCheckInterval=" + interval);
            }
        }

        List<PlannedNode> compute = plan.withRole(Role.COMPUTE);
        List<String> clashes =
                admin.clashingNodes(compute.stream().map(PlannedNode::nodeName).toList());
        if (!clashes.isEmpty()) {
            conflicts.add("nodes are defined outside the managed block too: " + String.join(", ", clashes)
                    + "; remove those NodeName lines (apply writes them from resource_config.json)");
        }
        compute.forEach(n -> lines.add(nodeLine(n)));

        Set<String> allCompute =
                new HashSet<>(compute.stream().map(PlannedNode::nodeName).toList());
        boolean first = true;
        List<Partition> partitions = new ArrayList<>(plan.partitions());
        for (Partition partition : partitions) {
            checkPartition(admin, partition, conflicts);
            lines.add("PartitionName=" + partition.name() + " Nodes=" + nodes(partition, allCompute)
                    + (first ? " Default=YES" : "") + " MaxTime=INFINITE State=UP");
            first = false;
        }
        if (plan.hasSpares()) {
            checkPartition(admin, plan.sparePartition(), conflicts);
            // A marker only: spares join a job through the job's own partition (job expansion needs
            // the same partition), and the supervisor finds them by membership here. Nobody runs in it.
            lines.add("PartitionName=" + plan.sparePartition().name() + " Nodes="
                    + Hostlist.compress(plan.sparePartition().nodes()) + " Hidden=YES State=INACTIVE");
        }
        Path plugstack = admin.get("PlugStackConfig")
                .map(s -> Path.of(s.value()))
                .orElse(layout.slurmConf().resolveSibling("plugstack.conf"));
        if (!conflicts.isEmpty()) {
            throw new ApplyException(layout.slurmConf() + ": " + String.join("; ", conflicts));
        }
        return new Rendered(lines, notes, plugstack);
    }

    private static void checkPartition(SlurmConfSettings admin, Partition partition, List<String> conflicts) {
        Integer line = admin.partitionLines().get(partition.name());
        if (line != null) {
            conflicts.add("partition " + partition.name() + " is defined on line " + line
                    + " too; remove that line (apply writes it from provisioning_parameters.json)");
        }
    }

    /** {@code ALL} when the partition holds every compute node, so the line survives nodes being added. */
    private static String nodes(Partition partition, Set<String> allCompute) {
        if (new HashSet<>(partition.nodes()).equals(allCompute)) {
            return "ALL";
        }
        return Hostlist.compress(partition.nodes());
    }

    static String nodeLine(PlannedNode node) {
        StringBuilder line = new StringBuilder("NodeName=").append(node.nodeName());
        node.hostname().ifPresent(h -> line.append(" NodeHostname=").append(h));
        line.append(" NodeAddr=").append(node.address());
        node.port().ifPresent(p -> line.append(" Port=").append(p));
        String options = node.nodeOptions().map(String::strip).orElse("");
        if (!options.isEmpty()) {
            line.append(' ').append(options);
        }
        if (node.spare()) {
            line.append(" Weight=").append(SPARE_WEIGHT);
        }
        if (!options.toLowerCase(Locale.ROOT).matches("(^|.*\\s)state=.*")) {
            line.append(" State=UNKNOWN");
        }
        return line.toString();
    }
}
