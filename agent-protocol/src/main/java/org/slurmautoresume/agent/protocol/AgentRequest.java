package org.slurmautoresume.agent.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.model.InvalidJobIdException;
import org.slurmautoresume.slurm.model.JobId;

/**
 * One request to the agent, validated when it is built: a request with a malformed job id, an
 * unsafe node name or an unknown field cannot exist, so nothing downstream ever sees one.
 *
 * <p>{@code action} and {@code state} are set for {@link Op#MARK} only; {@code report} for
 * {@link Op#REPORT} only; {@code nodes} is empty for {@link Op#WATCH}, {@link Op#REPORT} and
 * {@link Op#EXPEDITE}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AgentRequest(
        Op op, String jobId, List<String> nodes, NodeMark.Action action, MarkState state, AgentReport report) {

    /** Far more nodes than any one request about one job's faults needs; bounds the agent's work. */
    public static final int MAX_NODES = 1024;

    public enum Op {
        WATCH,
        DIAGNOSE,
        MARK,
        RESUME,
        REBOOT,
        REPLACE,
        REPORT,
        /** The caller's job is about to be requeued: have it start again at once, not after Slurm's delay. */
        EXPEDITE;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The Slurm state a marked node is put in. */
    public enum MarkState {
        FAIL,
        DOWN;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        public NodeMark.State mark() {
            return NodeMark.State.valueOf(name());
        }
    }

    /** The job id as a value; {@code jobId} holds it as Slurm writes it. */
    public JobId job() {
        return JobId.parse(jobId);
    }

    public AgentRequest {
        Objects.requireNonNull(op, "op");
        try {
            jobId = JobId.parse(jobId).toString();
        } catch (InvalidJobIdException e) {
            throw new AgentRequestException(e.getMessage());
        }
        nodes = List.copyOf(nodes == null ? List.of() : nodes);
        if (op == Op.WATCH || op == Op.REPORT || op == Op.EXPEDITE) {
            if (!nodes.isEmpty()) {
                throw new AgentRequestException(
                        switch (op) {
                            case WATCH -> "watch takes no nodes: it records the job's own node list";
                            case REPORT -> "report takes no nodes: a replacement says how many in \"nodeCount\"";
                            default -> "expedite takes no nodes: it is about the job as a whole";
                        });
            }
        } else {
            if (nodes.isEmpty()) {
                throw new AgentRequestException(op.wire() + " needs at least one node");
            }
            if (nodes.size() > MAX_NODES) {
                throw new AgentRequestException("too many nodes: " + nodes.size() + " (at most " + MAX_NODES + ")");
            }
            Set<String> seen = new LinkedHashSet<>();
            for (String node : nodes) {
                if (!Hostlist.isValidHostname(node)) {
                    throw new AgentRequestException("not a valid node name: " + quoted(node));
                }
                if (!seen.add(node)) {
                    throw new AgentRequestException("node named twice: " + node);
                }
            }
        }
        if (op == Op.MARK) {
            if (action == null || state == null) {
                throw new AgentRequestException("mark needs \"action\" (Replace|Reboot) and \"state\" (fail|down)");
            }
        } else if (action != null || state != null) {
            throw new AgentRequestException("\"action\" and \"state\" belong to mark only");
        }
        if (op == Op.REPORT && report == null) {
            throw new AgentRequestException("report needs \"report\": what happened to the job's step");
        }
        if (op != Op.REPORT && report != null) {
            throw new AgentRequestException("\"report\" belongs to report only");
        }
    }

    public static AgentRequest watch(String jobId) {
        return new AgentRequest(Op.WATCH, jobId, List.of(), null, null, null);
    }

    public static AgentRequest diagnose(String jobId, List<String> nodes) {
        return new AgentRequest(Op.DIAGNOSE, jobId, nodes, null, null, null);
    }

    public static AgentRequest mark(String jobId, List<String> nodes, NodeMark.Action action, MarkState state) {
        return new AgentRequest(Op.MARK, jobId, nodes, action, state, null);
    }

    public static AgentRequest resume(String jobId, List<String> nodes) {
        return new AgentRequest(Op.RESUME, jobId, nodes, null, null, null);
    }

    /** {@code scontrol reboot ASAP nextstate=RESUME reason=Action:Reboot} for unhealthy nodes. */
    public static AgentRequest reboot(String jobId, List<String> nodes) {
        return new AgentRequest(Op.REBOOT, jobId, nodes, null, null, null);
    }

    /** Runs the site's replace command for nodes the agent marked Action:Replace. */
    public static AgentRequest replace(String jobId, List<String> nodes) {
        return new AgentRequest(Op.REPLACE, jobId, nodes, null, null, null);
    }

    /**
     * Asks the agent to have the caller's job, which the caller is about to requeue, start again
     * as soon as it is requeued instead of after Slurm's requeue delay.
     */
    public static AgentRequest expedite(String jobId) {
        return new AgentRequest(Op.EXPEDITE, jobId, List.of(), null, null, null);
    }

    /** Tells the agent's metrics what happened to the caller's own job (see {@link AgentReport}). */
    public static AgentRequest report(String jobId, AgentReport report) {
        return new AgentRequest(Op.REPORT, jobId, List.of(), null, null, report);
    }

    /**
     * Reads the wire form, strictly: {@code {"op":"mark","jobId":"6","nodes":["node2"],
     * "action":"Replace","state":"fail"}}. Unknown fields, wrong types and unknown words are
     * errors that quote what was sent.
     */
    public static AgentRequest fromJson(JsonNode doc) {
        if (doc == null || !doc.isObject()) {
            throw new AgentRequestException("a request is one JSON object per line");
        }
        for (Iterator<String> names = doc.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!List.of("op", "jobId", "nodes", "action", "state", "report").contains(name)) {
                throw new AgentRequestException("unknown field " + quoted(name));
            }
        }
        Op op = word(doc, "op", Op.class, true);
        String jobId = text(doc, "jobId", true);
        List<String> nodes = new ArrayList<>();
        JsonNode list = doc.get("nodes");
        if (list != null && !list.isNull()) {
            if (!list.isArray()) {
                throw new AgentRequestException("\"nodes\" must be a list of node names");
            }
            if (list.size() > MAX_NODES) {
                throw new AgentRequestException("too many nodes: " + list.size() + " (at most " + MAX_NODES + ")");
            }
            for (JsonNode node : list) {
                if (!node.isTextual()) {
                    throw new AgentRequestException("\"nodes\" must hold strings, not " + node);
                }
                nodes.add(node.asText());
            }
        }
        JsonNode report = doc.get("report");
        return new AgentRequest(
                op,
                jobId,
                nodes,
                word(doc, "action", NodeMark.Action.class, false),
                word(doc, "state", MarkState.class, false),
                report == null || report.isNull() ? null : AgentReport.fromJson(report));
    }

    private static String text(JsonNode doc, String field, boolean required) {
        JsonNode value = doc.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new AgentRequestException("missing \"" + field + "\"");
            }
            return null;
        }
        if (!value.isTextual() && !(field.equals("jobId") && value.isIntegralNumber())) {
            throw new AgentRequestException("\"" + field + "\" must be a string, not " + value);
        }
        return value.asText();
    }

    private static <E extends Enum<E>> E word(JsonNode doc, String field, Class<E> type, boolean required) {
        String text = text(doc, field, required);
        if (text == null) {
            return null;
        }
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(text)) {
                return constant;
            }
        }
        throw new AgentRequestException("unknown " + field + " " + quoted(text));
    }

    /**
     * A caller's word for a message that reaches the agent's log and its answer: at most 80
     * characters, control characters escaped, so a newline in a node name or a field's name
     * cannot start a line of the caller's own in root's log.
     */
    static String quoted(String text) {
        if (text == null) {
            return "(none)";
        }
        String cut = text.length() > 80 ? text.substring(0, 80) : text;
        StringBuilder out = new StringBuilder(cut.length() + 8).append('"');
        cut.codePoints().forEach(c -> {
            if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\\' || c == '"') {
                out.append('\\').appendCodePoint(c);
            } else if (Character.isISOControl(c) || c == 0x2028 || c == 0x2029) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.append(text.length() > 80 ? "...\"" : "\"").toString();
    }

    /** The request as it goes over the wire, and as the agent's audit log records it. */
    public Map<String, Object> wireForm() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("op", AgentJson.wire(op));
        doc.put("jobId", jobId);
        if (!nodes.isEmpty()) {
            doc.put("nodes", nodes);
        }
        if (action != null) {
            doc.put("action", action.word());
            doc.put("state", state.word());
        }
        if (report != null) {
            doc.put("report", report.wireForm());
        }
        return doc;
    }
}
