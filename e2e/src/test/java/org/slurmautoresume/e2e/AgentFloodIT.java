package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;

/**
 * Issue 17, "fair under load": the ordinary test user opens far more connections to the real
 * agent than its per-user share and sends nothing on them; the connections over the share are
 * refused with an answer, and meanwhile root's request about the user's running job is answered
 * within the agent client's normal timeout, as if nobody flooded.
 */
class AgentFloodIT {

    private static final int FLOOD = 300;
    /** The agent's per-uid share (AgentServer.CONNECTIONS_PER_UID). */
    private static final int SHARE = 32;

    private static LocalCluster cluster;
    private static LocalAgent agent;

    @BeforeAll
    static void startAgent() {
        cluster = LocalCluster.get();
        agent = LocalAgent.start(cluster, cluster.clusterDir().resolve("agent-flood-it-" + ProcessHandle.current().pid()));
    }

    @AfterAll
    static void stopAgent() throws InterruptedException {
        if (agent != null) {
            agent.stop();
        }
    }

    @Test
    void aUsersFloodIsRefusedOverItsShareAndRootIsStillAnswered() throws Exception {
        String jobId = cluster.submit("#!/bin/bash\nsleep 300\n", List.of("-N1", "-J", "agent-flood-it"));
        Process flood = null;
        try {
            Job job = cluster.waitForJob(jobId, "to run", Duration.ofSeconds(300),
                    j -> j.state() == JobState.RUNNING && !j.nodeList().isBlank());
            String node = Hostlist.expand(job.nodeList()).get(0);

            flood = startFloodAsTestUser();
            BufferedReader out = new BufferedReader(new InputStreamReader(flood.getInputStream(), StandardCharsets.UTF_8));
            String counts = out.readLine();
            assertNotNull(counts, "the flooding client said nothing");
            System.out.println("the test user's " + FLOOD + " connections: " + counts);
            Matcher m = Pattern.compile("refused=(\\d+) held=(\\d+) closed=(\\d+)").matcher(counts);
            assertTrue(m.matches(), counts);
            int refused = Integer.parseInt(m.group(1));
            int held = Integer.parseInt(m.group(2));
            int closed = Integer.parseInt(m.group(3));
            assertEquals(FLOOD, refused + held + closed, counts);
            assertTrue(held <= SHARE, "the agent held more than one user's share: " + counts);
            // Every connection over the share got the refusal, apart from places that the read
            // deadline gave back while the client was still opening (then "closed").
            assertTrue(refused >= FLOOD - SHARE - closed, counts);
            assertTrue(refused >= FLOOD / 2, counts);

            // While the flood holds its share: root's request about the user's job, through
            // agent-call with the client's normal timeout (it fails when no answer comes in time).
            CommandResult answer = cluster.run(List.of(cluster.launcher().toString(), "agent-call", "--socket",
                    agent.socket().toString(), "{\"op\":\"diagnose\",\"jobId\":\"" + jobId + "\",\"nodes\":[\""
                            + node + "\"]}"));
            assertEquals(0, answer.exitCode(), answer.stdout() + answer.stderr());
            assertTrue(answer.stdout().contains("\"decision\":\"healthy\""), answer.stdout());
            assertTrue(flood.isAlive(), "the flood ended before root asked");
        } finally {
            if (flood != null) {
                flood.getOutputStream().close();
                if (!flood.waitFor(30, TimeUnit.SECONDS)) {
                    flood.destroyForcibly();
                }
            }
            cluster.run(List.of("scancel", jobId));
        }
    }

    /** The client's class, copied where the test user can read it, run in a JVM as that user. */
    private static Process startFloodAsTestUser() throws IOException {
        Path classes = agent.socket().getParent().resolve("flood-classes");
        Path pkg = classes.resolve("org/slurmautoresume/e2e");
        Files.createDirectories(pkg);
        Path source = Path.of(FloodingClient.class.getProtectionDomain().getCodeSource().getLocation().getPath())
                .resolve("org/slurmautoresume/e2e/FloodingClient.class");
        Files.copy(source, pkg.resolve("FloodingClient.class"), StandardCopyOption.REPLACE_EXISTING);
        for (Path p : List.of(classes, classes.resolve("org"), classes.resolve("org/slurmautoresume"), pkg)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.setPosixFilePermissions(pkg.resolve("FloodingClient.class"), PosixFilePermissions.fromString("rw-r--r--"));
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> argv = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-cp", classes.toString(),
                FloodingClient.class.getName(), agent.socket().toString(), String.valueOf(FLOOD)));
        ProcessBuilder builder = new ProcessBuilder(cluster.asTestUser(argv));
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        return builder.start();
    }
}
