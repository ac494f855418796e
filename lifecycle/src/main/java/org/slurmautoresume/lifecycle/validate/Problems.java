package org.slurmautoresume.lifecycle.validate;

import java.util.List;

/** Collects problems for one file; every check adds to it and none replaces another's result. */
final class Problems {

    private final String file;
    private final List<Problem> sink;

    Problems(String file, List<Problem> sink) {
        this.file = file;
        this.sink = sink;
    }

    String file() {
        return file;
    }

    void error(String field, String message, String fix) {
        sink.add(new Problem(Severity.ERROR, file, field, message, fix));
    }

    void warning(String field, String message, String fix) {
        sink.add(new Problem(Severity.WARNING, file, field, message, fix));
    }
}
