package org.slurmautoresume.nodeops.health;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Small shell scripts standing in for nvidia-smi, dcgmi, stress-ng and the rest: each prints
 * a fixture (to stdout or stderr) and exits with a chosen status, picking its answer by a word
 * in its arguments. Every call's arguments are appended to {@code <name>.calls} next to it.
 * The directory is meant to be the whole PATH of the code under test.
 */
public final class FakeTools {

    private final Path dir;

    public FakeTools(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    public String path() {
        return dir.toString();
    }

    /** One answer: when the arguments contain {@code argsContain} (empty: always), print and exit. */
    public record Answer(String argsContain, String stdoutFixture, String stderrFixture, int exit) {

        public static Answer out(String argsContain, String fixture, int exit) {
            return new Answer(argsContain, fixture, null, exit);
        }

        public static Answer err(String argsContain, String fixture, int exit) {
            return new Answer(argsContain, null, fixture, exit);
        }
    }

    /** A tool that answers with the first matching answer, or exits 1 saying it was not expected. */
    public FakeTools tool(String name, Answer... answers) {
        List<String> lines = new ArrayList<>();
        lines.add("#!/bin/sh");
        lines.add(
                "printf '%s\\n' \"$*\" >> " + quote(dir.resolve(name + ".calls").toString()));
        lines.add("case \"$*\" in");
        for (Answer answer : answers) {
            lines.add("  *" + quote(answer.argsContain()) + "*)");
            if (answer.stdoutFixture() != null) {
                lines.add("    cat "
                        + quote(HealthFixtures.path(answer.stdoutFixture()).toString()));
            }
            if (answer.stderrFixture() != null) {
                lines.add("    cat "
                        + quote(HealthFixtures.path(answer.stderrFixture()).toString()) + " >&2");
            }
            lines.add("    exit " + answer.exit() + ";;");
        }
        lines.add("esac");
        lines.add("echo \"" + name + ": fake not told about: $*\" >&2");
        lines.add("exit 1");
        return script(name, String.join("\n", lines) + "\n");
    }

    /** A tool with a script body of the test's own. */
    public FakeTools script(String name, String body) {
        Path file = dir.resolve(name);
        try {
            Files.writeString(file, body, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** The argument lines the tool was called with, one per call. */
    public List<String> calls(String name) {
        Path file = dir.resolve(name + ".calls");
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
