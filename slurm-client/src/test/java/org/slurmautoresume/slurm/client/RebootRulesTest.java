package org.slurmautoresume.slurm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.slurmautoresume.slurm.parse.Records.node;
import static org.slurmautoresume.slurm.parse.Records.nodeWith;
import static org.slurmautoresume.slurm.parse.Records.nodeWithReason;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.parse.JsonRecords;

/**
 * Slurm's reboot rules over real 22.05 text records (fixtures/slurm-22.05: a reboot requested,
 * issued and done; power saving) and 24.11 JSON records with the state the capture did not hold
 * put in (each test says which).
 */
class RebootRulesTest {

    private static final String REASON = "Action:Reboot";

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "show-node-idle-drain-reboot-requested.txt | REBOOT_REQUESTED",
                "show-node-allocated-reboot-requested.txt | REBOOT_REQUESTED",
                "show-node-down-drain-reboot-issued.txt | REBOOT_ISSUED",
                "show-node-idle-power-down.txt | POWER_DOWN",
                "show-node-idle-powering-down.txt | POWERING_DOWN",
                "show-node-idle-powered-down.txt | POWERED_DOWN"
            })
    void slurmSkipsANodeInTheseStates(String fixture, String flag) {
        String why = RebootRules.whySkipped(node(fixture, "node4").state()).orElseThrow();
        assertTrue(why.startsWith("Slurm skips a reboot request") && why.contains(flag), why);
    }

    @Test
    void slurmSkipsAFutureNode() {
        String why = RebootRules.whySkipped(nodeWith("show-node-idle.txt", "node4", "State", "FUTURE")
                        .state())
                .orElseThrow();
        assertTrue(why.contains("FUTURE"), why);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "show-node-idle.txt",
                "show-node-mixed.txt",
                "show-node-idle-fail.txt",
                "show-node-down-not-responding.txt",
                "show-node-idle-drain.txt",
                "show-node-mixed-fail.txt"
            })
    void slurmTakesARequestForANodeInAnyOtherState(String fixture) {
        assertEquals(
                Optional.empty(), RebootRules.whySkipped(node(fixture, "node4").state()));
    }

    @Test
    void aRequestTakenShowsRebootRequestedWithTheReasonSent() {
        Node after = nodeWithReason(
                "show-node-idle-drain-reboot-requested.txt", "node4", REASON + " [root@2026-11-22T04:14:46]");
        RebootRules.Answer answer = RebootRules.readBack(
                "node4", REASON, Optional.of(node("show-node-idle.txt", "node4")), Optional.of(after));
        assertTrue(answer.taken(), answer.toString());
        assertEquals("IDLE+DRAIN+REBOOT_REQUESTED", answer.state());
        assertTrue(answer.detail().contains("IDLE+DRAIN+REBOOT_REQUESTED"), answer.detail());
    }

    @Test
    void aRebootIssuedAlreadyAppendsToTheReasonSentAndCountsAsTaken() {
        Node after = nodeWithReason(
                "show-node-down-drain-reboot-issued.txt",
                "node4",
                REASON + " : reboot issued [root@2026-11-22T04:14:50]");
        RebootRules.Answer answer = RebootRules.readBack(
                "node4", REASON, Optional.of(node("show-node-idle.txt", "node4")), Optional.of(after));
        assertTrue(answer.taken(), answer.toString());
        assertEquals("DOWN+DRAIN+REBOOT_ISSUED", answer.state());
    }

    @Test
    void aNodeBackFromItsRebootBeforeTheReadCountsAsTaken() {
        // BootTime 04:04:38 before, 04:14:52 after (the reboot and registration took 2.7 s on the local cluster).
        RebootRules.Answer answer = RebootRules.readBack(
                "node4",
                REASON,
                Optional.of(node("show-node-idle.txt", "node4")),
                Optional.of(node("show-node-idle-after-reboot.txt", "node4")));
        assertTrue(answer.taken(), answer.toString());
        assertTrue(answer.detail().contains("rebooted already (BootTime 2026-11-22T04:14:52)"), answer.detail());
    }

    @Test
    void aNodePoweredDownMeanwhileIsNotTakenAndTheAnswerSaysWhy() {
        RebootRules.Answer answer = RebootRules.readBack(
                "node4",
                REASON,
                Optional.of(node("show-node-idle.txt", "node4")),
                Optional.of(node("show-node-idle-powered-down.txt", "node4")));
        assertFalse(answer.taken());
        assertEquals("IDLE+POWERED_DOWN", answer.state());
        assertTrue(
                answer.detail().startsWith("Slurm left it IDLE+POWERED_DOWN: Slurm skips")
                        && answer.detail().contains("power saving"),
                answer.detail());
    }

    @Test
    void anotherRequestsPendingRebootIsNotThisOne() {
        // Someone else asked first ("fw update"): Slurm skipped this request, their nextstate stands.
        RebootRules.Answer answer = RebootRules.readBack(
                "node4",
                REASON,
                Optional.of(node("show-node-idle.txt", "node4")),
                Optional.of(node("show-node-idle-drain-reboot-requested.txt", "node4")));
        assertFalse(answer.taken());
        assertTrue(
                answer.detail().contains("\"fw update\", another request's")
                        && answer.detail().contains("earlier request's nextstate"),
                answer.detail());
    }

    @Test
    void aNodeLeftAsItWasForNoKnownReasonIsNotTaken() {
        Node idle = node("show-node-idle.txt", "node4");
        RebootRules.Answer answer = RebootRules.readBack("node4", REASON, Optional.of(idle), Optional.of(idle));
        assertFalse(answer.taken());
        assertTrue(
                answer.detail().contains("Slurm left it IDLE")
                        && answer.detail().contains("does not show"),
                answer.detail());
    }

    @Test
    void aNodeMissingFromTheReadBackIsNotClaimed() {
        RebootRules.Answer answer = RebootRules.readBack("node4", REASON, Optional.empty(), Optional.empty());
        assertFalse(answer.taken());
        assertTrue(answer.detail().contains("not known"), answer.detail());
    }

    @Test
    void jsonRecordsReadTheSame() {
        // 24.11's show-node-idle.json with the states of a request taken, and of a node powered down.
        Node before = JsonRecords.node("show-node-idle.json", "{}");
        Node taken = JsonRecords.node(
                "show-node-idle.json",
                "{\"state\": [\"IDLE\", \"DRAIN\", \"REBOOT_REQUESTED\"], \"reason\": \"Action:Reboot\","
                        + " \"reason_changed_at\": " + JsonRecords.time("2026-11-24T10:00:00") + "}");
        Node poweredDown = JsonRecords.node("show-node-idle.json", "{\"state\": [\"IDLE\", \"POWERED_DOWN\"]}");
        assertTrue(RebootRules.readBack("node2", REASON, Optional.of(before), Optional.of(taken))
                .taken());
        RebootRules.Answer skipped =
                RebootRules.readBack("node2", REASON, Optional.of(before), Optional.of(poweredDown));
        assertFalse(skipped.taken());
        assertTrue(
                skipped.detail().contains("IDLE+POWERED_DOWN")
                        && skipped.detail().contains("power saving"),
                skipped.detail());
    }

    @Test
    void aNodeWhoseRebootIsIssuedIsNotResumedByHand() {
        Node text = node("show-node-down-drain-reboot-issued.txt", "node4");
        String why = RebootRules.whyNoResume(text).orElseThrow();
        assertTrue(
                why.contains("reboot is issued and not finished (DOWN+DRAIN+REBOOT_ISSUED, reason \"fw update :"
                                + " reboot issued\" since 2026-11-22T04:14:50)")
                        && why.contains("reboot timed out"),
                why);
        Node json = JsonRecords.node("show-node-idle.json", "{\"state\": [\"DOWN\", \"DRAIN\", \"REBOOT_ISSUED\"]}");
        assertTrue(RebootRules.whyNoResume(json).orElseThrow().contains("DOWN+DRAIN+REBOOT_ISSUED"));
        // Only requested: a resume calls the reboot off, which is allowed.
        assertEquals(
                Optional.empty(), RebootRules.whyNoResume(node("show-node-idle-drain-reboot-requested.txt", "node4")));
        assertEquals(Optional.empty(), RebootRules.whyNoResume(node("show-node-idle-fail.txt", "node4")));
    }
}
