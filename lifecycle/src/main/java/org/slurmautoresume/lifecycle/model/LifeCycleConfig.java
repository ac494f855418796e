package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** Where the lifecycle scripts are ({@code SourceS3Uri}) and which one runs first ({@code OnCreate}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LifeCycleConfig(
        @JsonProperty("SourceS3Uri") String sourceS3Uri,
        @JsonProperty("OnCreate") String onCreate) {}
