package org.slurmautoresume.nodeops.health;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * One GPU as {@code nvidia-smi --query-gpu} reports it. A counter or flag the GPU does not
 * support ({@code [N/A]}, {@code [Not Supported]}) is empty, not zero.
 */
public record GpuStatus(
        int index,
        String busId,
        String uuid,
        OptionalLong uncorrectedEccVolatile,
        Optional<Boolean> retiredPagesPending) {}
