package org.slurmautoresume.configfile;

import java.util.Objects;

/**
 * One thing wrong (or doubtful) in a configuration file.
 *
 * @param file     the file as the user named it, or files joined by " + " for a problem of their merge
 * @param path     the field, as {@link ConfigPath} writes it; the root marker (often empty) for the file as a whole
 * @param message  why, quoting the offending value
 * @param fix      what to change, in one sentence; empty where nothing better than the message can be said
 */
public record ConfigProblem(Severity severity, String file, String path, String message, String fix) {

    public ConfigProblem {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(fix, "fix");
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    /** {@code file: path: [warning: ]message}, the path left out for the file as a whole. */
    @Override
    public String toString() {
        return file + ": " + (path.isEmpty() ? "" : path + ": ") + (isError() ? "" : "warning: ") + message;
    }
}
