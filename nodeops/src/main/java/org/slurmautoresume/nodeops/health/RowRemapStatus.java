package org.slurmautoresume.nodeops.health;

import java.util.Optional;

/**
 * One GPU's row-remapper flags from {@code nvidia-smi --query-remapped-rows} (Ampere and newer):
 * a pending remap takes effect at the next GPU reset; a failed remap means the memory can no
 * longer repair itself.
 */
public record RowRemapStatus(String busId, Optional<Boolean> pending, Optional<Boolean> failure) {}
