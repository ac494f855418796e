package org.slurmautoresume.supervisor.step;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.settings.Allocation;

/** The first attempt's MASTER_ADDR from the records the launcher read ahead, and what happens when they fall short. */
class JobNodeRecordsTest {

    private static final SupervisorLog QUIET =
            new SupervisorLog(new PrintStream(OutputStream.nullOutputStream()), "42");

    @TempDir
    Path dir;

    @Test
    void theLaunchersAnswerServesAndSlurmIsNotAskedAgain() throws Exception {
        FakeSlurm slurm = new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2", "node3"));
        Path pipe = dir.resolve("answer");
        // What scontrol said when the launcher asked: node1 at an address the fake would not give.
        Files.writeString(pipe, launcherAnswer(slurm));
        int askedBefore = slurm.ran("node").size();

        JobNodeRecords records =
                JobNodeRecords.readAhead(slurm.client(), QUIET, List.of("node1", "node2"), Optional.of(pipe));

        assertEquals(Optional.of("192.168.7.1"), records.addressOf("node1"));
        assertEquals(askedBefore, slurm.ran("node").size(), "Slurm was asked again: " + slurm.ran("node"));
    }

    @Test
    void anAnswerThatLacksANodeIsAskedAgainTheOrdinaryWay() throws Exception {
        FakeSlurm slurm = new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2", "node3"));
        Path pipe = dir.resolve("answer");
        Files.writeString(pipe, launcherAnswer(slurm).lines().findFirst().orElseThrow() + "\n"); // node1 only
        int askedBefore = slurm.ran("node").size();

        JobNodeRecords records =
                JobNodeRecords.readAhead(slurm.client(), QUIET, List.of("node1", "node2"), Optional.of(pipe));

        assertEquals(Optional.of("10.0.0.1"), records.addressOf("node1"), "Slurm's own answer, not the partial one");
        assertEquals(askedBefore + 1, slurm.ran("node").size());
    }

    @Test
    void noAnswerAtAllIsAskedAgainTheOrdinaryWay() {
        FakeSlurm slurm = new FakeSlurm(List.of("node1", "node2"), List.of("node1", "node2", "node3"));

        JobNodeRecords records = JobNodeRecords.readAhead(
                slurm.client(), QUIET, List.of("node1", "node2"), Optional.of(dir.resolve("no-such-pipe")));

        assertEquals(Optional.of("10.0.0.1"), records.addressOf("node1"));
    }

    @Test
    void onlyADescriptorNumberNamesAPipe() {
        assertEquals(
                Optional.of(Path.of("/proc/self/fd/11")),
                Allocation.launcherPipe(Map.of(Allocation.NODE_RECORDS_FD, "11")));
        assertEquals(Optional.empty(), Allocation.launcherPipe(Map.of(Allocation.NODE_RECORDS_FD, "../../x")));
        assertEquals(Optional.empty(), Allocation.launcherPipe(Map.of()));
    }

    /** The fake's records of node[1-2] as scontrol -o prints them, node1 at 192.168.7.1. */
    private static String launcherAnswer(FakeSlurm slurm) {
        return slurm.run(new CommandRequest(
                        List.of("scontrol", "-o", "show", "node", "node[1-2]"), Duration.ofSeconds(5), Map.of()))
                .stdout()
                .replace("NodeAddr=10.0.0.1 ", "NodeAddr=192.168.7.1 ");
    }
}
