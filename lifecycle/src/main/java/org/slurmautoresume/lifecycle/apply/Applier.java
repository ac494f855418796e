package org.slurmautoresume.lifecycle.apply;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Compares desired files with what is on disk under the layout's root and writes the ones that
 * differ (whole file, through a temporary file and a rename, so slurmd never reads half a
 * slurm.conf). A dry run only computes the diffs.
 */
public final class Applier {

    private Applier() {}

    public static List<FileChange> apply(List<DesiredFile> files, InstallLayout layout, boolean dryRun) {
        List<FileChange> changes = new ArrayList<>();
        for (DesiredFile file : files) {
            Path real = layout.under(file.path());
            Optional<String> current = read(real);
            boolean sameMode = current.isEmpty() || Files.isExecutable(real) == file.executable();
            if (current.isPresent() && current.get().equals(file.content()) && sameMode) {
                changes.add(new FileChange(file.path(), FileChange.Status.UNCHANGED, ""));
                continue;
            }
            String diff = diff(file.path(), current, file.content());
            if (!dryRun) {
                write(real, file);
            }
            changes.add(new FileChange(
                    file.path(), current.isPresent() ? FileChange.Status.UPDATED : FileChange.Status.CREATED, diff));
        }
        return changes;
    }

    /** The file's text, or empty when it does not exist. */
    static Optional<String> read(Path real) {
        try {
            return Optional.of(Files.readString(real, StandardCharsets.UTF_8));
        } catch (java.nio.file.NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new ApplyException("cannot read " + real + ": " + e.getMessage(), e);
        }
    }

    private static String diff(Path path, Optional<String> current, String desired) {
        List<String> before = current.map(ManagedBlock::lines).orElse(List.of());
        List<String> after = ManagedBlock.lines(desired);
        List<String> unified = UnifiedDiffUtils.generateUnifiedDiff(
                current.isPresent() ? path.toString() : "/dev/null",
                path.toString(),
                before,
                DiffUtils.diff(before, after),
                3);
        if (unified.isEmpty()) {
            return "(only the file mode changes)\n";
        }
        return String.join("\n", unified) + "\n";
    }

    private static void write(Path real, DesiredFile file) {
        try {
            Files.createDirectories(real.getParent());
            Path temp = Files.createTempFile(real.getParent(), "." + real.getFileName(), ".autoresume-tmp");
            try {
                Files.writeString(temp, file.content(), StandardCharsets.UTF_8);
                Files.setPosixFilePermissions(
                        temp, PosixFilePermissions.fromString(file.executable() ? "rwxr-xr-x" : "rw-r--r--"));
                try {
                    Files.move(temp, real, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, real, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new ApplyException("cannot write " + real + ": " + e.getMessage(), e);
        }
    }
}
