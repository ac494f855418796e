package org.slurmautoresume.e2e;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What a test class of node-fault recovery needs on the cluster: auto_resume.so in
 * plugstack.conf.d handing steps to the launcher, and the root agent in the plugin's
 * directory. Started once per class, stopped (agent first, then the snippet) after it.
 */
final class SupervisedSteps {

    private final Plugstack plugstack;
    /** Replaced by {@link #startAgentAgain}: a restarted agent is a new process on the same directory. */
    private volatile LocalAgent agent;

    private SupervisedSteps(Plugstack plugstack, LocalAgent agent) {
        this.plugstack = plugstack;
        this.agent = agent;
    }

    static SupervisedSteps start(LocalCluster cluster, String prefix, String... agentOptions) {
        Plugstack plugstack = Plugstack.install(cluster, prefix, List.of("auto_resume.so"));
        plugstack.useAutoResume(cluster.launcher());
        return new SupervisedSteps(
                plugstack, LocalAgent.start(cluster, plugstack.installDir().resolve("agent"), agentOptions));
    }

    Plugstack plugstack() {
        return plugstack;
    }

    LocalAgent agent() {
        return agent;
    }

    /** The first half of an agent restart: its socket goes, its state directory stays. */
    void stopAgentKeepingState() throws InterruptedException {
        agent.stopKeepingState();
    }

    /** The second half: the agent runs again on the same socket and state directory. */
    void startAgentAgain(LocalCluster cluster) {
        agent = agent.startAgain(cluster);
    }

    /**
     * A 3-node job on node[1-3] whose {@code srun --auto-resume=1 -N2} step prints
     * {@code attempt=N node=NODE list=NODE_LIST mnode=MASTER_NODE} per task and, on attempt 1,
     * sleeps on node1 and node2 until the test acts; node3 is its in-job spare. Returns the job id
     * once both tasks run; a job whose tasks do not start is cancelled before the failure.
     */
    String stepWithSpare(LocalCluster cluster, Duration firstStart) {
        return stepWithSpare(cluster, firstStart, "");
    }

    /** As {@link #stepWithSpare(LocalCluster, Duration)}, with a line of the batch script before the srun. */
    String stepWithSpare(LocalCluster cluster, Duration firstStart, String beforeSrun) {
        String jobId = submitStepWithSpare(cluster, beforeSrun);
        try {
            awaitFirstAttempt(cluster, jobId, firstStart);
        } catch (RuntimeException | Error e) {
            cluster.run(List.of("scancel", jobId));
            throw e;
        }
        return jobId;
    }

    /**
     * The job of {@link #stepWithSpare}, submitted and not waited for; {@code beforeSrun} is a
     * line of the batch script that runs before the supervised srun (empty: none).
     */
    String submitStepWithSpare(LocalCluster cluster, String beforeSrun) {
        return submitStepWithSpare(cluster, beforeSrun, true);
    }

    /** As above; {@code holdFirstAttempt} false: every attempt prints its line and ends at once. */
    String submitStepWithSpare(LocalCluster cluster, String beforeSrun, boolean holdFirstAttempt) {
        String script = """
                #!/bin/bash
                export AUTORESUME_AGENT_SOCKET=%s
                %s
                srun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c '
                  echo "attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME list=$NODE_LIST mnode=$MASTER_NODE"
                  if [ "$AUTO_RESUME_ATTEMPT" = %s ]; then touch "$SLURM_JOB_ID.up.$SLURMD_NODENAME"; sleep 300; fi'
                echo "SRUN_EXIT=$?"
                """.formatted(agent.socket(), beforeSrun, holdFirstAttempt ? "1" : "never");
        return cluster.submit(script, List.of("-N3", "-w", "node[1-3]", "--exclusive"));
    }

    /** Waits until the job's first attempt runs on node1 and node2: each task touched {@code JOBID.up.NODE}. */
    static void awaitFirstAttempt(LocalCluster cluster, String jobId, Duration firstStart) {
        Wait.until(
                "the step of job " + jobId + " to run on node1 and node2",
                firstStart,
                () -> Files.exists(cluster.jobsDir().resolve(jobId + ".up.node1"))
                                && Files.exists(cluster.jobsDir().resolve(jobId + ".up.node2"))
                        ? Optional.of(true)
                        : Optional.empty());
    }

    /** Null-safe for an {@code @AfterAll} after a failed {@code @BeforeAll}. */
    static void stop(SupervisedSteps steps) throws InterruptedException {
        if (steps != null) {
            steps.agent.stop();
            steps.plugstack.removeAll();
        }
    }
}
