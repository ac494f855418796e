package org.slurmautoresume.slurm.model;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The fields of one Slurm record exactly as printed, in order and unmodifiable. Parsers hand
 * over a map they built with {@link #adopt}, so a 10,000-node listing is not copied twice.
 */
public final class RawFields extends AbstractMap<String, String> {

    private final Map<String, String> fields;

    private RawFields(Map<String, String> fields) {
        this.fields = Collections.unmodifiableMap(fields);
    }

    /** Takes ownership of a map the caller built and will not touch again. */
    public static RawFields adopt(LinkedHashMap<String, String> fields) {
        return new RawFields(fields);
    }

    /** An unmodifiable ordered copy, unless the map already is one. */
    public static RawFields of(Map<String, String> fields) {
        return fields instanceof RawFields raw ? raw : new RawFields(new LinkedHashMap<>(fields));
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return fields.entrySet();
    }

    @Override
    public String get(Object key) {
        return fields.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return fields.containsKey(key);
    }

    @Override
    public int size() {
        return fields.size();
    }
}
