package org.slurmautoresume.agent.protocol;

/** No agent runs on the socket: none there, or nothing listening on it (one was killed). */
public final class AgentUnavailableException extends AgentException {

    private static final long serialVersionUID = 1L;

    public AgentUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
