package org.slurmautoresume.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.slurmautoresume.agent.server.LivenessListener;
import org.slurmautoresume.agent.server.NodeCheckWatch;
import org.slurmautoresume.agent.server.NodeVerdict;
import org.slurmautoresume.nodeops.health.LocalNode;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.LivenessProber;

/**
 * Starts the agent's liveness port, and its fresh-check port, for the node it runs on.
 * Everything that stops one is said and then tolerated: without the liveness port, supervisors
 * and agents judge this node by its slurmd as before (fail-open); without the fresh-check port
 * a supervisor settling a failed attempt has the verdict the agent's last checks left. Neither
 * is a reason to refuse the agent's other duties.
 */
final class AgentLiveness {

    private AgentLiveness() {}

    /** The liveness port: every connection greeted at once with what {@code verdict} holds. */
    static Optional<LivenessListener> start(
            int basePort, String node, NodeVerdict verdict, CliContext context, PrintWriter err) {
        return listen(
                Port.LIVENESS,
                basePort,
                node,
                context,
                err,
                (address, name) -> LivenessListener.start(address, name, verdict));
    }

    /** The fresh-check port: every connection greeted once {@code watch} ran a round out of turn. */
    static Optional<LivenessListener> startFresh(
            int basePort, String node, NodeVerdict verdict, NodeCheckWatch watch, CliContext context, PrintWriter err) {
        return listen(
                Port.FRESH_CHECK,
                basePort,
                node,
                context,
                err,
                (address, name) -> LivenessListener.startFresh(address, name, verdict, watch::checkNow));
    }

    /** Which port, in the words of its option and of what goes without it. */
    private enum Port {
        LIVENESS("--liveness-port", "no liveness port", "other nodes judge this one by its slurmd alone"),
        FRESH_CHECK(
                "--check-port",
                "no fresh-check port",
                "supervisors settling a failed attempt have the verdict of this agent's last GPU checks");

        private final String option;
        private final String none;
        private final String meaning;

        Port(String option, String none, String meaning) {
            this.option = option;
            this.none = none;
            this.meaning = meaning;
        }
    }

    @FunctionalInterface
    private interface Starter {
        LivenessListener start(InetSocketAddress address, String node) throws IOException;
    }

    private static Optional<LivenessListener> listen(
            Port what, int basePort, String node, CliContext context, PrintWriter err, Starter starter) {
        if (basePort == 0) {
            return Optional.empty();
        }
        if (basePort < 0 || basePort > 65535) {
            throw new CliException(ExitCode.USAGE, what.option + ": not a port (0 to turn it off): " + basePort);
        }
        Optional<String> name = Optional.ofNullable(node)
                .or(() -> LocalNode.name(context.environment()))
                .filter(Hostlist::isValidHostname);
        if (name.isEmpty()) {
            return said(what, err, "this node's Slurm name is unknown (give --node)");
        }
        Optional<Node> record;
        try {
            record = context.slurm().node(name.get());
        } catch (SlurmException e) {
            return said(what, err, "could not read node " + name.get() + " from Slurm (" + e.getMessage() + ")");
        }
        if (record.isEmpty()) {
            return said(what, err, "Slurm has no node " + name.get() + " (give --node)");
        }
        int port;
        try {
            port = LivenessProber.port(basePort, record.get());
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, what.option + ": " + e.getMessage());
        }
        try {
            return Optional.of(starter.start(new InetSocketAddress(port), name.get()));
        } catch (IOException e) {
            return said(what, err, "cannot listen on port " + port + " (" + e.getMessage() + ")");
        }
    }

    private static Optional<LivenessListener> said(Port what, PrintWriter err, String why) {
        err.println("autoresume agent: " + what.none + ": " + why + "; " + what.meaning);
        err.flush();
        return Optional.empty();
    }
}
