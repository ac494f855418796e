package org.slurmautoresume.agent.protocol;

import java.util.List;

/**
 * The agent's answer: {@code ok} is true when the request was authorised and no node was
 * refused or failed; {@code decisions} holds one entry per node; {@code message} says why in
 * one line a person can read.
 */
public record AgentResponse(boolean ok, List<NodeDecision> decisions, String message) {

    public AgentResponse {
        decisions = List.copyOf(decisions == null ? List.of() : decisions);
        message = message == null ? "" : message;
    }

    /** The whole request refused: every node named in it gets the same refusal. */
    public static AgentResponse refused(List<String> nodes, String why) {
        return new AgentResponse(
                false,
                nodes.stream()
                        .map(n -> new NodeDecision(n, NodeDecision.REFUSED, null, why))
                        .toList(),
                why);
    }

    public static AgentResponse of(List<NodeDecision> decisions, String summary) {
        boolean ok = decisions.stream().noneMatch(NodeDecision::refusedOrFailed);
        return new AgentResponse(ok, decisions, summary);
    }
}
