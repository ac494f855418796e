package org.slurmautoresume.lifecycle.apply;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;

/**
 * What apply did, or would do, to one file.
 *
 * @param diff unified diff from the current content to the new one (empty when unchanged)
 */
public record FileChange(
        @JsonProperty("path") Path path,
        @JsonProperty("status") Status status,
        @JsonProperty("diff") String diff) {

    public enum Status {
        CREATED,
        UPDATED,
        UNCHANGED
    }

    public boolean changed() {
        return status != Status.UNCHANGED;
    }
}
