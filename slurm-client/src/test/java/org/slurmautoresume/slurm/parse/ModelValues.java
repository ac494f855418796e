package org.slurmautoresume.slurm.parse;

import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.Step;

/**
 * The model values a parser produced, without what legitimately differs between two outputs
 * of one situation: the raw fields (each format names them its own way) and, for nodes, the
 * slurmd version string (fixtures of different releases describe the same cluster).
 */
public final class ModelValues {

    private ModelValues() {}

    public static Node of(Node node) {
        return new Node(
                node.name(),
                node.address(),
                node.hostname(),
                node.port(),
                node.state(),
                node.reason(),
                node.bootTime(),
                node.slurmdStartTime(),
                node.partitions(),
                node.gres(),
                node.cpus(),
                Optional.empty(),
                node.activeFeatures(),
                Map.of());
    }

    public static Job of(Job job) {
        return new Job(
                job.jobId(),
                job.name(),
                job.userName(),
                job.userId(),
                job.state(),
                job.reason(),
                job.nodeList(),
                job.numNodes(),
                job.batchHost(),
                job.excludedNodes(),
                job.requiredNodes(),
                job.partition(),
                job.restarts(),
                job.requeue(),
                job.batch(),
                job.exitCode(),
                job.startTime(),
                job.endTime(),
                job.submitTime(),
                job.resizeTime(),
                job.dependency(),
                job.overSubscribe(),
                job.licenses(),
                job.arrayJobId(),
                job.hetJobId(),
                job.expeditedRequeue(),
                job.tres(),
                job.tresPer(),
                Map.of());
    }

    public static Step of(Step step) {
        return new Step(
                step.jobId(),
                step.stepId(),
                step.name(),
                step.state(),
                step.nodeList(),
                step.numNodes(),
                step.numTasks(),
                step.startTime(),
                step.srunHost(),
                step.srunPid(),
                Map.of());
    }
}
