package org.slurmautoresume.slurm.parse.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns a job or step state as data_parser prints it into the one word scontrol's text prints.
 * v0.0.39 prints that word already; v0.0.40 and later print the base state and its flags as a
 * list ({@code ["PENDING", "REQUEUED"]}), and the text shows the first flag of Slurm's
 * {@code job_state_string()} order, else the base.
 */
final class JsonJobStates {

    /** job_state_string() in slurm_protocol_defs.c tests these flags before the base state. */
    private static final List<String> FLAGS_BEFORE_BASE = List.of(
            "COMPLETING",
            "STAGE_OUT",
            "CONFIGURING",
            "RESIZING",
            "REQUEUED",
            "REQUEUE_FED",
            "REQUEUE_HOLD",
            "SPECIAL_EXIT",
            "STOPPED",
            "REVOKED",
            "RESV_DEL_HOLD",
            "SIGNALING");

    private JsonJobStates() {}

    /** The state word, or "" when the value holds none. */
    static String word(JsonNode value) {
        List<String> words = new ArrayList<>();
        if (value.isArray()) {
            for (JsonNode item : value) {
                JsonFields.text(item).ifPresent(w -> words.add(w.toUpperCase(Locale.ROOT)));
            }
        } else {
            JsonFields.text(value).ifPresent(w -> words.add(w.toUpperCase(Locale.ROOT)));
        }
        for (String flag : FLAGS_BEFORE_BASE) {
            if (words.contains(flag)) {
                return flag;
            }
        }
        return words.isEmpty() ? "" : words.get(0);
    }
}
