package org.slurmautoresume.agent.server;

import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentJson;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentRequestException;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.slurm.model.Caller;

/**
 * One request line in, one response line out, every answer audited (refusals and answers that
 * change nothing within each uid's share, see {@link AuditLog}): the part of the agent between
 * the socket and the {@link AgentPolicy}.
 */
public final class AgentService {

    private static final Logger LOG = LoggerFactory.getLogger(AgentService.class);
    private static final int RAW_IN_AUDIT = 512;
    /** The requests that may change a node's state in Slurm: recorded before they are acted on. */
    private static final Set<AgentRequest.Op> CHANGES_SLURM = EnumSet.of(
            AgentRequest.Op.MARK,
            AgentRequest.Op.RESUME,
            AgentRequest.Op.REBOOT,
            AgentRequest.Op.REPLACE,
            AgentRequest.Op.EXPEDITE);

    private final AgentPolicy policy;
    private final AuditLog audit;

    public AgentService(AgentPolicy policy, AuditLog audit) {
        this.policy = Objects.requireNonNull(policy);
        this.audit = Objects.requireNonNull(audit);
        policy.recordRequeuesInto(audit);
    }

    public String handle(Caller caller, String line) {
        AgentRequest request;
        try {
            request = AgentRequest.fromJson(AgentJson.readTree(line));
        } catch (AgentRequestException e) {
            return refuse(caller, truncated(line), "bad request: " + e.getMessage());
        }
        boolean changes = CHANGES_SLURM.contains(request.op());
        if (changes && !audit.admitChange(caller)) {
            // Each such request is two lines always written: past its share a user's flood of them is refused.
            return refuse(
                    caller,
                    truncated(line),
                    AgentClient.BUSY + caller.name() + " used up its share of requests that" + " may change Slurm ("
                            + AuditShares.CHANGES_PER_MINUTE + " a minute); try again later");
        }
        if (changes && !audit.recordIntent(caller, request.wireForm())) {
            return refuse(
                    caller,
                    truncated(line),
                    "the audit log cannot be written (see the agent's log): the agent"
                            + " does nothing it cannot record");
        }
        AgentResponse response;
        try {
            response = policy.handle(caller, request);
        } catch (RuntimeException e) {
            LOG.error("internal error answering {} for {}", request, caller, e);
            response = AgentResponse.refused(request.nodes(), "internal error in the agent: " + e);
        }
        if (changes) {
            audit.recordOutcome(caller, request.wireForm(), response);
        } else {
            audit.record(caller, request.wireForm(), response);
        }
        LOG.info("{} {} job {}: {}", caller, AgentJson.wire(request.op()), request.jobId(), response.message());
        return AgentJson.line(response);
    }

    /** A line that could not be read at all (too long, not UTF-8, timed out). */
    public String refuse(Caller caller, String whatWasSent, String why) {
        AgentResponse response = AgentResponse.refused(List.of(), why);
        audit.record(caller, whatWasSent, response);
        LOG.info("{}: {}", caller, why);
        return AgentJson.line(response);
    }

    private static String truncated(String line) {
        return line.length() <= RAW_IN_AUDIT ? line : line.substring(0, RAW_IN_AUDIT) + "...";
    }
}
