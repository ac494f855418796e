package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.slurmautoresume.slurm.parse.Records.jobText;
import static org.slurmautoresume.slurm.parse.Records.nodeText;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.nodeops.sweep.SweepLock;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.plugin.HostPlugins;

/** `autoresume sweep` over recorded 22.05 output, at 04:30 on the capture's day. */
class SweepCommandTest {

    @TempDir
    Path dir;

    // No plugstack of this machine's: its auto_resume.so, if any, is not part of these tests.
    private final CliHarness cli = new CliHarness(Map.of("SLURM_CONF", "/nonexistent/slurm.conf"));

    /** node2 back as IDLE+FAIL, node4 idle; the site's health check passes for node2. */
    private Path clusterWithAReturnedNode(String extraPolicy) throws Exception {
        cli.answer(
                        List.of("-o", "show", "node"),
                        0,
                        nodeText("show-node-idle-fail.txt", "node2") + "\n" + nodeText("show-node-idle.txt", "node4")
                                + "\n",
                        "")
                .answer(List.of("-o", "show", "job"), 0, "No jobs in the system\n", "")
                .answer(List.of("node2"), 0, "", "")
                .answer(List.of("update", "nodename=node2", "state=resume"), 0, "", "")
                .answer(eventsOfNode2(), 0, "node2|2026-11-22T04:14:02|Unknown|FAIL|root(0)|Action:Replace\n", "");
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(policy, "healthCommand: [check-node, \"{node}\"]\nmaxPartitionPercent: 50\n" + extraPolicy);
        return policy;
    }

    private String lock() {
        return dir.resolve("sweep.lock").toString();
    }

    /** The sacctmgr query of node2's history a sweep makes at the harness's 04:30, for the default week. */
    private static List<String> eventsOfNode2() {
        return List.of(
                "-n",
                "-P",
                "show",
                "event",
                "event=node",
                "nodes=node2",
                "start=2026-11-15T04:30",
                "format=" + org.slurmautoresume.slurm.parse.NodeEventParser.FORMAT);
    }

    @Test
    void aReturnedNodeMarkedTheThirdTimeThisWeekIsHeldNotResumed() throws Exception {
        Path policy = clusterWithAReturnedNode("");
        cli.answer(eventsOfNode2(), 0, """
                node2|2026-11-17T08:00:00|2026-11-17T09:00:00|FAIL|root(0)|Action:Replace
                node2|2026-11-20T08:00:00|2026-11-20T08:30:00|FAIL|root(0)|Action:Reboot Xid 79
                node2|2026-11-22T04:14:02|Unknown|FAIL|root(0)|Action:Replace
                """, "");
        cli.answer(
                List.of(
                        "update",
                        "nodename=node2",
                        "state=fail",
                        "reason=autoresume: lemon: marked faulty 3 times within the last 7 days (limit 3 in 7 days),"
                                + " last 2026-11-22T04:14:02; kept out for a person: autoresume node lemons"),
                0,
                "",
                "");
        assertEquals(
                ExitCode.SWEEP_ACTED.code(),
                cli.run("sweep", "--policy", policy.toString(), "--lock", lock(), "--json"),
                cli.err);
        JsonNode action = new ObjectMapper().readTree(cli.out).get("actions").get(0);
        assertEquals("hold-lemon", action.get("kind").asText(), cli.out);
        assertEquals("done", action.get("result").asText(), cli.out);
        verify(cli.runner)
                .run(argThat(r -> r != null
                        && r.argv().size() == 5
                        && r.argv().subList(0, 4).equals(List.of("scontrol", "update", "nodename=node2", "state=fail"))
                        && r.argv().get(4).startsWith("reason=autoresume: lemon: marked faulty 3 times")));
        verify(cli.runner, never()).run(argThat(r -> r != null && r.argv().equals(List.of("check-node", "node2"))));
        verify(cli.runner, never())
                .run(argThat(r ->
                        r != null && r.argv().equals(List.of("scontrol", "update", "nodename=node2", "state=resume"))));
    }

    @Test
    void aReturnedNodeIsCheckedAndResumed() throws Exception {
        Path policy = clusterWithAReturnedNode("");
        assertEquals(
                ExitCode.SWEEP_ACTED.code(),
                cli.run("sweep", "--policy", policy.toString(), "--lock", lock(), "--json"),
                cli.err);
        JsonNode report = new ObjectMapper().readTree(cli.out);
        assertEquals("acted", report.get("status").asText());
        assertEquals(2, report.get("nodesSeen").asInt());
        JsonNode action = report.get("actions").get(0);
        assertEquals("resume-if-healthy", action.get("kind").asText());
        assertEquals("node2", action.get("target").asText());
        assertEquals("done", action.get("result").asText());
        verify(cli.runner).run(argThat(r -> r != null && r.argv().equals(List.of("check-node", "node2"))));
        verify(cli.runner)
                .run(argThat(r ->
                        r != null && r.argv().equals(List.of("scontrol", "update", "nodename=node2", "state=resume"))));
    }

    @Test
    void thePassIsWrittenForTheTextfileCollectorReplacingWhateverWasThere() throws Exception {
        Path policy = clusterWithAReturnedNode("");
        Path textfile = dir.resolve("autoresume_sweep.prom");
        // A link planted where the file goes is replaced, never written through.
        Path victim = Files.writeString(dir.resolve("victim"), "untouched\n");
        Files.createSymbolicLink(textfile, victim);
        assertEquals(
                ExitCode.SWEEP_ACTED.code(),
                cli.run("sweep", "--policy", policy.toString(), "--lock", lock(), "--textfile", textfile.toString()),
                cli.err);
        assertEquals("untouched\n", Files.readString(victim));
        assertFalse(Files.isSymbolicLink(textfile));
        String metrics = Files.readString(textfile);
        assertEquals(1.0, sample(metrics, "autoresume_sweep_last_pass_status{status=\"acted\"}"), metrics);
        assertEquals(0.0, sample(metrics, "autoresume_sweep_last_pass_status{status=\"held-back\"}"), metrics);
        assertEquals(
                1.0,
                sample(metrics, "autoresume_sweep_last_pass_actions{kind=\"resume-if-healthy\",result=\"done\"}"),
                metrics);
        assertEquals(2.0, sample(metrics, "autoresume_sweep_last_pass_nodes_seen"), metrics);
        // What did not happen is there too, at 0.
        assertEquals(
                0.0,
                sample(metrics, "autoresume_sweep_last_pass_actions{kind=\"mark-replace\",result=\"failed\"}"),
                metrics);
        assertEquals(0.0, sample(metrics, "autoresume_sweep_last_pass_held_back{kind=\"escalate-to-down\"}"), metrics);
        double at = sample(metrics, "autoresume_sweep_last_pass_timestamp_seconds");
        assertTrue(Math.abs(at - System.currentTimeMillis() / 1000.0) < 60, metrics);
        assertEquals(
                "rw-r--r--",
                java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(textfile)));
        try (var left = Files.list(dir)) {
            assertEquals(
                    List.of(),
                    left.filter(p -> p.getFileName().toString().endsWith(".tmp"))
                            .toList());
        }
    }

    @Test
    void aDryRunWritesNoTextfileAndOnlyPromFilesAreTaken() throws Exception {
        Path policy = clusterWithAReturnedNode("");
        Path textfile = dir.resolve("autoresume_sweep.prom");
        assertEquals(
                ExitCode.SWEEP_ACTED.code(),
                cli.run(
                        "sweep",
                        "--policy",
                        policy.toString(),
                        "--lock",
                        lock(),
                        "--dry-run",
                        "--textfile",
                        textfile.toString()),
                cli.err);
        assertFalse(Files.exists(textfile));
        assertEquals(
                ExitCode.USAGE.code(),
                cli.run("sweep", "--textfile", dir.resolve("sweep.txt").toString()));
        assertTrue(cli.err.contains("*.prom"), cli.err);
    }

    /** The value of one sample line, {@code name{labels} value}; NaN when absent. */
    private static double sample(String text, String series) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                        "(?m)^" + java.util.regex.Pattern.quote(series) + " (\\S+)$")
                .matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    @Test
    void dryRunPrintsThePlanAndRunsNothing() throws Exception {
        Path policy = clusterWithAReturnedNode("");
        assertEquals(
                ExitCode.SWEEP_ACTED.code(),
                cli.run("sweep", "--policy", policy.toString(), "--lock", lock(), "--dry-run"),
                cli.err);
        assertTrue(cli.out.contains("dry run") && cli.out.contains("planned: resume-if-healthy node2"), cli.out);
        verify(cli.runner, never())
                .run(argThat(r -> r != null
                        && (r.argv().contains("update") || r.argv().get(0).equals("check-node"))));
        assertFalse(Files.exists(dir.resolve("sweep.lock")), "a dry run takes no lock");
    }

    @Test
    void aSecondSweepFindsTheLockBusyAndSaysWho() throws Exception {
        Path policy = clusterWithAReturnedNode("");
        try (SweepLock held = SweepLock.acquire(Path.of(lock()))) {
            assertEquals(
                    ExitCode.SWEEP_LOCK_BUSY.code(),
                    cli.run(
                            "sweep",
                            "--policy",
                            policy.toString(),
                            "--lock",
                            lock(),
                            "--json",
                            "--textfile",
                            dir.resolve("sweep.prom").toString()));
        }
        assertTrue(cli.err.contains("another sweep is running") && cli.err.contains("pid="), cli.err);
        assertEquals(
                "lock-busy", new ObjectMapper().readTree(cli.out).get("status").asText());
        String metrics = Files.readString(dir.resolve("sweep.prom"));
        assertEquals(1.0, sample(metrics, "autoresume_sweep_last_pass_status{status=\"lock-busy\"}"), metrics);
        verify(cli.runner, never()).run(argThat(r -> r != null && r.argv().contains("update")));
    }

    @Test
    void capsHoldBackAndExitEleven() throws Exception {
        Path policy = clusterWithAReturnedNode("maxNodes: 0\n");
        assertEquals(
                ExitCode.SWEEP_HELD_BACK.code(), cli.run("sweep", "--policy", policy.toString(), "--lock", lock()));
        assertTrue(cli.out.contains("held back: resume-if-healthy node2") && cli.out.contains("maxNodes=0"), cli.out);
    }

    @Test
    void nothingToDoExitsZero() {
        cli.answer(List.of("-o", "show", "node"), 0, nodeText("show-node-idle.txt", "node4") + "\n", "")
                .answer(List.of("-o", "show", "job"), 0, "No jobs in the system\n", "");
        assertEquals(0, cli.run("sweep", "--lock", lock()), cli.err);
        assertTrue(cli.out.contains("nothing-to-do"), cli.out);
    }

    @Test
    void aPendingExpansionOfAJobThatEndedIsCancelled() {
        cli.answer(List.of("-o", "show", "node"), 0, nodeText("show-node-idle.txt", "node4") + "\n", "")
                .answer(
                        List.of("-o", "show", "job"),
                        0,
                        jobText("show-job-expansion-donor.txt")
                                        .replace("JobName=no-shell", "JobName=autoresume-donor-21")
                                        .replace("JobState=RUNNING", "JobState=PENDING")
                                        .replace("Dependency=(null)", "Dependency=expand:21(failed)")
                                + "\n",
                        "")
                .answer(List.of("22"), 0, "", "");
        assertEquals(ExitCode.SWEEP_ACTED.code(), cli.run("sweep", "--lock", lock()), cli.err);
        verify(cli.runner).run(argThat(r -> r != null && r.argv().equals(List.of("scancel", "22"))));
    }

    @Test
    void leftoverDonorRecordsAndJobsNamedLikeDonorsAreReportedAndLeftAlone() throws Exception {
        String emptied = jobText("show-job-expansion-donor-emptied.txt"); // job 22, EndTime 2027-11-22
        String forged = jobText("show-job-running.txt").replace("JobName=timeout", "JobName=autoresume-donor-999");
        cli.answer(List.of("-o", "show", "node"), 0, nodeText("show-node-idle.txt", "node4") + "\n", "")
                .answer(List.of("-o", "show", "job"), 0, emptied + "\n" + forged + "\n", "");
        assertEquals(ExitCode.OK.code(), cli.run("sweep", "--lock", lock(), "--json"), cli.err);
        JsonNode report = new ObjectMapper().readTree(cli.out);
        assertEquals("nothing-to-do", report.get("status").asText());
        assertEquals(0, report.get("actions").size());
        JsonNode leftovers = report.get("leftoverJobs");
        assertEquals(2, leftovers.size(), cli.out);
        assertEquals("emptied-donor-record", leftovers.get(0).get("kind").asText());
        assertEquals("22", leftovers.get(0).get("jobId").asText());
        assertEquals("2027-11-22T04:18:15", leftovers.get(0).get("endTime").asText());
        assertEquals("donor-named-job", leftovers.get(1).get("kind").asText());
        assertEquals("8", leftovers.get(1).get("jobId").asText());
        verify(cli.runner, never())
                .run(argThat(r -> r != null && r.argv().get(0).equals("scancel")));
    }

    @Test
    void aJobNameWithALineBreakIsReportedAndTheRestIsStillSwept() throws Exception {
        // scontrol -o prints the name as written: the record of job 8 comes out in two lines.
        String split = jobText("show-job-running.txt").replace("JobName=timeout", "JobName=x\nJobState=RUNNING");
        String donor =
                jobText("show-job-expansion-donor.txt").replace("JobName=no-shell", "JobName=autoresume-donor-21");
        Path policy = clusterWithAReturnedNode("");
        cli.answer(List.of("-o", "show", "job"), 0, split + "\n" + donor + "\n", "")
                .answer(List.of("22"), 0, "", "");
        assertEquals(
                ExitCode.SWEEP_ACTED.code(),
                cli.run("sweep", "--policy", policy.toString(), "--lock", lock(), "--json"),
                cli.err);
        JsonNode report = new ObjectMapper().readTree(cli.out);
        assertEquals("node2", report.get("actions").get(0).get("target").asText());
        assertEquals(1, report.get("jobsSeen").asInt());
        JsonNode unreadable = report.get("unreadableJobs");
        assertEquals(2, unreadable.size(), cli.out);
        assertEquals("8", unreadable.get(0).get("jobId").asText());
        assertEquals("", unreadable.get(1).get("jobId").asText());
        // The donor's target (job 21) is not among the jobs read, but a record could not be read:
        // "its target is gone" proves nothing, so the donor is left alone.
        verify(cli.runner, never()).run(argThat(r -> r != null && r.argv().equals(List.of("scancel", "22"))));
    }

    @Test
    void aBadPolicyNamesTheFileAndFieldAndIsAUsageError() throws Exception {
        Path policy = dir.resolve("p.json");
        Files.writeString(policy, "{\"maxNodes\": -1}");
        assertEquals(ExitCode.USAGE.code(), cli.run("sweep", "--policy", policy.toString()));
        assertTrue(cli.err.contains(policy + ": maxNodes: must not be negative, found -1"), cli.err);
    }

    /** The sweep's host lists an auto_resume.so built for another release: reported, nothing acted on for it. */
    @Test
    void aPluginThatWillNotLoadOnTheSweepsHostIsReported() throws Exception {
        Path plugin = dir.resolve("auto_resume.so");
        Files.copy(HostPlugins.selectConsTres(), plugin);
        Files.writeString(dir.resolve("slurm.conf"), "ClusterName=c\n");
        Files.writeString(dir.resolve("plugstack.conf"), "optional " + plugin + "\n");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.writeString(bin.resolve("scontrol"), "#!/bin/sh\nexit 1\n"); // found on PATH; the harness answers
        Files.setPosixFilePermissions(
                bin.resolve("scontrol"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        CliHarness host = new CliHarness(Map.of(
                        "SLURM_CONF",
                        dir.resolve("slurm.conf").toString(),
                        "PATH",
                        bin.toString(),
                        "SLURMD_NODENAME",
                        "login1"))
                .answer(List.of("-o", "show", "node"), 0, nodeText("show-node-idle.txt", "node4") + "\n", "")
                .answer(List.of("-o", "show", "job"), 0, "No jobs in the system\n", "");
        // This host's own scontrol (found on PATH) says Slurm was upgraded; the sweep's reads stay 22.05's.
        List<String> localVersion = List.of(bin.resolve("scontrol").toString(), "--version");
        when(host.runner.run(argThat(r -> r != null && r.argv().equals(localVersion))))
                .thenAnswer(
                        inv -> new CommandResult(inv.getArgument(0), 0, "slurm 99.11.2\n", "", false, Duration.ZERO));

        assertEquals(0, host.run("sweep", "--lock", lock(), "--json"), host.err);
        JsonNode finding = new ObjectMapper().readTree(host.out).get("findings").get(0);
        assertEquals(SweepCommand.PLUGIN_FINDING, finding.get("kind").asText());
        assertEquals("login1", finding.get("node").asText());
        assertTrue(finding.get("why").asText().contains("and this node runs 99.11.2"), finding.toString());
        assertEquals(
                "nothing-to-do",
                new ObjectMapper().readTree(host.out).get("status").asText());
    }
}
