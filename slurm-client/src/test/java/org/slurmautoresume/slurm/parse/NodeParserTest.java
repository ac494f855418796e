package org.slurmautoresume.slurm.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.slurmautoresume.slurm.model.Node;

class NodeParserTest {

    private static final String V22 = "slurm-22.05";
    private final NodeParser parser = new NodeParser();

    static Stream<Arguments> nodeFixtures() {
        return Fixtures.namedInEveryVersion("show-node-");
    }

    /** Every field of every record survives: rebuilding the line from the fields gives the line back. */
    @ParameterizedTest
    @MethodSource("nodeFixtures")
    void keepsEveryFieldOfEveryRecord(String version, String fixture) {
        String output = Fixtures.read(version, fixture);
        List<Node> nodes = parser.parseAll(output);
        List<String> records = Fixtures.records(output);
        assertEquals(records.size(), nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            assertEquals(Fixtures.normalise(records.get(i)), Fixtures.rebuild(node.raw()), fixture);
            assertEquals(node.raw().get("State"), node.state().display(), fixture);
            assertTrue(node.port().isPresent(), fixture);
            assertEquals(node.raw().get("NodeAddr"), node.address(), fixture);
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                // fixture | node | state | not responding | reason text | reason user
                "show-node-idle.txt | node2 | IDLE | false | - | -",
                "show-node-allocated.txt | node4 | ALLOCATED | false | - | -",
                "show-node-mixed.txt | node1 | MIXED | false | - | -",
                "show-node-down-not-responding.txt | node2 | DOWN+NOT_RESPONDING | true | Not responding | root",
                "show-node-down-admin-just-set.txt | node2 | DOWN+NOT_RESPONDING | true | admin down: cable=loose | root",
                "show-node-down-admin.txt | node4 | DOWN | false | admin down: cable=loose | root",
                "show-node-multiline.txt | node4 | DOWN | false | admin down: cable=loose | root",
                "show-node-idle-not-responding.txt | node4 | IDLE+NOT_RESPONDING | true | - | -",
                "show-node-mixed-not-responding.txt | node3 | MIXED+NOT_RESPONDING | true | - | -",
                "show-node-idle-power-down.txt | node4 | IDLE+POWER_DOWN | false | power test | root",
                "show-node-idle-powering-down.txt | node4 | IDLE+POWERING_DOWN | false | power test | root",
                "show-node-idle-powered-down.txt | node4 | IDLE+POWERED_DOWN | false | power test | root",
                "show-node-idle-power-up-powered-down.txt | node4 | IDLE+POWER_UP+POWERED_DOWN | false | power test | root",
                "show-node-idle-not-responding-powering-up.txt | node4 | IDLE+NOT_RESPONDING+POWERING_UP | true | - | -",
                "show-node-down-powered-down-resume-timeout.txt | node4 | DOWN+POWERED_DOWN+NOT_RESPONDING | true | ResumeTimeout reached | root",
                "show-node-idle-fail.txt | node2 | IDLE+FAIL | false | Action:Replace | root",
                "show-node-mixed-fail.txt | node3 | MIXED+FAIL | false | Action:Replace | root",
                "show-node-fail-not-responding.txt | node2 | DOWN+FAIL+NOT_RESPONDING | true | Action:Replace | root",
                "show-node-idle-drain.txt | node2 | IDLE+DRAIN | false | bad gpu count=7 of 8 | root",
                "show-node-mixed-drain.txt | node2 | MIXED+DRAIN | false | bad gpu count=7 of 8 | root",
                "show-node-mixed-completing.txt | node1 | MIXED+COMPLETING | false | - | -",
                "show-node-idle-completing.txt | node4 | IDLE+COMPLETING | false | - | -",
                "show-node-idle-drain-reboot-requested.txt | node4 | IDLE+DRAIN+REBOOT_REQUESTED | false | fw update | root",
                "show-node-allocated-reboot-requested.txt | node4 | ALLOCATED+DRAIN+REBOOT_REQUESTED | false | fw update | root",
                "show-node-down-drain-reboot-issued.txt | node4 | DOWN+DRAIN+REBOOT_ISSUED | false | fw update : reboot issued | root"
            })
    void readsStateAndReasonOf2205(
            String fixture, String name, String state, boolean notResponding, String reasonText, String reasonUser) {
        readsStateAndReason(V22, fixture, name, state, notResponding, reasonText, reasonUser);
    }

    private void readsStateAndReason(
            String version,
            String fixture,
            String name,
            String state,
            boolean notResponding,
            String reasonText,
            String reasonUser) {
        Node node = parser.parseAll(Fixtures.read(version, fixture)).get(0);
        assertEquals(name, node.name());
        assertEquals(state, node.state().display());
        assertEquals(notResponding, node.state().notResponding());
        assertEquals(reasonText, node.reason().map(r -> r.text()).orElse(null));
        assertEquals(reasonUser, node.reason().flatMap(r -> r.user()).orElse(null));
        assertTrue(node.slurmdStartTime().isPresent());
        assertEquals(List.of("debug"), node.partitions());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                // version | fixture | node | state | not responding | reason text | reason user
                "slurm-23.11 | show-node-idle.txt | node2 | IDLE | false | - | -",
                "slurm-23.11 | show-node-down-not-responding.txt | node2 | DOWN+NOT_RESPONDING | true | Not responding | root",
                "slurm-23.11 | show-node-idle-fail.txt | node2 | IDLE+FAIL | false | Action:Replace | root",
                "slurm-23.11 | show-node-fail-not-responding.txt | node2 | DOWN+FAIL+NOT_RESPONDING | true | Action:Replace | root",
                "slurm-23.11 | show-node-idle-drain.txt | node2 | IDLE+DRAIN | false | bad gpu count=7 of 8 | root",
                "slurm-23.11 | show-node-drain-resume-after-cloud.txt | node3 | IDLE+DRAIN | false "
                        + "| Action:Reboot fw=2.1 pending State=odd | ops",
                "slurm-24.05 | show-node-idle.txt | node2 | IDLE | false | - | -",
                "slurm-24.05 | show-node-down-not-responding.txt | node2 | DOWN+NOT_RESPONDING | true | Not responding | root",
                "slurm-24.05 | show-node-idle-fail.txt | node2 | IDLE+FAIL | false | Action:Replace | root",
                "slurm-24.05 | show-node-fail-not-responding.txt | node2 | DOWN+FAIL+NOT_RESPONDING | true | Action:Replace | root",
                "slurm-24.05 | show-node-idle-drain.txt | node2 | IDLE+DRAIN | false | bad gpu count=7 of 8 | root",
                "slurm-24.05 | show-node-idle-blocked-restricted-cores.txt | node4 | IDLE+BLOCKED | false | - | -",
                "slurm-25.05 | show-node-idle.txt | node2 | IDLE | false | - | -",
                "slurm-25.05 | show-node-mixed-fail.txt | node2 | MIXED+FAIL | false | Action:Replace | root",
                "slurm-25.05 | show-node-down-fail-not-responding.txt | node2 | DOWN+FAIL+NOT_RESPONDING | true "
                        + "| Action:Replace : Not responding | root",
                "slurm-25.11 | show-node-idle.txt | node2 | IDLE | false | - | -",
                "slurm-25.11 | show-node-mixed-fail.txt | node2 | MIXED+FAIL | false | Action:Replace | root",
                "slurm-25.11 | show-node-down-fail-not-responding.txt | node2 | DOWN+FAIL+NOT_RESPONDING | true "
                        + "| Action:Replace : Not responding | root",
                "slurm-25.11 | show-node-idle-blocked.txt | node2 | IDLE+BLOCKED | false | - | -"
            })
    void readsStateAndReasonOfNewerReleases(
            String version,
            String fixture,
            String name,
            String state,
            boolean notResponding,
            String reasonText,
            String reasonUser) {
        readsStateAndReason(version, fixture, name, state, notResponding, reasonText, reasonUser);
    }

    /** 23.02 and 23.11 print fields after Reason; each must end the reason, none may be swallowed. */
    @Test
    void fieldsAfterTheReasonStaySeparateIn2311() {
        Node node = parser.parseAll(Fixtures.read("slurm-23.11", "show-node-drain-resume-after-cloud.txt"))
                .get(0);
        assertEquals(
                "Action:Reboot fw=2.1 pending State=odd",
                node.reason().orElseThrow().text());
        assertEquals(
                LocalDateTime.of(2026, 11, 22, 4, 21),
                node.reason().orElseThrow().time().orElseThrow());
        assertEquals("rack 7 slot=3", node.raw().get("Comment"));
        assertEquals("rack=r07 row=2", node.raw().get("Extra"));
        assertEquals("i-0abc1234def567890", node.raw().get("InstanceId"));
        assertEquals("p5.48xlarge", node.raw().get("InstanceType"));
        assertEquals("maint_r07", node.raw().get("ReservationName"));
        assertEquals("2026-11-22T05:00:00", node.raw().get("ResumeAfterTime"));
        assertEquals("IDLE+DRAIN", node.raw().get("State"));
        assertEquals("23.11.10", node.version().orElseThrow());
    }

    @Test
    void release2405DropsPowerFieldsAndAddsRestrictedCoresAndBlocked() {
        Node node = parser.parseAll(Fixtures.read("slurm-24.05", "show-node-idle-blocked-restricted-cores.txt"))
                .get(0);
        assertEquals("2(0-1)", node.raw().get("RestrictedCoresPerGPU"));
        assertEquals("gpu:2", node.gres().orElseThrow());
        assertTrue(node.state().has("BLOCKED"));
        assertFalse(node.raw().containsKey("CapWatts"));
        assertFalse(node.raw().containsKey("ExtSensorsJoules"));
        assertEquals("0", node.raw().get("AveWatts"));
        Node failed = parser.parseAll(Fixtures.read("slurm-24.05", "show-node-idle-fail.txt"))
                .get(0);
        assertEquals("Action:Replace", failed.reason().orElseThrow().text());
        assertEquals("None", failed.raw().get("ResumeAfterTime"));
    }

    /** 25.05 prints TLS certificate fields and Topology after the reason (slurm_sprint_node_table). */
    @Test
    void reasonEndsAtTheFieldsRelease2505Appends() {
        Node node = parser.parse("NodeName=gpu7 NodeAddr=10.0.0.7 NodeHostName=gpu7 Version=25.05.3 "
                + "State=DOWN+DRAIN ThreadsPerCore=1 Partitions=train  BootTime=None SlurmdStartTime=None "
                + "CurrentWatts=n/a AveWatts=n/a  Reason=cert expired: renew key=7 [root@2026-11-22T04:14:30] "
                + "TLSCertTokenSet=No TLSCertLastRenewal=2026-11-20T10:00:00 Topology=default:sw1");
        assertEquals("cert expired: renew key=7", node.reason().orElseThrow().text());
        assertEquals("No", node.raw().get("TLSCertTokenSet"));
        assertEquals("2026-11-20T10:00:00", node.raw().get("TLSCertLastRenewal"));
        assertEquals("default:sw1", node.raw().get("Topology"));
    }

    /** 25.11 prints a node's own slurmd Parameters last, after the reason. */
    @Test
    void reasonEndsAtTheParametersRelease2511Appends() {
        String line = Fixtures.read("slurm-25.11", "show-node-down-fail-not-responding.txt")
                        .strip() + " Parameters=l3cache_as_socket";
        Node node = parser.parse(line);
        assertEquals(
                "Action:Replace : Not responding", node.reason().orElseThrow().text());
        assertEquals("l3cache_as_socket", node.raw().get("Parameters"));
    }

    /** Newer releases reprint the 22.05 situations; only the raw fields and the version may differ. */
    @ParameterizedTest
    @CsvSource({
        "slurm-23.11, show-node-idle.txt",
        "slurm-23.11, show-node-down-not-responding.txt",
        "slurm-23.11, show-node-idle-fail.txt",
        "slurm-23.11, show-node-fail-not-responding.txt",
        "slurm-23.11, show-node-idle-drain.txt",
        "slurm-24.05, show-node-idle.txt",
        "slurm-24.05, show-node-down-not-responding.txt",
        "slurm-24.05, show-node-idle-fail.txt",
        "slurm-24.05, show-node-fail-not-responding.txt",
        "slurm-24.05, show-node-idle-drain.txt"
    })
    void newerReleasesParseToThe2205Values(String version, String fixture) {
        Node newer = parser.parseAll(Fixtures.read(version, fixture)).get(0);
        Node captured = parser.parseAll(Fixtures.read(V22, fixture)).get(0);
        assertEquals(ModelValues.of(captured), ModelValues.of(newer));
    }

    @Test
    void keepsValuesWithSpacesAndUnknownKeys() {
        String line = "NodeName=gpu-001 Arch=x86_64 NodeAddr=10.1.0.7 NodeHostName=gpu-001 Port=6818 "
                + "OS=Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01) RealMemory=1 "
                + "State=IDLE+DRAIN Partitions=train,spare BootTime=2026-11-01T10:00:00 "
                + "SlurmdStartTime=2026-11-02T11:00:00 FutureKey=some value "
                + "Reason=xid 79 on GPU=3 State=odd [ops@2026-11-22T04:14:41] Comment=(null)";
        Node node = parser.parse(line);
        assertEquals(
                "Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)",
                node.raw().get("OS"));
        assertEquals("some value", node.raw().get("FutureKey"));
        // "GPU=3" is not a key Slurm prints, so it stays in the reason; "State=" is one, but the
        // record already had its State, and Slurm prints each key once.
        assertEquals(List.of("train", "spare"), node.partitions());
        assertEquals(6818, node.port().getAsInt());
        assertEquals(LocalDateTime.of(2026, 11, 1, 10, 0), node.bootTime().orElseThrow());
        assertEquals("xid 79 on GPU=3 State=odd", node.reason().orElseThrow().text());
        assertEquals("IDLE+DRAIN", node.state().display());
        assertEquals("(null)", node.raw().get("Comment"));
    }

    @Test
    void garbageIsAnErrorThatQuotesTheInput() {
        ParseException e = assertThrows(ParseException.class, () -> parser.parse("this is not scontrol output"));
        assertTrue(e.getMessage().contains("this is not scontrol output"), e.getMessage());
        ParseException noName = assertThrows(ParseException.class, () -> parser.parse("State=IDLE Arch=x86_64"));
        assertTrue(noName.getMessage().contains("NodeName"), noName.getMessage());
    }

    @Test
    void emptyOutputIsNoNodes() {
        assertFalse(parser.parseAll("\n\n").iterator().hasNext());
    }
}
