package org.slurmautoresume.supervisor.step.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.SlurmConfig;
import org.slurmautoresume.slurm.parse.ConfigParser;
import org.slurmautoresume.slurm.parse.Fixtures;
import org.slurmautoresume.slurm.parse.JobParser;
import org.slurmautoresume.slurm.parse.json.JsonJobParser;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings.NodeFaultFallback;

/** Whether an unrepaired node fault ends in a requeue: from the setting, the job record and the cluster. */
class NodeFaultRequeueTest {

    private static final String RUNNING = Fixtures.read("slurm-22.05", "show-job-running.txt");
    private static final SlurmConfig V22 = new ConfigParser().parse(Fixtures.read("slurm-22.05", "show-config.txt"));

    private static Optional<Job> job(String from, String to) {
        return Optional.of(new JobParser().parseAll(RUNNING.replace(from, to)).get(0));
    }

    private static Optional<SlurmConfig> release(String version, String ctldParameters) {
        Map<String, String> values = new LinkedHashMap<>(V22.values());
        values.put("SLURM_VERSION", version);
        values.put("SlurmctldParameters", ctldParameters);
        return Optional.of(new SlurmConfig(values));
    }

    @Test
    void aRequeueableBatchJobIsRequeuedAfterSlurmsDelayOn2205() {
        NodeFaultRequeue.Verdict verdict =
                NodeFaultRequeue.decide(NodeFaultFallback.REQUEUE, job("x", "x"), Optional.of(V22));
        assertEquals(true, verdict.requeue(), verdict.why());
        assertEquals(false, verdict.expedited(), verdict.why());
        assertTrue(verdict.why().contains("requeue delay"), verdict.why());
    }

    @Test
    void aJobSubmittedWithNoRequeueIsNotRequeuedAndTheReasonSaysSo() {
        NodeFaultRequeue.Verdict verdict =
                NodeFaultRequeue.decide(NodeFaultFallback.REQUEUE, job("Requeue=1 ", "Requeue=0 "), Optional.of(V22));
        assertEquals(false, verdict.requeue());
        assertTrue(verdict.why().contains("not requeueable (Requeue=0"), verdict.why());
    }

    @Test
    void anAllocationWithoutABatchScriptIsNotRequeued() {
        NodeFaultRequeue.Verdict verdict =
                NodeFaultRequeue.decide(NodeFaultFallback.REQUEUE, job("BatchFlag=1", "BatchFlag=0"), Optional.of(V22));
        assertEquals(false, verdict.requeue());
        assertTrue(verdict.why().contains("no batch script"), verdict.why());
    }

    @Test
    void theSettingTurnsItOff() {
        NodeFaultRequeue.Verdict verdict =
                NodeFaultRequeue.decide(NodeFaultFallback.EXIT, job("x", "x"), Optional.of(V22));
        assertEquals(false, verdict.requeue());
        assertTrue(verdict.why().contains(SupervisorSettings.NODE_FAULT_FALLBACK + "=exit"), verdict.why());
    }

    @Test
    void aJobSlurmAlreadyTookOverIsLeftToIt() {
        NodeFaultRequeue.Verdict verdict = NodeFaultRequeue.decide(
                NodeFaultFallback.REQUEUE, job("JobState=RUNNING", "JobState=PENDING"), Optional.of(V22));
        assertEquals(false, verdict.requeue());
    }

    @Test
    void slurm2511ExpeditesAJobThatAskedForItOnAClusterThatAllowsIt() {
        Optional<Job> asked = job(" Power=", " ExpeditedRequeue=Yes Power=");
        NodeFaultRequeue.Verdict verdict = NodeFaultRequeue.decide(
                NodeFaultFallback.REQUEUE, asked, release("25.11.2", "enable_expedited_requeue,enable_stepmgr"));
        assertEquals(List.of(true, true), List.of(verdict.requeue(), verdict.expedited()), verdict.why());
    }

    /** --json (which 23.02 and later are read with) lists the request among the job's flags. */
    @Test
    void aJobReadAsJsonAskedForItThroughItsFlags() {
        Job asked = new JsonJobParser()
                .parseAll(Fixtures.read("slurm-25.11", "show-job-running.json"))
                .get(0);
        assertEquals(
                true,
                NodeFaultRequeue.decide(
                                NodeFaultFallback.REQUEUE,
                                Optional.of(asked),
                                release("25.11.1", "enable_expedited_requeue"))
                        .expedited());
        Job notAsked = new JsonJobParser()
                .parseAll(Fixtures.read("slurm-24.11", "show-job-running.json"))
                .get(0);
        assertEquals(
                false,
                NodeFaultRequeue.decide(
                                NodeFaultFallback.REQUEUE,
                                Optional.of(notAsked),
                                release("25.11.1", "enable_expedited_requeue"))
                        .expedited());
    }

    @Test
    void expeditedRequeueNeedsTheRelease_theClusterSetting_andTheJobsRequest() {
        Optional<Job> asked = job(" Power=", " ExpeditedRequeue=Yes Power=");
        assertEquals(
                false,
                NodeFaultRequeue.decide(
                                NodeFaultFallback.REQUEUE, asked, release("25.05.4", "enable_expedited_requeue"))
                        .expedited(),
                "before 25.11");
        assertEquals(
                false,
                NodeFaultRequeue.decide(NodeFaultFallback.REQUEUE, asked, release("25.11.0", "enable_stepmgr"))
                        .expedited(),
                "not enabled on the cluster");
        NodeFaultRequeue.Verdict notAsked = NodeFaultRequeue.decide(
                NodeFaultFallback.REQUEUE, job("x", "x"), release("25.11.0", "enable_expedited_requeue"));
        assertEquals(List.of(true, false), List.of(notAsked.requeue(), notAsked.expedited()));
        assertTrue(notAsked.why().contains("--requeue=expedite"), notAsked.why());
    }
}
