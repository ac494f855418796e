package org.slurmautoresume.lifecycle.validate;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/**
 * One thing wrong with a configuration file.
 *
 * @param file  the file as the user named it
 * @param field a JSON path into it ({@code $.worker_groups[1].partition_name}); {@code $} for the
 *              whole file
 * @param fix   what to change, in one sentence
 */
@JsonPropertyOrder({"severity", "file", "field", "message", "fix"})
public record Problem(
        @JsonProperty("severity") Severity severity,
        @JsonProperty("file") String file,
        @JsonProperty("field") String field,
        @JsonProperty("message") String message,
        @JsonProperty("fix") String fix) {

    public Problem {
        Objects.requireNonNull(severity);
        Objects.requireNonNull(file);
        Objects.requireNonNull(field);
        Objects.requireNonNull(message);
        Objects.requireNonNull(fix);
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }
}
