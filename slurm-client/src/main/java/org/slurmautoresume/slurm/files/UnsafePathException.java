package org.slurmautoresume.slurm.files;

import java.io.IOException;
import java.nio.file.Path;

/** A path that someone other than its user could have planted or could change: not used. */
public final class UnsafePathException extends IOException {

    private static final long serialVersionUID = 1L;

    public UnsafePathException(Path path, String why) {
        super(path + " " + why);
    }
}
