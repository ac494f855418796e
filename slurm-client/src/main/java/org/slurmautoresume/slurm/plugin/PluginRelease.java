package org.slurmautoresume.slurm.plugin;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slurmautoresume.slurm.model.SlurmVersion;

/**
 * The Slurm release a Slurm plugin was built for, read from the plugin file itself. Every plugin
 * (a SPANK one through {@code SPANK_PLUGIN}) exports {@code plugin_version}, the
 * SLURM_VERSION_NUMBER of the headers it was compiled against ({@code major << 16 | minor << 8 |
 * micro}), and Slurm loads a plugin only into a release of the same major.minor: SPANK has no
 * stable ABI. A plugstack line marked {@code optional} then skips the plugin without a word, and
 * every {@code srun --auto-resume=1} fails as an unknown option. This reads the number from the
 * ELF file's dynamic symbol table without loading the library (loading a SPANK plugin outside
 * Slurm fails on its unresolved symbols, and would run its constructors).
 */
public final class PluginRelease {

    static final String SYMBOL = "plugin_version";
    /** A plugin is a few hundred KiB; anything far larger is not one. */
    private static final long MAX_BYTES = 64L << 20;

    private static final int SHT_DYNSYM = 11;
    private static final int SYM_SIZE = 24;
    private static final int SECTION_HEADER_SIZE = 64;

    private PluginRelease() {}

    /**
     * The release {@code plugin} was built for; empty when the file is a 64-bit little-endian ELF
     * library without a {@code plugin_version} symbol. An unreadable file, or one that is not such
     * an ELF file, is an IOException saying why.
     */
    public static Optional<SlurmVersion> builtFor(Path plugin) throws IOException {
        if (Files.size(plugin) > MAX_BYTES) {
            throw new IOException(plugin + " is over " + (MAX_BYTES >> 20) + " MiB: not a Slurm plugin");
        }
        ByteBuffer elf = ByteBuffer.wrap(Files.readAllBytes(plugin)).order(ByteOrder.LITTLE_ENDIAN);
        try {
            if (elf.getInt(0) != 0x464c457f || elf.get(4) != 2 || elf.get(5) != 1) {
                throw new IOException(plugin + " is not a 64-bit little-endian ELF file");
            }
            long sectionHeaders = elf.getLong(0x28);
            int sections = Short.toUnsignedInt(elf.getShort(0x3c));
            for (int i = 0; i < sections; i++) {
                int header = section(sectionHeaders, i);
                if (elf.getInt(header + 4) != SHT_DYNSYM) {
                    continue;
                }
                int strings = section(sectionHeaders, elf.getInt(header + 40));
                Optional<Integer> value = symbolValue(elf, header, strings, sectionHeaders);
                if (value.isPresent()) {
                    int number = value.get();
                    return Optional.of(new SlurmVersion(number >>> 16 & 0xff, number >>> 8 & 0xff, number & 0xff));
                }
            }
            return Optional.empty();
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new IOException(plugin + " is not a well-formed ELF file (" + e.getMessage() + ")", e);
        }
    }

    /** Whether a plugin built for {@code built} loads into {@code running}: the same major and minor. */
    public static boolean loadsInto(SlurmVersion built, SlurmVersion running) {
        return built.major() == running.major() && built.minor() == running.minor();
    }

    private static int section(long sectionHeaders, int index) {
        return Math.toIntExact(sectionHeaders + (long) index * SECTION_HEADER_SIZE);
    }

    /** The 32-bit value {@link #SYMBOL} holds, found through the symbol table at {@code dynsym}. */
    private static Optional<Integer> symbolValue(ByteBuffer elf, int dynsym, int dynstr, long sectionHeaders) {
        long tableOffset = elf.getLong(dynsym + 24);
        long tableSize = elf.getLong(dynsym + 32);
        long stringsOffset = elf.getLong(dynstr + 24);
        for (long entry = tableOffset; entry + SYM_SIZE <= tableOffset + tableSize; entry += SYM_SIZE) {
            int at = Math.toIntExact(entry);
            int name = elf.getInt(at);
            int sectionIndex = Short.toUnsignedInt(elf.getShort(at + 6));
            if (sectionIndex == 0 || sectionIndex >= 0xff00 || !SYMBOL.equals(name(elf, stringsOffset + name))) {
                continue;
            }
            int holder = section(sectionHeaders, sectionIndex);
            long address = elf.getLong(holder + 16);
            long offset = elf.getLong(holder + 24);
            return Optional.of(elf.getInt(Math.toIntExact(elf.getLong(at + 8) - address + offset)));
        }
        return Optional.empty();
    }

    private static String name(ByteBuffer elf, long offset) {
        int start = Math.toIntExact(offset);
        int end = start;
        while (elf.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - start];
        elf.get(start, bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
