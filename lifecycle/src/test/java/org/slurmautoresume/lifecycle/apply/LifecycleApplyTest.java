package org.slurmautoresume.lifecycle.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.lifecycle.validate.ValidationReport;

/** apply on the valid seed-like cluster, into a temporary root. */
class LifecycleApplyTest {

    private static final Path SLURM_CONF = Path.of("/etc/slurm/slurm.conf");

    @TempDir
    Path root;

    private ValidationReport config;
    private InstallLayout layout;

    @BeforeEach
    void setUp() {
        config = Fixtures.validated(
                Fixtures.resource("validate/valid/provisioning_parameters.json"),
                Fixtures.resource("validate/valid/resource_config.json"));
        layout = InstallLayout.defaults(root, SLURM_CONF);
    }

    private LifecycleApply.Result apply(LocalHost host, Optional<String> node, boolean dryRun) {
        return LifecycleApply.run(
                config.provisioning().orElseThrow(),
                config.resourceConfig().orElseThrow(),
                new LifecycleApply.Selector(node, Optional.empty(), host),
                layout,
                dryRun);
    }

    private LifecycleApply.Result applyAs(String node) {
        return apply(Fixtures.host(List.of(), null), Optional.of(node), false);
    }

    /** The admin's slurm.conf before apply runs. */
    private Path writeSlurmConf(String text) throws IOException {
        Path conf = layout.under(SLURM_CONF);
        Files.createDirectories(conf.getParent());
        return Files.writeString(conf, text);
    }

    private String file(String nodePath) throws IOException {
        return Files.readString(layout.under(Path.of(nodePath)));
    }

    @Test
    void theRoleIsFoundFromALocalInterfaceAddress() {
        LocalHost host = Fixtures.host(List.of("127.0.0.1", "0:0:0:0:0:0:0:1%lo", "10.1.0.22"), "ip-10-1-0-22");
        LifecycleApply.Result result = apply(host, Optional.empty(), true);
        assertEquals("compute-nodes-2", result.node().nodeName());
        assertEquals(Role.COMPUTE, result.node().role());
    }

    @Test
    void theAgentAddressFindsTheRoleToo() {
        LifecycleApply.Result result = apply(Fixtures.host(List.of("172.16.0.10"), null), Optional.empty(), true);
        assertEquals(Role.CONTROLLER, result.node().role());
    }

    @Test
    void withoutAMatchingAddressTheHostnameDecides() {
        LifecycleApply.Result result =
                apply(Fixtures.host(List.of("192.168.1.5"), "login-group-1.example.com"), Optional.empty(), true);
        assertEquals(Role.LOGIN, result.node().role());
    }

    @Test
    void anUnknownMachineIsAnErrorThatSaysWhatItLookedFor() {
        ApplyException e = assertThrows(
                ApplyException.class,
                () -> apply(Fixtures.host(List.of("192.168.1.5"), "laptop"), Optional.empty(), true));
        assertTrue(
                e.getMessage().contains("192.168.1.5")
                        && e.getMessage().contains("laptop")
                        && e.getMessage().contains("--node"),
                e.getMessage());
    }

    @Test
    void twoMatchingAddressesAreAnErrorNotAGuess() {
        ApplyException e = assertThrows(
                ApplyException.class,
                () -> apply(Fixtures.host(List.of("10.1.0.21", "10.1.0.22"), null), Optional.empty(), true));
        assertTrue(e.getMessage().contains("compute-nodes-1, compute-nodes-2"), e.getMessage());
    }

    @Test
    void aComputeNodeGetsTheSlurmBlockThePluginTheAgentAndTheHealthCheck() throws IOException {
        LifecycleApply.Result result = applyAs("compute-nodes-1");
        assertTrue(result.changes().stream().allMatch(c -> c.status() == FileChange.Status.CREATED));
        assertEquals(
                String.join(
                        "\n",
                        ManagedBlock.BEGIN
                                + " (written by `autoresume lifecycle apply`; edit its JSON files, not these lines)",
                        "SlurmctldHost=controller-machine-1(10.1.0.10)",
                        "SchedulerParameters=permit_job_expansion",
                        "HealthCheckProgram=/usr/local/libexec/autoresume/health-check",
                        "HealthCheckInterval=300",
                        "NodeName=compute-nodes-1 NodeAddr=10.1.0.21 " + NODE_OPTIONS + " State=UNKNOWN",
                        "NodeName=compute-nodes-2 NodeAddr=10.1.0.22 " + NODE_OPTIONS + " State=UNKNOWN",
                        "NodeName=compute-nodes-3 NodeAddr=10.1.0.23 " + NODE_OPTIONS + " State=UNKNOWN",
                        "NodeName=compute-nodes-4 NodeAddr=10.1.0.24 " + NODE_OPTIONS + " Weight=1000 State=UNKNOWN",
                        "PartitionName=dev Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
                        "PartitionName=spare Nodes=compute-nodes-4 Hidden=YES State=INACTIVE",
                        ManagedBlock.END,
                        ""),
                file("/etc/slurm/slurm.conf"));
        assertEquals(
                "optional /usr/local/lib/slurm/auto_resume.so supervisor=/usr/local/bin/autoresume\n",
                file("/etc/slurm/plugstack.conf.d/auto_resume.conf"));
        assertTrue(file("/etc/slurm/plugstack.conf").contains("\ninclude /etc/slurm/plugstack.conf.d/*.conf\n"));
        assertEquals(
                Files.readString(Path.of("systemd/autoresume-agent.service")),
                file("/etc/systemd/system/autoresume-agent.service"));
        Path wrapper = layout.under(Path.of("/usr/local/libexec/autoresume/health-check"));
        assertTrue(Files.isExecutable(wrapper));
        assertTrue(Files.readString(wrapper).contains("exec /usr/local/bin/autoresume health --mark\n"));
        assertFalse(Files.exists(layout.under(Path.of("/etc/systemd/system/autoresume-sweep.timer"))));
        assertEquals(List.of("autoresume-agent.service"), result.unitsToEnable());
    }

    private static final String NODE_OPTIONS =
            "CPUs=128 Boards=1 SocketsPerBoard=2 CoresPerSocket=32 ThreadsPerCore=2 RealMemory=500000";

    @Test
    void theControllerGetsTheSweepTimerAndNoAgent() throws IOException {
        LifecycleApply.Result result = applyAs("controller-machine-1");
        assertEquals(Role.CONTROLLER, result.node().role());
        String service = file("/etc/systemd/system/autoresume-sweep.service");
        assertTrue(service.contains("\nExecStart=/usr/local/bin/autoresume sweep "), service);
        assertTrue(file("/etc/systemd/system/autoresume-sweep.timer").contains("OnUnitActiveSec="));
        assertFalse(Files.exists(layout.under(Path.of("/etc/systemd/system/autoresume-agent.service"))));
        assertEquals(List.of("autoresume-sweep.timer"), result.unitsToEnable());
    }

    @Test
    void aLoginNodeGetsSlurmConfAndThePluginOnly() throws IOException {
        applyAs("login-group-1");
        try (Stream<Path> written = Files.walk(root)) {
            assertEquals(
                    List.of(
                            "/etc/slurm/plugstack.conf",
                            "/etc/slurm/plugstack.conf.d/auto_resume.conf",
                            "/etc/slurm/slurm.conf"),
                    written.filter(Files::isRegularFile)
                            .map(p -> "/" + root.relativize(p))
                            .sorted()
                            .toList());
        }
    }

    @Test
    void aSecondApplyChangesNothing() throws IOException {
        applyAs("compute-nodes-3");
        String before = file("/etc/slurm/slurm.conf");
        LifecycleApply.Result again = applyAs("compute-nodes-3");
        assertFalse(again.changed());
        assertTrue(again.changes().stream().allMatch(c -> c.status() == FileChange.Status.UNCHANGED));
        assertEquals(before, file("/etc/slurm/slurm.conf"));
    }

    @Test
    void aDryRunWritesNothingAndShowsTheDiff() throws IOException {
        Path conf = writeSlurmConf("ClusterName=my-cluster\n");
        LifecycleApply.Result result = apply(Fixtures.host(List.of(), null), Optional.of("compute-nodes-1"), true);
        assertEquals("ClusterName=my-cluster\n", Files.readString(conf));
        try (Stream<Path> written = Files.walk(root)) {
            assertEquals(1, written.filter(Files::isRegularFile).count());
        }
        FileChange slurm = result.changes().get(0);
        assertEquals(FileChange.Status.UPDATED, slurm.status());
        assertTrue(
                slurm.diff()
                        .startsWith("--- /etc/slurm/slurm.conf\n+++ /etc/slurm/slurm.conf\n@@ -1,1 +1,13 @@\n"
                                + " ClusterName=my-cluster\n+" + ManagedBlock.BEGIN),
                slurm.diff());
        assertTrue(slurm.diff().contains("\n+PartitionName=dev Nodes=ALL Default=YES"), slurm.diff());
        FileChange agent = result.changes().stream()
                .filter(c -> c.path().endsWith("autoresume-agent.service"))
                .findFirst()
                .orElseThrow();
        assertEquals(FileChange.Status.CREATED, agent.status());
        assertTrue(agent.diff().startsWith("--- /dev/null\n"), agent.diff());
    }

    @Test
    void reapplyingReplacesOnlyTheManagedBlockAndKeepsTheAdminsLines() throws IOException {
        Path conf = writeSlurmConf(String.join(
                "\n",
                "# site settings",
                "ClusterName=my-cluster",
                "SlurmctldHost=head(10.1.0.10)",
                ManagedBlock.BEGIN,
                "NodeName=old-node NodeAddr=10.9.9.9",
                "PartitionName=old Nodes=old-node",
                ManagedBlock.END,
                "MaxJobCount=50000   # the admin's line after the block",
                ""));
        LifecycleApply.Result result = applyAs("compute-nodes-1");
        List<String> lines = Files.readAllLines(conf);
        assertEquals(
                List.of("# site settings", "ClusterName=my-cluster", "SlurmctldHost=head(10.1.0.10)"),
                lines.subList(0, 3));
        assertEquals("MaxJobCount=50000   # the admin's line after the block", lines.get(lines.size() - 1));
        assertFalse(lines.stream().anyMatch(l -> l.contains("old-node")));
        assertFalse(
                lines.stream().anyMatch(l -> l.startsWith("SlurmctldHost=controller")),
                "the admin's SlurmctldHost wins");
        assertEquals(List.of("SlurmctldHost is set on line 3: left as it is"), result.notes());
        assertEquals(
                1, lines.stream().filter(l -> l.startsWith(ManagedBlock.BEGIN)).count());
    }

    @Test
    void withThePackagesInstalledApplyLeavesTheirSnippetAndUnitsAlone() throws IOException {
        Path plugin = layout.under(Path.of("/usr/lib/x86_64-linux-gnu/slurm-wlm/auto_resume.so"));
        Files.createDirectories(plugin.getParent());
        Files.writeString(plugin, "");
        Path home = Files.createDirectories(root.resolve("usr/share/autoresume/bin"))
                .getParent();
        Files.writeString(home.resolve("bin/autoresume"), "");
        String packaged = "optional /usr/lib/x86_64-linux-gnu/slurm-wlm/auto_resume.so supervisor="
                + home.resolve("bin/autoresume") + "\n";
        Path snippet = layout.under(Path.of("/etc/slurm/plugstack.conf.d/auto_resume.conf"));
        Files.createDirectories(snippet.getParent());
        Files.writeString(snippet, packaged);
        layout = InstallLayout.forInstallation(root, SLURM_CONF, Optional.of(home));

        LifecycleApply.Result result = applyAs("compute-nodes-1");

        assertEquals(packaged, Files.readString(snippet), "the package's snippet is the package's");
        assertTrue(
                result.changes().stream().noneMatch(c -> c.path().toString().contains("systemd")),
                result.changes().toString());
        assertFalse(Files.exists(layout.under(Path.of("/etc/systemd/system/autoresume-agent.service"))));
        assertEquals(List.of("autoresume-agent.service"), result.unitsToEnable());
        assertTrue(
                file("/usr/local/libexec/autoresume/health-check")
                        .contains("exec " + home.resolve("bin/autoresume") + " health --mark"),
                file("/usr/local/libexec/autoresume/health-check"));
        assertTrue(
                result.notes().stream().anyMatch(n -> n.contains("are the slurm-autoresume packages'")),
                result.notes().toString());
    }

    @Test
    void whereNhcIsTheHealthCheckProgramTheToolkitsChecksGoInsideIt() throws IOException {
        Path conf = writeSlurmConf("ClusterName=c\nHealthCheckProgram=/usr/sbin/nhc\nHealthCheckInterval=300\n");
        LifecycleApply.Result result = applyAs("compute-nodes-1");
        assertFalse(
                Files.readAllLines(conf).stream().anyMatch(l -> l.contains("libexec/autoresume/health-check")),
                "NHC stays the HealthCheckProgram");
        assertEquals(1, result.notes().size(), result.notes().toString());
        assertTrue(
                result.notes().get(0).startsWith("HealthCheckProgram is LBNL NHC on line 2 (/usr/sbin/nhc)")
                        && result.notes().get(0).contains("* || check_autoresume gpu,neuron,efa,disk"),
                result.notes().get(0));
    }

    @Test
    void schedulerParametersWithoutJobExpansionAreAConflictNamingTheLine() throws IOException {
        Path conf = writeSlurmConf("ClusterName=c\nSchedulerParameters=bf_continue\n");
        ApplyException e = assertThrows(ApplyException.class, () -> applyAs("compute-nodes-1"));
        assertTrue(
                e.getMessage().contains("line 2 sets SchedulerParameters=bf_continue without permit_job_expansion"),
                e.getMessage());
        assertEquals("ClusterName=c\nSchedulerParameters=bf_continue\n", Files.readString(conf), "nothing written");
    }

    @Test
    void theAdminsSchedulerParametersWithJobExpansionAreKept() throws IOException {
        Path conf = writeSlurmConf("schedulerparameters=bf_continue,permit_job_expansion\n");
        applyAs("compute-nodes-1");
        assertEquals(
                1,
                Files.readAllLines(conf).stream()
                        .filter(l -> l.toLowerCase().startsWith("schedulerparameters"))
                        .count());
    }

    @Test
    void nodesDefinedOutsideTheBlockAreAConflict() throws IOException {
        writeSlurmConf("NodeName=compute-nodes-2 CPUs=8\n");
        ApplyException e = assertThrows(ApplyException.class, () -> applyAs("compute-nodes-1"));
        assertTrue(e.getMessage().contains("compute-nodes-2 (line 1)"), e.getMessage());
    }

    @Test
    void anUnclosedBlockIsAnError() throws IOException {
        writeSlurmConf("ClusterName=c\n" + ManagedBlock.BEGIN + "\nNodeName=x\n");
        ApplyException e = assertThrows(ApplyException.class, () -> applyAs("compute-nodes-1"));
        assertTrue(e.getMessage().contains("line 2") && e.getMessage().contains("never closed"), e.getMessage());
    }

    @Test
    void anExistingIncludeOfTheSnippetDirectoryIsEnough() throws IOException {
        Path plugstack = layout.under(Path.of("/etc/slurm/plugstack.conf"));
        Files.createDirectories(plugstack.getParent());
        Files.writeString(plugstack, "include /etc/slurm/plugstack.conf.d/*\n");
        applyAs("compute-nodes-1");
        assertEquals("include /etc/slurm/plugstack.conf.d/*\n", Files.readString(plugstack));
    }
}
