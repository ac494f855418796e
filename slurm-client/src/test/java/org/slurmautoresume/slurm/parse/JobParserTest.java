package org.slurmautoresume.slurm.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

class JobParserTest {

    private static final String V22 = "slurm-22.05";
    private final JobParser parser = new JobParser();

    static Stream<Arguments> jobFixtures() {
        return Fixtures.namedInEveryVersion("show-job-");
    }

    @ParameterizedTest
    @MethodSource("jobFixtures")
    void keepsEveryFieldOfEveryRecord(String version, String fixture) {
        String output = Fixtures.read(version, fixture);
        List<Job> jobs = parser.parseAll(output);
        List<String> records = Fixtures.records(output);
        assertEquals(records.size(), jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            assertEquals(
                    Fixtures.normalise(records.get(i)),
                    Fixtures.rebuild(jobs.get(i).raw()),
                    fixture);
            assertTrue(jobs.get(i).state() != JobState.UNKNOWN, fixture);
            assertEquals("artest", jobs.get(i).userName(), fixture);
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                // version | fixture | job | state | reason | node list | nodes | batch host | restarts | exit | signal
                // | requeue
                "slurm-22.05 | show-job-running.txt | 8 | RUNNING | '' | node1 | 1 | node1 | 0 | 0 | 0 | true",
                "slurm-22.05 | show-job-running-multiline.txt | 8 | RUNNING | '' | node1 | 1 | node1 | 0 | 0 | 0 | true",
                "slurm-22.05 | show-job-running-shrunk-nokill.txt | 6 | RUNNING | '' | node[1,3] | 2 | node1 | 0 | 0 | 0 | true",
                "slurm-22.05 | show-job-completed-after-shrink.txt | 6 | COMPLETED | '' | node[1,3] | 2 | node1 | 0 | 0 | 0 | true",
                "slurm-22.05 | show-job-completed.txt | 3 | COMPLETED | '' | node[1-2] | 2 | node1 | 0 | 0 | 0 | true",
                "slurm-22.05 | show-job-failed.txt | 13 | FAILED | NonZeroExitCode | node1 | 1 | node1 | 0 | 3 | 0 | true",
                "slurm-22.05 | show-job-cancelled.txt | 7 | CANCELLED | '' | node4 | 1 | node4 | 0 | 0 | 15 | true",
                "slurm-22.05 | show-job-timeout.txt | 8 | TIMEOUT | TimeLimit | node1 | 1 | node1 | 0 | 0 | 15 | true",
                "slurm-22.05 | show-job-node-fail.txt | 20 | NODE_FAIL | NodeDown | node[3-4] | 2 | node3 | 0 | 0 | 15 | false",
                "slurm-22.05 | show-job-completing.txt | 11 | COMPLETING | '' | node4 | 1 | node4 | 0 | 0 | 0 | true",
                "slurm-22.05 | show-job-pending-resources.txt | 14 | PENDING | Resources | '' | 4 | - | 0 | 0 | 0 | true",
                "slurm-22.05 | show-job-pending-held.txt | 15 | PENDING | JobHeldUser | '' | 1 | - | 0 | 0 | 0 | true",
                "slurm-22.05 | show-job-requeued-node-fail-pending.txt | 19 | PENDING | BeginTime | '' | 2 | - | 1 | 0 | 0 | true",
                "slurm-22.05 | show-job-running-after-requeue.txt | 19 | RUNNING | '' | node[2,4] | 2 | node2 | 1 | 0 | 0 | true",
                "slurm-23.11 | show-job-running.txt | 8 | RUNNING | '' | node1 | 1 | node1 | 0 | 0 | 0 | true",
                "slurm-23.11 | show-job-running-shrunk-nokill.txt | 6 | RUNNING | '' | node[1,3] | 2 | node1 | 0 | 0 | 0 | true",
                "slurm-23.11 | show-job-completed.txt | 3 | COMPLETED | '' | node[1-2] | 2 | node1 | 0 | 0 | 0 | true",
                "slurm-23.11 | show-job-failed.txt | 13 | FAILED | NonZeroExitCode | node1 | 1 | node1 | 0 | 3 | 0 | true",
                "slurm-23.11 | show-job-node-fail.txt | 20 | NODE_FAIL | NodeDown | node[3-4] | 2 | node3 | 0 | 0 | 15 | false",
                "slurm-23.11 | show-job-pending-resources.txt | 14 | PENDING | Resources | '' | 4 | - | 0 | 0 | 0 | true",
                "slurm-24.05 | show-job-running.txt | 8 | RUNNING | '' | node1 | 1 | node1 | 0 | 0 | 0 | true",
                "slurm-24.05 | show-job-running-shrunk-nokill.txt | 6 | RUNNING | '' | node[1,3] | 2 | node1 | 0 | 0 | 0 | true",
                "slurm-24.05 | show-job-completed.txt | 3 | COMPLETED | '' | node[1-2] | 2 | node1 | 0 | 0 | 0 | true",
                "slurm-24.05 | show-job-failed.txt | 13 | FAILED | NonZeroExitCode | node1 | 1 | node1 | 0 | 3 | 0 | true",
                "slurm-24.05 | show-job-node-fail.txt | 20 | NODE_FAIL | NodeDown | node[3-4] | 2 | node3 | 0 | 0 | 15 | false",
                "slurm-24.05 | show-job-pending-resources.txt | 14 | PENDING | Resources | '' | 4 | - | 0 | 0 | 0 | true"
            })
    void readsTheFieldsRecoveryDependsOn(
            String version,
            String fixture,
            String jobId,
            JobState state,
            String reason,
            String nodeList,
            int numNodes,
            String batchHost,
            int restarts,
            int exit,
            int signal,
            boolean requeue) {
        Job job = parser.parseAll(Fixtures.read(version, fixture)).get(0);
        assertEquals(jobId, job.jobId());
        assertEquals(state, job.state());
        assertEquals(reason, job.reason());
        assertEquals(nodeList, job.nodeList());
        assertEquals(numNodes, job.numNodes());
        assertEquals(batchHost, job.batchHost().orElse(null));
        assertEquals(restarts, job.restarts());
        assertEquals(exit, job.exitCode().orElseThrow().status());
        assertEquals(signal, job.exitCode().orElseThrow().signal());
        assertEquals(requeue, job.requeue());
    }

    /** 23.02 split TRES into ReqTRES and AllocTRES and added FailedNode and Extra. */
    /** 26.05 prints node exclusivity as Exclusive; its OverSubscribe is NO for an exclusive and a shared job alike. */
    @Test
    void exclusiveSaysWhetherA2605JobSharesItsNodes() {
        String exclusive = Fixtures.read("slurm-26.05", "show-job-exclusive.txt");
        String shared = Fixtures.read("slurm-26.05", "show-job-shared.txt");
        assertEquals("NO", parser.parseAll(exclusive).get(0).overSubscribe());
        assertEquals("OK", parser.parseAll(shared).get(0).overSubscribe());
        assertEquals(
                "USER",
                parser.parseAll(shared.replace("Exclusive=NO", "Exclusive=USER"))
                        .get(0)
                        .overSubscribe());
        assertEquals(
                "YES",
                parser.parseAll(shared.replace("OverSubscribe=NO", "OverSubscribe=YES"))
                        .get(0)
                        .overSubscribe());
        // Releases before 26.05 print no Exclusive: OverSubscribe is taken as it is.
        assertEquals(
                "NO",
                parser.parseAll(shared.replace(" Exclusive=NO", "")).get(0).overSubscribe());
    }

    @Test
    void readsTheFieldsRelease2302Added() {
        Job failed = parser.parseAll(Fixtures.read("slurm-23.11", "show-job-node-fail.txt"))
                .get(0);
        assertEquals("node4", failed.raw().get("FailedNode"));
        assertEquals("NodeDown", failed.reason());
        assertEquals("cpu=2,node=2,billing=2", failed.raw().get("AllocTRES"));
        assertFalse(failed.raw().containsKey("TRES"));
        Job pending = parser.parseAll(Fixtures.read("slurm-23.11", "show-job-pending-resources.txt"))
                .get(0);
        assertEquals("waiting for 4 nodes", pending.raw().get("Comment"));
        assertEquals("team=ml", pending.raw().get("Extra"));
        assertEquals("cpu=4,mem=8G,node=4,billing=4", pending.raw().get("ReqTRES"));
        assertEquals("(null)", pending.raw().get("AllocTRES"));
        assertEquals(
                "/var/tmp/autoresume-cluster/jobs/big-14.out", pending.raw().get("StdErr"));
        assertEquals("", pending.raw().get("Power"));
    }

    @Test
    void release2405DropsPowerAndAddsStepMgrEnabled() {
        Job job = parser.parseAll(Fixtures.read("slurm-24.05", "show-job-running-shrunk-nokill.txt"))
                .get(0);
        assertEquals("Yes", job.raw().get("StepMgrEnabled"));
        assertEquals("node1", job.batchHost().orElseThrow());
        assertFalse(job.raw().containsKey("Power"));
        assertEquals("/var/tmp/autoresume-cluster/jobs/nokill-6.out", job.raw().get("StdOut"));
    }

    /** Newer releases reprint the 22.05 situations; only the raw fields may differ. */
    @ParameterizedTest
    @CsvSource({
        "slurm-23.11, show-job-running.txt", "slurm-23.11, show-job-running-shrunk-nokill.txt",
        "slurm-23.11, show-job-completed.txt", "slurm-23.11, show-job-failed.txt",
        "slurm-23.11, show-job-node-fail.txt", "slurm-23.11, show-job-pending-resources.txt",
        "slurm-24.05, show-job-running.txt", "slurm-24.05, show-job-running-shrunk-nokill.txt",
        "slurm-24.05, show-job-completed.txt", "slurm-24.05, show-job-failed.txt",
        "slurm-24.05, show-job-node-fail.txt", "slurm-24.05, show-job-pending-resources.txt"
    })
    void newerReleasesParseToThe2205Values(String version, String fixture) {
        Job newer = parser.parseAll(Fixtures.read(version, fixture)).get(0);
        Job captured = parser.parseAll(Fixtures.read(V22, fixture)).get(0);
        assertEquals(ModelValues.of(captured), ModelValues.of(newer));
    }

    @Test
    void aJobNameWithBlanksAndEqualsSignsStaysWhole() {
        Job job = parser.parse("JobId=42 JobName=train run lr=3e-4 UserId=alice(2001) GroupId=alice(2001) "
                + "JobState=RUNNING Reason=None Requeue=0 Restarts=0 BatchFlag=1 Partition=train ExcNodeList=gpu07 "
                + "NodeList=gpu[01-04] BatchHost=gpu01 NumNodes=4 "
                + "Command=/home/alice/my job.sh WorkDir=/home/alice/runs/a b");
        assertEquals("train run lr=3e-4", job.name());
        assertEquals("alice", job.userName());
        assertEquals(2001, job.userId().getAsInt());
        assertEquals("gpu07", job.excludedNodes());
        assertEquals("/home/alice/my job.sh", job.raw().get("Command"));
        assertEquals("/home/alice/runs/a b", job.raw().get("WorkDir"));
        assertEquals(false, job.requeue());
    }

    /** 25.11's {@code -d} prints SLUID between JobName and UserId: the name ends there. */
    @Test
    void aJobNameEndsAtTheSluidPrintedAfterIt() {
        assertTrue(JobParser.KNOWN_KEYS.contains("SLUID"));
        Job job = parser.parse("JobId=42 JobName=train run lr=3e-4 SLUID=s5XNM87ZHGBC00 UserId=alice(2001) "
                + "GroupId=alice(2001) JobState=RUNNING Reason=None Requeue=0 Restarts=0 BatchFlag=1 Partition=train "
                + "NodeList=gpu[01-04] BatchHost=gpu01 NumNodes=4 Command=/home/alice/my job.sh "
                + "SubmitLine=sbatch -N4 --wrap=x WorkDir=/home/alice");
        assertEquals("train run lr=3e-4", job.name());
        assertEquals("s5XNM87ZHGBC00", job.raw().get("SLUID"));
        assertEquals("alice", job.userName());
        assertEquals("/home/alice/my job.sh", job.raw().get("Command"));
        assertEquals("sbatch -N4 --wrap=x", job.raw().get("SubmitLine"));
    }

    @Test
    void anArrayJobPrintsOneRecordPerTask() {
        List<Job> jobs = parser.parseAll(Fixtures.read(V22, "show-job-array-running.txt"));
        assertEquals(3, jobs.size());
        assertTrue(jobs.stream().allMatch(j -> j.raw().containsKey("ArrayJobId")));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "JobId=$(id) JobState=RUNNING",
                "JobId=-5 JobState=RUNNING",
                "JobId=12;reboot JobState=RUNNING",
                "JobId=0 JobState=RUNNING"
            })
    void aRecordWhoseJobIdIsNotOneIsRefusedQuotingIt(String line) {
        ParseException e =
                org.junit.jupiter.api.Assertions.assertThrows(ParseException.class, () -> parser.parse(line));
        assertTrue(e.getMessage().contains("JobId: not a valid job id"), e.getMessage());
    }

    @Test
    void aHetComponentsJobIdIsItsOwnNumber() {
        Job job = parser.parse("JobId=124 HetJobId=123 HetJobOffset=1 JobState=RUNNING");
        assertEquals("124", job.jobId());
    }
}
