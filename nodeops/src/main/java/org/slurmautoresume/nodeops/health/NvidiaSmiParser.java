package org.slurmautoresume.nodeops.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiFunction;
import org.slurmautoresume.slurm.parse.ParseException;

/**
 * Reads {@code nvidia-smi --format=csv,noheader,nounits} answers to the two queries the GPU
 * check makes ({@link #GPU_FIELDS}, {@link #REMAP_FIELDS}). Pure functions over text.
 */
public final class NvidiaSmiParser {

    /** The {@code --query-gpu} fields, in the order {@link #gpus} reads them. */
    public static final String GPU_FIELDS =
            "index,pci.bus_id,uuid,ecc.errors.uncorrected.volatile.total,retired_pages.pending";

    /** The {@code --query-remapped-rows} fields, in the order {@link #remaps} reads them. */
    public static final String REMAP_FIELDS = "gpu_bus_id,remapped_rows.pending,remapped_rows.failure";

    private NvidiaSmiParser() {}

    public static List<GpuStatus> gpus(String csv) {
        return rows(csv, 5, (cells, line) -> {
            int index;
            try {
                index = Integer.parseInt(cells[0]);
            } catch (NumberFormatException e) {
                throw new ParseException("nvidia-smi GPU row whose index is not a number", line);
            }
            return new GpuStatus(index, cells[1], cells[2], counter(cells[3], line), flag(cells[4], line));
        });
    }

    public static List<RowRemapStatus> remaps(String csv) {
        return rows(csv, 3, (cells, line) -> new RowRemapStatus(cells[0], flag(cells[1], line), flag(cells[2], line)));
    }

    /** Every non-blank line split into exactly {@code width} trimmed cells and handed to {@code row}. */
    private static <T> List<T> rows(String csv, int width, BiFunction<String[], String, T> row) {
        List<T> rows = new ArrayList<>();
        for (String line : csv.split("\n")) {
            if (!line.isBlank()) {
                rows.add(row.apply(cells(line, width), line));
            }
        }
        return rows;
    }

    private static String[] cells(String line, int expected) {
        String[] cells = line.split(",", -1);
        if (cells.length != expected) {
            throw new ParseException("nvidia-smi row with " + cells.length + " fields, expected " + expected, line);
        }
        for (int i = 0; i < cells.length; i++) {
            cells[i] = cells[i].strip();
        }
        return cells;
    }

    /** "[N/A]", "[Not Supported]", "N/A": the GPU does not report this one. */
    private static boolean unsupported(String cell) {
        return cell.isEmpty() || cell.startsWith("[") || cell.equalsIgnoreCase("N/A");
    }

    private static OptionalLong counter(String cell, String line) {
        if (unsupported(cell)) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(cell));
        } catch (NumberFormatException e) {
            throw new ParseException("nvidia-smi counter that is not a number (\"" + cell + "\")", line);
        }
    }

    /** Flags print as Yes/No on some drivers and 1/0 on others. */
    private static Optional<Boolean> flag(String cell, String line) {
        if (unsupported(cell)) {
            return Optional.empty();
        }
        return switch (cell.toLowerCase(Locale.ROOT)) {
            case "yes", "1", "true" -> Optional.of(true);
            case "no", "0", "false" -> Optional.of(false);
            default -> throw new ParseException("nvidia-smi flag that is neither yes nor no (\"" + cell + "\")", line);
        };
    }
}
