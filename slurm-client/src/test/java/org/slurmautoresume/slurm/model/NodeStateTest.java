package org.slurmautoresume.slurm.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeStateTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                // text | base | flags | notResponding | unhealthy | schedulable
                "IDLE | IDLE | '' | false | false | true",
                "DOWN* | DOWN | '' | true | true | false",
                "IDLE+FAIL | IDLE | FAIL | false | true | false",
                "FAIL* | FAIL | '' | true | true | false",
                "MIXED+COMPLETING | MIXED | COMPLETING | false | false | true",
                "IDLE+DRAIN | IDLE | DRAIN | false | false | false",
                "IDLE+REBOOT_REQUESTED | IDLE | REBOOT_REQUESTED | false | false | false",
                "IDLE+CLOUD+POWERED_DOWN | IDLE | CLOUD+POWERED_DOWN | false | false | false",
                "DOWN*+DRAIN | DOWN | DRAIN | true | true | false",
                "DOWN+NOT_RESPONDING | DOWN | NOT_RESPONDING | true | true | false",
                "DOWN+FAIL+NOT_RESPONDING | DOWN | FAIL+NOT_RESPONDING | true | true | false",
                "ALLOCATED+DRAIN+REBOOT_REQUESTED | ALLOCATED | DRAIN+REBOOT_REQUESTED | false | false | false",
                "allocated | ALLOCATED | '' | false | false | true",
                // 24.05: a node an exclusive-topology job keeps empty; 25.05: a node with no slurmd
                "IDLE+BLOCKED | IDLE | BLOCKED | false | false | false",
                "MIXED+BLOCKED | MIXED | BLOCKED | false | false | false",
                "IDLE+DYNAMIC_NORM+EXTERNAL | IDLE | DYNAMIC_NORM+EXTERNAL | false | false | false",
                "IDLE+EXTERNAL | IDLE | EXTERNAL | false | false | false",
                // sinfo's and node_state_string's word for FAIL on an allocated or completing node
                "FAILING | FAILING | '' | false | true | false",
                "FAILING* | FAILING | '' | true | true | false"
            })
    void parsesBaseFlagsAndNotResponding(
            String text, String base, String flags, boolean notResponding, boolean unhealthy, boolean schedulable) {
        NodeState state = NodeState.parse(text);
        assertEquals(base, state.base());
        assertEquals(flags.isEmpty() ? List.of() : List.of(flags.split("\\+")), state.flags());
        assertEquals(notResponding, state.notResponding());
        assertEquals(unhealthy, state.isUnhealthy());
        assertEquals(schedulable, state.isSchedulable());
        assertEquals(text.toUpperCase(java.util.Locale.ROOT), state.display());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                // text | taken out of service by someone, with a reason of their own
                "IDLE | false",
                "MIXED+COMPLETING | false",
                "UNKNOWN | false", // a restarted slurmctld's, until the node registers
                "UNKNOWN* | false",
                "ALLOCATED+RESERVED | false",
                "IDLE+DRAIN | true",
                "MIXED+DRAIN | true",
                "IDLE+FAIL | true",
                "FAILING | true",
                "DOWN* | true",
                "IDLE+REBOOT_REQUESTED | true"
            })
    void takenOutMeansSomeoneSetItNotThatTheControllerHasNotHeardFromIt(String text, boolean takenOut) {
        assertEquals(takenOut, NodeState.parse(text).isTakenOut(), text);
    }
}
