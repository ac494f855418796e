package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.parse.ConfigParser;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.json.JsonJobParser;

class RecoveryPathsTest {

    /** The local cluster's recorded 22.05 configuration: permit_job_expansion, no PrologFlags. */
    private final SlurmConfig cpuOnly = new ConfigParser().parse(Fixtures.read("slurm-22.05", "show-config.txt"));

    private static final String JOB = "JobId=5 JobName=train UserId=artest(1001) JobState=RUNNING Requeue=1 "
            + "NodeList=node[1-2] NumNodes=2 OverSubscribe=NO";

    private static Job job(String line) {
        return new JobParser().parse(line);
    }

    private SlurmConfig with(String key, String value) {
        Map<String, String> values = new LinkedHashMap<>(cpuOnly.values());
        values.put(key, value);
        return new SlurmConfig(values);
    }

    @Test
    void aCpuJobOnTheCpuOnlyClusterMayBeGrown() {
        assertEquals(Optional.empty(), RecoveryPaths.whyNoExpansion(cpuOnly, job(JOB)));
    }

    @Test
    void withoutTheSwitchNothingElseIsLookedAt() {
        Optional<String> why = RecoveryPaths.whyNoExpansion(
                with("SchedulerParameters", "bf_continue"), job(JOB + " TresPerNode=gres:gpu:8"));
        assertTrue(why.orElseThrow().contains("permit_job_expansion"), why.toString());
    }

    @Test
    void gresAsEachReleasePrintsItRulesExpansionOut() {
        for (String fields : List.of(
                "TresPerNode=gres:gpu:8",
                "TresPerJob=gres/gpu:16",
                "TresPerTask=gres/gpu:1",
                "TRES=cpu=16,mem=64G,node=2,billing=16,gres/gpu=16",
                "AllocTRES=cpu=16,node=2,gres/gpu:h100=16")) {
            Optional<String> why = RecoveryPaths.whyNoExpansion(cpuOnly, job(JOB + " " + fields));
            assertTrue(why.orElseThrow().contains("GRES (gres"), fields + ": " + why);
        }
        Job json = new JsonJobParser().parseAll("""
                {"jobs": [{"job_id": 7, "job_state": ["RUNNING"], "tres_per_node": "gres/gpu:8"}]}""").get(0);
        assertTrue(RecoveryPaths.whyNoExpansion(cpuOnly, json).orElseThrow().contains("gres/gpu:8"));
    }

    @Test
    void tresWithoutGresAndNullFieldsDoNotCount() {
        Job cpu = job(JOB + " TRES=cpu=16,mem=64G,node=2,billing=16 TresPerNode=(null)");
        assertEquals(Optional.empty(), RecoveryPaths.whyNoExpansion(cpuOnly, cpu));
    }

    @Test
    void containOrX11GiveEveryAllocationAnExternStep() {
        for (String flags : List.of("Alloc,Contain", "contain", "X11")) {
            Optional<String> why = RecoveryPaths.whyNoExpansion(with("PrologFlags", flags), job(JOB));
            assertTrue(why.orElseThrow().startsWith("PrologFlags=" + flags), why.toString());
        }
        assertEquals(Optional.empty(), RecoveryPaths.whyNoExpansion(with("PrologFlags", "Alloc,Serial"), job(JOB)));
    }

    @Test
    void orLicensesStopExpansionFrom2505Only() {
        Job licensed = job(JOB + " Licenses=fluent|abaqus");
        assertTrue(RecoveryPaths.whyNoExpansion(with("SLURM_VERSION", "25.05.1"), licensed)
                .isPresent());
        assertEquals(Optional.empty(), RecoveryPaths.whyNoExpansion(with("SLURM_VERSION", "24.11.5"), licensed));
        assertEquals(
                Optional.empty(),
                RecoveryPaths.whyNoExpansion(with("SLURM_VERSION", "25.11.0"), job(JOB + " Licenses=fluent,abaqus")));
    }

    private static final InJobSpares ONE_SPARE =
            new InJobSpares(2, List.of("node1", "node2", "node3"), "node1", List.of("node1", "node2"));
    private static final RecoveryPaths GPU = new RecoveryPaths(Optional.of("job 5 holds GRES (gres:gpu:4)"));

    @Test
    void aSpareTheJobStillHoldsIsARepairEvenWithoutExpansion() {
        assertEquals(
                Optional.empty(),
                GPU.noRepairFor(
                        Optional.of(ONE_SPARE),
                        ONE_SPARE.stepNodes(),
                        List.of("node2"),
                        false,
                        () -> List.of("node1", "node2", "node3")));
    }

    @Test
    void noSpareLeftAndNoExpansionIsKnownBeforeAnythingIsTried() {
        // The spare already took node2's place; now node3 fails.
        Optional<String> why = GPU.noRepairFor(
                Optional.of(ONE_SPARE),
                List.of("node1", "node3"),
                List.of("node3"),
                true,
                () -> List.of("node1", "node3"));
        assertTrue(why.orElseThrow().contains("no in-job spare is left"), why.toString());
        assertTrue(why.get().contains("GRES"), why.toString());
    }

    @Test
    void withoutSparesOnlyAConfiguredReplacementIsRuledOut() {
        Supplier<List<String>> unread = () -> {
            throw new AssertionError("the job need not be read without spares");
        };
        assertTrue(GPU.noRepairFor(Optional.empty(), List.of(), List.of("node2"), true, unread)
                .isPresent());
        assertEquals(Optional.empty(), GPU.noRepairFor(Optional.empty(), List.of(), List.of("node2"), false, unread));
    }

    @Test
    void unknownPathsOrAnUnreadableJobRuleNothingOut() {
        assertEquals(
                Optional.empty(),
                RecoveryPaths.UNKNOWN.noRepairFor(
                        Optional.of(ONE_SPARE),
                        List.of("node1", "node3"),
                        List.of("node3"),
                        true,
                        () -> List.of("node1", "node3")));
        assertEquals(
                Optional.empty(),
                GPU.noRepairFor(Optional.of(ONE_SPARE), ONE_SPARE.stepNodes(), List.of("node2"), true, () -> {
                    throw new IllegalStateException("slurmctld away");
                }));
    }

    @Test
    void theTimelineSaysWhichPathsAreOpen() {
        NodeFaultRequeue.Verdict requeue =
                new NodeFaultRequeue.Verdict(true, false, "job 5 is requeueable (Requeue=1)");
        assertEquals(
                List.of(
                        "spares",
                        "node3",
                        "expansion",
                        "impossible",
                        "noExpansion",
                        "job 5 holds GRES (gres:gpu:4)",
                        "requeue",
                        "true"),
                List.of(GPU.details(Optional.of(ONE_SPARE), false, requeue)));
        assertEquals(
                List.of("spares", "", "expansion", "possible", "noExpansion", "", "requeue", "false"),
                List.of(RecoveryPaths.UNKNOWN.details(
                        Optional.empty(), true, new NodeFaultRequeue.Verdict(false, false, "off"))));
        assertEquals("unused", RecoveryPaths.UNKNOWN.details(Optional.empty(), false, requeue)[3]);
        String line = GPU.describe(Optional.of(ONE_SPARE), false, requeue);
        assertTrue(line.startsWith("in-job spare node3; no job expansion: job 5 holds GRES"), line);
        assertTrue(line.endsWith("then requeue: job 5 is requeueable (Requeue=1)"), line);
    }

    @Test
    void anAgentWhoseSocketIsThereButSilentIsWaitedForNotWrittenOff() {
        Optional<String> away = Optional.of("nothing listens on /run/autoresume/agent.sock");
        assertEquals("", RecoveryPaths.agentPart(Optional.empty(), true));
        assertTrue(RecoveryPaths.agentPart(away, false).startsWith("; no agent: nothing listens"));
        String restarting = RecoveryPaths.agentPart(away, true);
        assertTrue(restarting.startsWith("; the agent does not answer now (nothing listens"), restarting);
        assertTrue(restarting.contains("recovery waits for it a while (AUTORESUME_AGENT_OUTAGE)"), restarting);
    }
}
