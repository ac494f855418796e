package org.slurmautoresume.supervisor.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import org.slurmautoresume.configfile.ConfigPath;

/**
 * Lays a more specific configuration over a more general one, field by field: a field the
 * upper file sets wins, one it leaves out keeps the lower value, one it sets to null is
 * cleared. Log rules are matched by name, so a job can change one field of a site rule;
 * rules with new names are added after the lower file's. Every other list (recoverStrategy)
 * is replaced as a whole, since its order is its meaning.
 */
final class ConfigMerger {

    private ConfigMerger() {}

    private static final ConfigPath RULES = ConfigPath.root().field("runPolicy").field(RuleSection.FIELD);

    static JsonNode merge(JsonNode lower, JsonNode upper) {
        return merge(lower, upper, ConfigPath.root());
    }

    private static JsonNode merge(JsonNode lower, JsonNode upper, ConfigPath path) {
        if (upper == null || upper.isMissingNode()) {
            return lower;
        }
        if (upper.isNull()) {
            return null;
        }
        if (lower != null && lower.isObject() && upper.isObject()) {
            ObjectNode merged = ((ObjectNode) lower).deepCopy();
            for (Iterator<Map.Entry<String, JsonNode>> fields = upper.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                JsonNode value = merge(merged.get(field.getKey()), field.getValue(), path.field(field.getKey()));
                if (value == null) {
                    merged.remove(field.getKey());
                } else {
                    merged.set(field.getKey(), value);
                }
            }
            return merged;
        }
        if (path.equals(RULES) && lower != null && lower.isArray() && upper.isArray()) {
            return mergeRules((ArrayNode) lower, (ArrayNode) upper);
        }
        return upper.deepCopy();
    }

    private static ArrayNode mergeRules(ArrayNode lower, ArrayNode upper) {
        ArrayNode merged = JsonNodeFactory.instance.arrayNode();
        lower.forEach(rule -> merged.add(rule.deepCopy()));
        for (JsonNode rule : upper) {
            int same = indexOfName(merged, rule);
            if (same >= 0) {
                merged.set(same, merge(merged.get(same), rule, RULES.index(same)));
            } else {
                merged.add(rule.deepCopy());
            }
        }
        return merged;
    }

    private static int indexOfName(ArrayNode rules, JsonNode rule) {
        JsonNode name = rule.get("name");
        if (name == null || !name.isTextual()) {
            return -1;
        }
        for (int i = 0; i < rules.size(); i++) {
            JsonNode other = rules.get(i).get("name");
            if (other != null && other.isTextual() && other.asText().equals(name.asText())) {
                return i;
            }
        }
        return -1;
    }
}
