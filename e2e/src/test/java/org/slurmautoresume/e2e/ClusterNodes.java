package org.slurmautoresume.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.exec.CommandResult;

/** Node-state helpers for the admin and sweep tests: read a node's state, make it stuck, put it back. */
final class ClusterNodes {

    private final LocalCluster cluster;
    private final SlurmTruth truth;

    ClusterNodes(LocalCluster cluster) {
        this.cluster = cluster;
        this.truth = new SlurmTruth(cluster);
    }

    String state(String node) {
        return truth.nodeField(node, "State");
    }

    /** The whole Reason text (it holds blanks), or empty. */
    String reason(String node) {
        String record = cluster.run(List.of("scontrol", "-o", "show", "node", node))
                .stdout()
                .strip();
        int at = record.indexOf(" Reason=");
        return at < 0 ? "" : record.substring(at + " Reason=".length());
    }

    String waitForState(String node, String wanted, Duration timeout) {
        return Wait.until(
                node + " to be " + wanted,
                timeout,
                () -> state(node).equals(wanted) ? Optional.of(wanted) : Optional.empty());
    }

    /**
     * A replacement under the same hostname, as the vendor's flow leaves it: the node dies, is
     * marked fail/Action:Replace, and its slurmd registers again: IDLE+FAIL, new SlurmdStartTime.
     */
    void replaceAndRevive(String node) {
        replaceAndReviveWithoutWaiting(node);
        waitForState(node, "IDLE+FAIL", Duration.ofSeconds(60));
    }

    /** As {@link #replaceAndRevive}, for when a sweep may already resume the node before it is seen IDLE+FAIL. */
    void replaceAndReviveWithoutWaiting(String node) {
        cluster.killNode(node);
        scontrol("update", "nodename=" + node, "state=fail", "reason=Action:Replace");
        cluster.reviveNode(node);
    }

    /** Back to IDLE: dead slurmds revived, marked nodes resumed; every node of the cluster. */
    void restoreAll() {
        for (String node : cluster.nodeNames()) {
            String state = state(node);
            if (state.contains("NOT_RESPONDING")) {
                cluster.reviveNode(node);
                state = state(node);
            }
            if (!state.equals("IDLE")) {
                cluster.run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
            }
        }
        for (String node : cluster.nodeNames()) {
            waitForState(node, "IDLE", Duration.ofSeconds(60));
        }
    }

    CommandResult scontrol(String... args) {
        List<String> argv = new ArrayList<>(List.of("scontrol"));
        argv.addAll(List.of(args));
        CommandResult result = cluster.run(argv);
        if (!result.succeeded()) {
            throw new AssertionError("scontrol " + String.join(" ", args) + " failed: " + result.stderr());
        }
        return result;
    }

    /** The launcher as the user running the tests (root on the cluster's host). */
    CommandResult autoresume(String... args) {
        List<String> argv = new ArrayList<>(List.of(cluster.launcher().toString()));
        argv.addAll(List.of(args));
        return cluster.run(argv);
    }

    CommandResult autoresumeAsTestUser(String... args) {
        List<String> argv = new ArrayList<>(List.of(cluster.launcher().toString()));
        argv.addAll(List.of(args));
        return cluster.runAsTestUser(argv);
    }
}
