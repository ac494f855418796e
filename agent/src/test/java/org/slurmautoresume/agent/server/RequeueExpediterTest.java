package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.client.SlurmControl;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.parse.Fixtures;

/**
 * The agent moves the start of a requeued job only once Slurm holds it for nothing but its
 * requeue delay: the same job and owner, requeued since the request, pending on BeginTime.
 * Records are job 19 of a real 22.05 capture ({@code scontrol requeue 19}), edited per stage.
 */
class RequeueExpediterTest {

    private static final List<String> START_NOW = List.of("scontrol", "update", "jobid=19", "StartTime=now");

    private final FakeSlurm slurm = new FakeSlurm();
    private final AtomicLong clock = new AtomicLong();
    private final RequeueExpediter expediter =
            new RequeueExpediter(new SlurmClient(slurm.runner), new SlurmControl(slurm.runner), clock::get, false);
    /** The capture: pending on BeginTime after its second requeue. */
    private final String requeued = Fixtures.read(FakeSlurm.V22, "show-job-requeued-manual.txt");

    private String stage(String state, String reason, int restarts) {
        return requeued.replace("JobState=PENDING", "JobState=" + state)
                .replace("Reason=BeginTime", "Reason=" + reason)
                .replace("Restarts=2", "Restarts=" + restarts);
    }

    private Job running() {
        slurm.jobText("19", stage("RUNNING", "None", 1));
        return new SlurmClient(slurm.runner).job(JobId.parse("19")).orElseThrow();
    }

    private void after(Duration elapsed) {
        clock.addAndGet(elapsed.toNanos());
        expediter.round();
    }

    @Test
    void aRequeuedJobPendingOnItsRequeueDelayStartsAtOnceAfterTheSettle() {
        assertEquals(Optional.empty(), expediter.follow(running()));
        after(Duration.ofSeconds(1));
        slurm.jobText("19", stage("COMPLETING", "BeginTime", 2)); // requeued, its nodes still cleaning up
        after(Duration.ofSeconds(1));
        slurm.jobText("19", stage("PENDING", "BeginTime", 2));
        after(Duration.ofSeconds(1)); // seen pending: the settle starts
        after(Duration.ofSeconds(1));
        assertEquals(List.of(), slurm.updates, "nothing before the settle");
        after(RequeueExpediter.SETTLE);
        assertEquals(List.of(START_NOW), slurm.updates);
        assertFalse(expediter.following(), "once per request");
        after(Duration.ofSeconds(5));
        assertEquals(1, slurm.updates.size());
    }

    @Test
    void aJobHeldOrWaitingOnSomethingElseIsLeftAsItIs() {
        for (String[] stage :
                List.of(new String[] {"PENDING", "JobHeldAdmin"}, new String[] {"PENDING", "Dependency"}, new String[] {
                    "RUNNING", "None"
                })) {
            expediter.follow(running());
            slurm.jobText("19", stage(stage[0], stage[1], 2));
            after(Duration.ofSeconds(1));
            after(RequeueExpediter.SETTLE.plusSeconds(1));
            assertEquals(List.of(), slurm.updates, String.join(" ", stage));
            assertFalse(expediter.following(), String.join(" ", stage));
        }
    }

    @Test
    void aJobWhosePriorityWasZeroedIsHeldAndLeftAsItIs() {
        expediter.follow(running());
        slurm.jobText("19", stage("PENDING", "BeginTime", 2).replaceFirst("Priority=\\d+", "Priority=0"));
        after(Duration.ofSeconds(1));
        after(RequeueExpediter.SETTLE.plusSeconds(1));
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void aJobIdNowOwnedBySomeoneElseIsNotTouched() {
        expediter.follow(running());
        slurm.jobText("19", stage("PENDING", "BeginTime", 2).replace("UserId=artest(1001)", "UserId=arother(1002)"));
        after(Duration.ofSeconds(1));
        after(RequeueExpediter.SETTLE.plusSeconds(1));
        assertEquals(List.of(), slurm.updates);
        assertFalse(expediter.following());
    }

    @Test
    void aJobNeverRequeuedIsForgottenWhenTheRequestLapses() {
        expediter.follow(running());
        after(Duration.ofSeconds(1));
        assertTrue(expediter.following());
        after(RequeueExpediter.LAPSE);
        assertFalse(expediter.following());
        assertEquals(List.of(), slurm.updates);
    }

    @Test
    void onlyARunningRequeueableBatchJobIsFollowed() {
        slurm.jobText("19", stage("RUNNING", "None", 1).replace("Requeue=1", "Requeue=0"));
        Job notRequeueable =
                new SlurmClient(slurm.runner).job(JobId.parse("19")).orElseThrow();
        assertTrue(expediter.follow(notRequeueable).orElseThrow().contains("cannot be requeued"));
        slurm.jobText("19", stage("PENDING", "BeginTime", 2));
        Job pending = new SlurmClient(slurm.runner).job(JobId.parse("19")).orElseThrow();
        assertTrue(expediter.follow(pending).orElseThrow().contains("not RUNNING"));
        assertFalse(expediter.following());
    }

    @Test
    void anotherUsersJobIsRefusedByTheAgent() {
        slurm.jobText("19", stage("RUNNING", "None", 1));
        AgentPolicy policy = new AgentPolicy(slurm.runner, node -> Optional.empty(), "root");
        AgentResponse refused = policy.handle(new Caller(1002, "mallory"), AgentRequest.expedite("19"));
        assertFalse(refused.ok(), refused.message());
        assertTrue(refused.message().contains("belongs to artest"), refused.message());
        AgentResponse taken = policy.handle(new Caller(1001, "artest"), AgentRequest.expedite("19"));
        assertTrue(taken.ok(), taken.message());
    }
}
