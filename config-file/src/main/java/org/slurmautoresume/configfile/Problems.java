package org.slurmautoresume.configfile;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Collects the problems of one file instead of throwing at the first: every check adds to it and
 * none replaces another's, so a user fixes a file in one round. Several files (and their merge)
 * may share one list through {@link #forFile}.
 */
public final class Problems {

    private final String file;
    private final ConfigPath root;
    private final List<ConfigProblem> sink;

    public Problems(String file, ConfigPath root) {
        this(file, root, new ArrayList<>());
    }

    public Problems(String file, ConfigPath root, List<ConfigProblem> sink) {
        this.file = file;
        this.root = root;
        this.sink = sink;
    }

    /** Problems of another file (or of a merge, "a + b") into the same list. */
    public Problems forFile(String other) {
        return new Problems(other, root, sink);
    }

    public String file() {
        return file;
    }

    /** The document's root: where problems of the file as a whole are reported. */
    public ConfigPath root() {
        return root;
    }

    public void error(ConfigPath path, String message, String fix) {
        sink.add(new ConfigProblem(Severity.ERROR, file, path.toString(), message, fix));
    }

    public void error(ConfigPath path, String message) {
        error(path, message, "");
    }

    public void warning(ConfigPath path, String message, String fix) {
        sink.add(new ConfigProblem(Severity.WARNING, file, path.toString(), message, fix));
    }

    public void warning(ConfigPath path, String message) {
        warning(path, message, "");
    }

    /** A mark for {@link #hasErrorsSince}: how many problems the list holds now. */
    public int mark() {
        return sink.size();
    }

    public boolean hasErrorsSince(int mark) {
        return sink.subList(mark, sink.size()).stream().anyMatch(ConfigProblem::isError);
    }

    public boolean hasErrors() {
        return hasErrorsSince(0);
    }

    /** Every problem so far, of every file sharing the list, in the order found. */
    public List<ConfigProblem> all() {
        return Collections.unmodifiableList(sink);
    }
}
