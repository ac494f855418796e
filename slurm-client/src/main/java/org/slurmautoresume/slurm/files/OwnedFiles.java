package org.slurmautoresume.slurm.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Files that only their owner can have made: the directory is checked (not a link, owned by the
 * process's uid, no group or other bits) and files in it are opened without following a link
 * ({@link LinkOption#NOFOLLOW_LINKS} on a channel is {@code O_NOFOLLOW} on Linux) and refused when
 * another uid owns them. Within such a directory nobody else can create, rename or replace an
 * entry, so checking after the open leaves no race.
 *
 * <p>Java has no fstat on a channel and no getuid: the uid is the owner of {@code /proc/self},
 * which Linux gives the process's effective uid.
 */
public final class OwnedFiles {

    private static final Set<PosixFilePermission> GROUP_OR_OTHER = Set.of(
            PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE);
    private static final Set<PosixFilePermission> GROUP_OR_OTHER_WRITE =
            Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
    private static final String PRIVATE_DIR = "rwx------";
    private static final String PRIVATE_FILE = "rw-------";

    private OwnedFiles() {}

    /** The process's effective uid. */
    public static int currentUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /** The owner's uid and the mode bits of {@code path} itself, never of a link's target. */
    record Stat(boolean directory, boolean regularFile, boolean link, int uid, Set<PosixFilePermission> mode) {}

    static Stat lstat(Path path) throws IOException {
        Map<String, Object> a = Files.readAttributes(
                path, "unix:uid,mode,isDirectory,isRegularFile,isSymbolicLink", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        Set<PosixFilePermission> perms = new HashSet<>();
        PosixFilePermission[] bits = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE, 0400 .. 0001
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (0400 >> i)) != 0) {
                perms.add(bits[i]);
            }
        }
        return new Stat(
                (Boolean) a.get("isDirectory"),
                (Boolean) a.get("isRegularFile"),
                (Boolean) a.get("isSymbolicLink"),
                (Integer) a.get("uid"),
                perms);
    }

    /**
     * Makes {@code dir} (mode 0700, its parent must exist) when missing, then checks it is this
     * uid's private directory; {@link UnsafePathException} says why not.
     */
    public static Path privateDirectory(Path dir, int uid) throws IOException {
        try {
            Files.createDirectory(
                    dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(PRIVATE_DIR)));
        } catch (FileAlreadyExistsException e) {
            // made earlier, by us or by someone else: the check below tells which
        }
        requirePrivateDirectory(dir, uid);
        return dir;
    }

    /** Refuses a link, a non-directory, another uid's directory, or one with group or other bits. */
    public static void requirePrivateDirectory(Path dir, int uid) throws IOException {
        Stat s = lstat(dir);
        if (s.link() || !s.directory()) {
            throw new UnsafePathException(dir, s.link() ? "is a symbolic link" : "is not a directory");
        }
        if (s.uid() != uid) {
            throw new UnsafePathException(dir, "belongs to uid " + s.uid() + ", not to uid " + uid);
        }
        Set<PosixFilePermission> open = new HashSet<>(s.mode());
        open.retainAll(GROUP_OR_OTHER);
        if (!open.isEmpty()) {
            throw new UnsafePathException(
                    dir, "has mode " + PosixFilePermissions.toString(s.mode()) + ": group or others may use it");
        }
    }

    /**
     * For a root-run writer (lock, audit log): {@code dir} is a real directory owned by root or by
     * {@code uid} and writable by nobody else, so no other user can plant an entry in it.
     */
    public static void requireTrustedDirectory(Path dir, int uid) throws IOException {
        Stat s = lstat(dir);
        if (s.link() || !s.directory()) {
            throw new UnsafePathException(dir, s.link() ? "is a symbolic link" : "is not a directory");
        }
        if (s.uid() != uid && s.uid() != 0) {
            throw new UnsafePathException(dir, "belongs to uid " + s.uid() + ", neither root nor uid " + uid);
        }
        Set<PosixFilePermission> open = new HashSet<>(s.mode());
        open.retainAll(GROUP_OR_OTHER_WRITE);
        if (!open.isEmpty()) {
            throw new UnsafePathException(
                    dir, "has mode " + PosixFilePermissions.toString(s.mode()) + ": others may write in it");
        }
    }

    /**
     * Opens {@code file} without following a link, creating it with mode 0600 when {@code options}
     * say CREATE, and refuses it unless it is a regular file of {@code uid}.
     */
    public static FileChannel open(Path file, int uid, OpenOption... options) throws IOException {
        return open(file, uid, PosixFilePermissions.fromString(PRIVATE_FILE), options);
    }

    /** As {@link #open(Path, int, OpenOption...)}, a file it creates getting {@code mode}. */
    public static FileChannel open(Path file, int uid, Set<PosixFilePermission> mode, OpenOption... options)
            throws IOException {
        Set<OpenOption> all = new HashSet<>(Set.of(options));
        all.add(LinkOption.NOFOLLOW_LINKS);
        FileChannel channel;
        try {
            channel = FileChannel.open(file, all, PosixFilePermissions.asFileAttribute(mode));
        } catch (NoSuchFileException e) {
            throw e;
        } catch (IOException e) {
            // ELOOP from O_NOFOLLOW reads as "Too many levels of symbolic links": say it plainly.
            if (Files.isSymbolicLink(file)) {
                throw new UnsafePathException(file, "is a symbolic link");
            }
            throw e;
        }
        try {
            Stat s = lstat(file);
            if (!s.regularFile()) {
                throw new UnsafePathException(file, "is not a regular file");
            }
            if (s.uid() != uid) {
                throw new UnsafePathException(file, "belongs to uid " + s.uid() + ", not to uid " + uid);
            }
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Appends text to {@code file} (made 0600 when missing), opened as {@link #open} does. */
    public static void append(Path file, int uid, String text) throws IOException {
        try (FileChannel channel =
                open(file, uid, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        }
    }

    /** The whole of {@code file} as UTF-8, opened as {@link #open} does; empty when it does not exist. */
    public static Optional<String> read(Path file, int uid) throws IOException {
        try (FileChannel channel = open(file, uid, StandardOpenOption.READ)) {
            InputStream in = Channels.newInputStream(channel);
            return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }
}
