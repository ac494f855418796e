package org.slurmautoresume.nodeops.lemon;

import java.time.LocalDateTime;

/**
 * One time the toolkit took a node out for a fault ({@code Action:Replace} or {@code Action:Reboot}),
 * as Slurm's accounting recorded it: when, in which state, with which reason, by which account.
 */
public record FaultMark(String node, LocalDateTime time, String state, String reason, String user) {}
