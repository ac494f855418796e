package org.slurmautoresume.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.slurmautoresume.agent.server.LivenessListener;
import org.slurmautoresume.agent.server.NodeVerdict;
import org.slurmautoresume.nodeops.health.LocalNode;
import org.slurmautoresume.slurm.client.SlurmException;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.probe.LivenessProber;

/**
 * Starts the agent's liveness port for the node it runs on. Everything that stops it is said
 * and then tolerated: without the port, supervisors and agents judge this node by its slurmd as
 * before (fail-open), which is no reason to refuse the agent's other duties.
 */
final class AgentLiveness {

    private AgentLiveness() {
    }

    static Optional<LivenessListener> start(int basePort, String node, NodeVerdict verdict, CliContext context,
                                            PrintWriter err) {
        if (basePort == 0) {
            return Optional.empty();
        }
        if (basePort < 0 || basePort > 65535) {
            throw new CliException(ExitCode.USAGE, "--liveness-port: not a port (0 to turn it off): " + basePort);
        }
        Optional<String> name = Optional.ofNullable(node).or(() -> LocalNode.name(context.environment()))
                .filter(Hostlist::isValidHostname);
        if (name.isEmpty()) {
            return said(err, "this node's Slurm name is unknown (give --node)");
        }
        Optional<Node> record;
        try {
            record = context.slurm().node(name.get());
        } catch (SlurmException e) {
            return said(err, "could not read node " + name.get() + " from Slurm (" + e.getMessage() + ")");
        }
        if (record.isEmpty()) {
            return said(err, "Slurm has no node " + name.get() + " (give --node)");
        }
        int port;
        try {
            port = LivenessProber.port(basePort, record.get());
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--liveness-port: " + e.getMessage());
        }
        try {
            return Optional.of(LivenessListener.start(new InetSocketAddress(port), name.get(), verdict));
        } catch (IOException e) {
            return said(err, "cannot listen on port " + port + " (" + e.getMessage() + ")");
        }
    }

    private static Optional<LivenessListener> said(PrintWriter err, String why) {
        err.println("autoresume agent: no liveness port: " + why + "; other nodes judge this one by its slurmd alone");
        err.flush();
        return Optional.empty();
    }
}
