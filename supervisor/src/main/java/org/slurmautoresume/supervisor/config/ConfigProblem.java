package org.slurmautoresume.supervisor.config;

import java.util.Objects;

/**
 * One thing wrong (or doubtful) in a configuration file: where, which field, why.
 *
 * @param file    the file, or files joined by " + " for a problem of their merge
 * @param path    the field as a JSON path, e.g. {@code runPolicy.logMonitoringConfiguration[1].operator};
 *                empty for the file as a whole
 * @param message why, with the offending value quoted
 * @param error   false for a warning: the configuration still loads
 */
public record ConfigProblem(String file, String path, String message, boolean error) {

    public ConfigProblem {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return file + ": " + (path.isEmpty() ? "" : path + ": ") + (error ? "" : "warning: ") + message;
    }
}
