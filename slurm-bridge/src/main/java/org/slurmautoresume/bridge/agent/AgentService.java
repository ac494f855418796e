package org.slurmautoresume.bridge.agent;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request line in, one response line out, every answer audited: the part of the agent
 * between the socket and the {@link AgentPolicy}.
 */
public final class AgentService {

    private static final Logger LOG = LoggerFactory.getLogger(AgentService.class);
    private static final int RAW_IN_AUDIT = 512;

    private final AgentPolicy policy;
    private final AuditLog audit;

    public AgentService(AgentPolicy policy, AuditLog audit) {
        this.policy = Objects.requireNonNull(policy);
        this.audit = Objects.requireNonNull(audit);
    }

    public String handle(Caller caller, String line) {
        AgentRequest request;
        try {
            request = AgentRequest.fromJson(AgentJson.readTree(line));
        } catch (AgentRequestException e) {
            return refuse(caller, truncated(line), "bad request: " + e.getMessage());
        }
        AgentResponse response;
        try {
            response = policy.handle(caller, request);
        } catch (RuntimeException e) {
            LOG.error("internal error answering {} for {}", request, caller, e);
            response = AgentResponse.refused(request.nodes(), "internal error in the agent: " + e);
        }
        audit.record(caller, wireForm(request), response);
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

    static Map<String, Object> wireForm(AgentRequest request) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("op", AgentJson.wire(request.op()));
        doc.put("jobId", request.jobId());
        if (!request.nodes().isEmpty()) {
            doc.put("nodes", request.nodes());
        }
        if (request.action() != null) {
            doc.put("action", request.action().word());
            doc.put("state", request.state().word());
        }
        if (request.report() != null) {
            doc.put("report", request.report().wireForm());
        }
        return doc;
    }

    private static String truncated(String line) {
        return line.length() <= RAW_IN_AUDIT ? line : line.substring(0, RAW_IN_AUDIT) + "...";
    }
}
