package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.nodeops.health.DiskDrain;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;

/**
 * A full filesystem as an ordinary user makes one: the test mounts a small tmpfs that every user
 * may write (as a node's /tmp or local scratch), the test user fills it, and root runs
 * {@code autoresume health --mark --check disk --mount DIR} for the node, as slurmd's
 * HealthCheckProgram or cron would. Slurm's own state shows a drain with the check's reason,
 * never FAIL or DOWN; once the user deletes the file the next run returns the node to service.
 * A drain the check did not set, an administrator's or NHC's, is never lifted by it.
 */
class DiskFullDrainIT {

    private static final String ADMIN_REASON = "bad DIMM, do not use";

    private static LocalCluster cluster;
    private Path mountPoint;
    private boolean mounted;
    private String node;
    private boolean nhcFailed;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
    }

    @BeforeEach
    void mountASmallFilesystem() throws IOException {
        List<String> nodes = cluster.nodeNames();
        node = nodes.get(nodes.size() - 1);
        awaitInServiceAndResponding();
        mountPoint = Files.createTempDirectory(
                "autoresume-disk-it-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        // 4 MiB and 64 inodes: full in a moment either way. Mode 1777, as /tmp: every user may write.
        CommandResult mount = cluster.run(List.of(
                "mount",
                "-t",
                "tmpfs",
                "-o",
                "size=4m,nr_inodes=64,mode=1777",
                "autoresume-disk-it",
                mountPoint.toString()));
        assertEquals(0, mount.exitCode(), "mounting a tmpfs needs root: " + mount.stderr());
        mounted = true;
    }

    @AfterEach
    void unmountAndReturnTheNode() throws IOException {
        try {
            if (nhcFailed) {
                cluster.nhcPass(node);
                Wait.until(
                        node + " returned by the NHC stand-in",
                        Duration.ofSeconds(30),
                        () -> cluster.node(node).state().isDrain() ? Optional.empty() : Optional.of(true));
            }
            if (cluster.node(node).state().isTakenOut()) {
                cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
            }
            awaitInServiceAndResponding();
        } finally {
            if (mounted) {
                cluster.run(List.of("umount", mountPoint.toString()));
            }
            Files.deleteIfExists(mountPoint);
        }
    }

    /**
     * The node in service and its slurmd heard from. slurmctld flags a node it was told to resume
     * not responding until its slurmd answers the ping that follows (about a second here), and the
     * health check rightly leaves a drain alone on a node in any state but drained: a test that
     * began in that second saw its own drain left in place.
     */
    private void awaitInServiceAndResponding() {
        Wait.until(node + " in service and responding", Duration.ofSeconds(30), () -> {
            Node now = cluster.node(node);
            return now.state().isTakenOut() || now.state().notResponding() ? Optional.empty() : Optional.of(true);
        });
    }

    /** root's health run for the node, as the site configures it: the disk check on this mount. */
    private JsonNode health(int expectedExit) throws IOException {
        List<String> argv = new ArrayList<>(List.of(
                "env",
                "SLURMD_NODENAME=" + node,
                cluster.launcher().toString(),
                "health",
                "--mark",
                "--check",
                "disk",
                "--mount",
                mountPoint.toString(),
                "--json"));
        CommandResult result = cluster.run(argv);
        assertEquals(expectedExit, result.exitCode(), result.stdout() + result.stderr());
        return new ObjectMapper().readTree(result.stdout());
    }

    private void fillSpaceAsTestUser() {
        // dd stops at "No space left on device": a non-zero exit is the filesystem full, as wanted.
        cluster.runAsTestUser(List.of("dd", "if=/dev/zero", "of=" + mountPoint.resolve("fill"), "bs=1M", "count=16"));
        assertTrue(Files.exists(mountPoint.resolve("fill")), "the test user's file is there");
    }

    private String reasonText() {
        return cluster.node(node).reason().map(NodeReason::text).orElse("");
    }

    @Test
    void aFilesystemTheUserFilledDrainsTheNodeAndIsLiftedOnceTheFileIsGone() throws IOException {
        fillSpaceAsTestUser();

        JsonNode full = health(9);
        assertEquals("FREE_SPACE", full.get("action").asText());
        Node drained = cluster.node(node);
        assertTrue(drained.state().isDrain(), drained.state().display());
        assertFalse(
                drained.state().isFail() || drained.state().isDown(),
                "never FAIL or DOWN: " + drained.state().display());
        assertTrue(reasonText().startsWith(DiskDrain.PREFIX + mountPoint + " "), reasonText());
        assertFalse(reasonText().contains("Action:"), reasonText());

        // Still full: the next run leaves its own drain as it is.
        assertEquals("leave-alone", health(9).get("nodeUpdate").asText());
        assertTrue(cluster.node(node).state().isDrain());

        CommandResult removed = cluster.runAsTestUser(
                List.of("rm", "-f", mountPoint.resolve("fill").toString()));
        assertEquals(0, removed.exitCode(), removed.stderr());
        JsonNode freed = health(0);
        assertEquals("resume", freed.get("nodeUpdate").asText());
        Node back = cluster.node(node);
        assertFalse(back.state().isTakenOut(), back.state().display());
        assertEquals(Optional.empty(), back.reason());
    }

    @Test
    void inodesTheUserUsedUpDrainTheNodeToo() throws IOException {
        List<String> touch = new ArrayList<>(List.of("touch"));
        for (int i = 0; i < 80; i++) {
            touch.add(mountPoint.resolve("empty-" + i).toString());
        }
        cluster.runAsTestUser(touch); // fails once the 64 inodes are gone, as wanted

        health(9);
        assertTrue(
                cluster.node(node).state().isDrain(), cluster.node(node).state().display());
        assertTrue(reasonText().startsWith(DiskDrain.PREFIX + mountPoint + " inodes "), reasonText());

        List<String> rm = new ArrayList<>(List.of("rm", "-f"));
        rm.addAll(touch.subList(1, touch.size()));
        assertEquals(0, cluster.runAsTestUser(rm).exitCode());
        health(0);
        assertFalse(
                cluster.node(node).state().isTakenOut(),
                cluster.node(node).state().display());
    }

    @Test
    void anAdministratorsDrainIsNeitherOverwrittenNorLifted() throws IOException {
        CommandResult drain =
                cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=drain", "reason=" + ADMIN_REASON));
        assertEquals(0, drain.exitCode(), drain.stderr());

        fillSpaceAsTestUser();
        assertEquals("leave-alone", health(9).get("nodeUpdate").asText());
        assertEquals(ADMIN_REASON, reasonText());

        assertEquals(
                0,
                cluster.runAsTestUser(
                                List.of("rm", "-f", mountPoint.resolve("fill").toString()))
                        .exitCode());
        assertEquals("leave-alone", health(0).get("nodeUpdate").asText());
        assertTrue(
                cluster.node(node).state().isDrain(), cluster.node(node).state().display());
        assertEquals(ADMIN_REASON, reasonText());
    }

    @Test
    void nhcsDrainIsNotLifted() throws IOException {
        nhcFailed = true;
        assertEquals(
                0, cluster.nhcFail(node, "check_fs_mount: /scratch not mounted").exitCode());
        Wait.until(
                node + " drained by the NHC stand-in",
                Duration.ofSeconds(30),
                () -> cluster.node(node).drainedByNhc() ? Optional.of(true) : Optional.empty());

        assertEquals("leave-alone", health(0).get("nodeUpdate").asText());
        assertTrue(cluster.node(node).drainedByNhc(), cluster.node(node).state() + " " + reasonText());
    }
}
