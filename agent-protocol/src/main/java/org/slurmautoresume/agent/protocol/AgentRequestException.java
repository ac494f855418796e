package org.slurmautoresume.agent.protocol;

/** A request the agent will not read: malformed, oversized, or naming unsafe values. */
public class AgentRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public AgentRequestException(String message) {
        super(message);
    }
}
