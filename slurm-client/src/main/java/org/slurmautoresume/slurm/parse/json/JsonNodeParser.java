package org.slurmautoresume.slurm.parse.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.model.NodeState;

/**
 * Parses {@code scontrol --json show node} (Slurm 23.02 and later, data_parser v0.0.39 to
 * v0.0.44) into the same {@link Node} values the text parser gives. Unknown fields are kept in
 * {@code raw}; times are epoch seconds read in the given zone.
 */
public final class JsonNodeParser {

    private static final List<String> BASE_STATES =
            List.of("UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE");

    /**
     * The order scontrol's text prints flags in: node_state_flags[] in slurm_protocol_defs.c,
     * where 24.05 put BLOCKED first, 25.05 added EXTERNAL after DYNAMIC_NORM, and PERFCTRS (gone
     * in 24.05) stood after POWER_UP. data_parser lists flags in an order of its own (v0.0.44
     * puts EXTERNAL after CLOUD and BLOCKED last; v0.0.43 and older name neither), so they are
     * put back in this one for {@link NodeState#display()} to match.
     */
    private static final List<String> TEXT_FLAG_ORDER = List.of(
            "BLOCKED",
            "CLOUD",
            "COMPLETING",
            "DRAIN",
            "DYNAMIC_FUTURE",
            "DYNAMIC_NORM",
            "EXTERNAL",
            "INVALID_REG",
            "FAIL",
            "MAINTENANCE",
            "POWER_DOWN",
            "POWER_UP",
            "PERFCTRS",
            "POWERED_DOWN",
            "REBOOT_REQUESTED",
            "REBOOT_ISSUED",
            "RESERVED",
            "RESUME",
            NodeState.NOT_RESPONDING,
            "PLANNED",
            "POWERING_UP",
            "POWERING_DOWN");

    private final ZoneId zone;

    /** Reads times in the system's zone, as scontrol's text does. */
    public JsonNodeParser() {
        this(ZoneId.systemDefault());
    }

    public JsonNodeParser(ZoneId zone) {
        this.zone = Objects.requireNonNull(zone);
    }

    public List<Node> parseAll(String output) {
        return parseAll(JsonDocument.read(output), output);
    }

    /**
     * The nodes, or empty when the answer cannot name every state flag the controller may hold:
     * a controller of 24.05 or later (BLOCKED came in 24.05, EXTERNAL in 25.05) answering through
     * a data_parser older than v0.0.44, the first with words for them (24.05 to 25.05 have no
     * newer one). A BLOCKED or EXTERNAL node would read as IDLE there, schedulable: a spare to
     * take. The caller reads scontrol's text instead, which names both. An answer that does not
     * say its release or data_parser is taken as it is.
     */
    public Optional<List<Node>> parseAllWithEveryFlag(String output) {
        JsonNode root = JsonDocument.read(output);
        if (JsonDocument.release(root).filter(r -> r >= FIRST_WITH_BLOCKED).isPresent()
                && JsonDocument.dataParserVersion(root)
                        .filter(v -> v < FIRST_NAMING_BOTH)
                        .isPresent()) {
            return Optional.empty();
        }
        return Optional.of(parseAll(root, output));
    }

    /** Slurm 24.05, as {@link JsonDocument#release} gives it. */
    private static final int FIRST_WITH_BLOCKED = 24_05;
    /** data_parser v0.0.44, as {@link JsonDocument#dataParserVersion} gives it. */
    private static final int FIRST_NAMING_BOTH = 44;

    private List<Node> parseAll(JsonNode root, String output) {
        List<Node> nodes = new ArrayList<>();
        for (JsonNode record : JsonDocument.records(root, "nodes", output)) {
            nodes.add(parse(record));
        }
        return nodes;
    }

    Node parse(JsonNode record) {
        JsonFields f = new JsonFields(record);
        String name = f.required("name");
        OptionalInt port = f.integer("port");
        return new Node(
                name,
                f.optional("address").orElse(name),
                f.optional("hostname").orElse(name),
                port.isPresent() && port.getAsInt() > 0 ? port : OptionalInt.empty(),
                state(f),
                reason(f),
                f.time(zone, "boot_time"),
                f.time(zone, "slurmd_start_time"),
                f.list("partitions"),
                f.optional("gres"),
                f.integer("cpus"),
                f.optional("version"),
                f.list("active_features"),
                f.raw());
    }

    private static NodeState state(JsonFields f) {
        JsonNode value = f.get("state");
        if (value.isTextual()) {
            try {
                return NodeState.parse(value.textValue()); // a "complex" or future printer's one string
            } catch (IllegalArgumentException e) {
                throw f.error("bad node state");
            }
        }
        String base = null;
        List<String> flags = new ArrayList<>();
        for (JsonNode item : value) {
            String word =
                    JsonFields.text(item).map(w -> w.toUpperCase(Locale.ROOT)).orElse("");
            if (base == null && BASE_STATES.contains(word)) {
                base = word;
            } else if (!word.isEmpty() && !flags.contains(word)) {
                flags.add(word);
            }
        }
        if (base == null) {
            throw f.error("bad node state");
        }
        flags.sort((a, b) -> Integer.compare(textOrder(a), textOrder(b)));
        return new NodeState(base, flags, false);
    }

    /** Flags the text order does not know go last, keeping their own order (the sort is stable). */
    private static int textOrder(String flag) {
        int index = TEXT_FLAG_ORDER.indexOf(flag);
        return index < 0 ? TEXT_FLAG_ORDER.size() : index;
    }

    /**
     * The text prints {@code [user@time]} after the reason only when slurmctld recorded a time;
     * the same rule keeps both parsers' reasons equal.
     */
    private Optional<NodeReason> reason(JsonFields f) {
        Optional<String> text = f.optional("reason");
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Optional<LocalDateTime> time = f.time(zone, "reason_changed_at");
        Optional<String> user = time.isPresent() ? f.optional("reason_set_by_user") : Optional.empty();
        return Optional.of(new NodeReason(text.get(), user, time));
    }
}
