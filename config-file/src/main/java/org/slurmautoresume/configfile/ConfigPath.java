package org.slurmautoresume.configfile;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a value sits in a configuration tree, written one way for every file:
 * {@code runPolicy.logMonitoringConfiguration[2].name}. A key that is not a plain name (a dot, a
 * blank, a newline in it) is written in brackets as an escaped string, {@code a["b.c"]}, so a
 * path can always be read back to one place; a key too long to show is cut there. The root is written as the document's root marker:
 * empty for the auto-resume and sweep files, {@code $} for the lifecycle JSON files, whose users
 * know JSONPath and whose paths the documentation quotes.
 */
public final class ConfigPath {

    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");

    private final String text;
    private final boolean root;

    private ConfigPath(String text, boolean root) {
        this.text = text;
        this.root = root;
    }

    /** The root of a document whose paths start with the first key. */
    public static ConfigPath root() {
        return new ConfigPath("", true);
    }

    /** The root of a document whose paths start with {@code marker}, as {@code $.version}. */
    public static ConfigPath root(String marker) {
        return new ConfigPath(Objects.requireNonNull(marker, "marker"), true);
    }

    public ConfigPath field(String key) {
        if (key.length() > Quote.MAX_SHOWN || !PLAIN_KEY.matcher(key).matches()) {
            return new ConfigPath(text + "[" + Quote.text(key) + "]", false);
        }
        return new ConfigPath(text.isEmpty() ? key : text + "." + key, false);
    }

    public ConfigPath index(int position) {
        return new ConfigPath(text + "[" + position + "]", false);
    }

    public boolean isRoot() {
        return root;
    }

    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ConfigPath that && that.text.equals(text) && that.root == root;
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
