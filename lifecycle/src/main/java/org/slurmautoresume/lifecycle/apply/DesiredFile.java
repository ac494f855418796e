package org.slurmautoresume.lifecycle.apply;

import java.nio.file.Path;

/** A file as apply wants it on the node: its path there, its whole content, and whether it runs. */
public record DesiredFile(Path path, String content, boolean executable) {}
