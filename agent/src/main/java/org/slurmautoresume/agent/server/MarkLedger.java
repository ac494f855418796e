package org.slurmautoresume.agent.server;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the agent itself marked at a job's request: node, job, the job's owner, when, and the
 * time Slurm stamped on the reason. Slurm cannot tell the agent's {@code Action:Replace} from an
 * administrator's or a health check's (all are root's), so this record, not the reason text, is
 * what makes a node the job's to {@code resume} and keeps a node the job released after the
 * agent's mark the job's to act on. Kept in a root-owned 0700 directory, one 0600 file, written
 * whole and renamed into place; it survives agent restarts. A link, a file or directory owned by
 * anyone else, or one others may read or write, is refused: the agent will not start on it.
 */
final class MarkLedger {

    static final Path DEFAULT_DIR = Path.of("/var/lib/autoresume/agent");
    static final String FILE = "marks.json";
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    private static final ObjectMapper JSON =
            new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** One mark: {@code owner} is the job's numeric UserId, which with the job id names the job. */
    record Mark(
            String node, String jobId, long owner, String action, String state, String markedAt, String reasonTime) {
        boolean isFor(String jobId, long owner) {
            return this.jobId.equals(jobId) && this.owner == owner;
        }
    }

    private final Path dir;
    private final Path file;
    private final Map<String, Mark> byNode;

    private MarkLedger(Path dir, Map<String, Mark> byNode) {
        this.dir = dir;
        this.file = dir == null ? null : dir.resolve(FILE);
        this.byNode = byNode;
    }

    /** A ledger kept in memory only, forgotten at exit: for tests and one-shot uses, never the agent. */
    static MarkLedger inMemory() {
        return new MarkLedger(null, new TreeMap<>());
    }

    /** Opens (creating when absent) the ledger in {@code dir}, which must be this process's alone. */
    static MarkLedger open(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)) {
            Path parent = absolute.getParent();
            if (parent != null && !Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(parent);
            }
            try {
                Files.createDirectory(absolute, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
            } catch (FileAlreadyExistsException e) {
                // Someone made it between the look and the create: the checks below judge what is there.
            }
        }
        requireOwnedPrivate(absolute, true);
        return new MarkLedger(absolute, read(absolute.resolve(FILE)));
    }

    private static Map<String, Mark> read(Path file) throws IOException {
        Map<String, Mark> marks = new TreeMap<>();
        SeekableByteChannel channel;
        try {
            // NOFOLLOW_LINKS on open is O_NOFOLLOW: a link planted in place of the file fails here.
            channel = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return marks;
        } catch (IOException e) {
            throw new IOException(
                    file + " cannot be opened without following a link (" + e.getMessage()
                            + "): refusing a file the agent did not write",
                    e);
        }
        try (InputStream in = Channels.newInputStream(channel)) {
            requireOwnedPrivate(file, false);
            List<Mark> list = JSON.readValue(in, new TypeReference<List<Mark>>() {});
            for (Mark mark : list) {
                marks.put(mark.node(), mark);
            }
        }
        return marks;
    }

    /** A directory or file this process owns, not a link, with no permission for anyone else. */
    private static void requireOwnedPrivate(Path path, boolean directory) throws IOException {
        PosixFileAttributes attrs = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String me = System.getProperty("user.name");
        if (attrs.isSymbolicLink() || (directory ? !attrs.isDirectory() : !attrs.isRegularFile())) {
            throw new IOException(path + " is not a " + (directory ? "directory" : "regular file")
                    + " (a link or other file planted there?): the agent keeps its marks only in its own");
        }
        if (!attrs.owner().getName().equals(me)) {
            throw new IOException(path + " belongs to " + attrs.owner().getName() + ", not to " + me
                    + ": the agent keeps its marks only where no one else can write");
        }
        Set<PosixFilePermission> others = EnumSet.copyOf(attrs.permissions());
        others.removeAll(directory ? OWNER_ONLY_DIR : OWNER_ONLY_FILE);
        if (!others.isEmpty()) {
            throw new IOException(path + " has mode " + PosixFilePermissions.toString(attrs.permissions())
                    + "; the agent needs it " + (directory ? "0700" : "0600") + " (chmod it, or remove it)");
        }
    }

    synchronized Optional<Mark> markOf(String node) {
        return Optional.ofNullable(byNode.get(node));
    }

    /** Whether the agent marked {@code node} for this job (id and owner). */
    synchronized boolean markedFor(String node, String jobId, long owner) {
        Mark mark = byNode.get(node);
        return mark != null && mark.isFor(jobId, owner);
    }

    /** Records a mark before it is made; an IOException means it must not be made (no record, no act). */
    synchronized void record(Mark mark) throws IOException {
        Mark before = byNode.put(mark.node(), mark);
        try {
            save();
        } catch (IOException e) {
            restore(mark.node(), before);
            throw e;
        }
    }

    /** Forgets a node's mark (it was resumed, or the mark was never made). */
    synchronized void forget(String node) throws IOException {
        Mark before = byNode.remove(node);
        if (before == null) {
            return;
        }
        try {
            save();
        } catch (IOException e) {
            byNode.put(node, before);
            throw e;
        }
    }

    private void restore(String node, Mark before) {
        if (before == null) {
            byNode.remove(node);
        } else {
            byNode.put(node, before);
        }
    }

    static String now() {
        return Instant.now().toString();
    }

    /** Written whole to a fresh 0600 file beside it (never through a link), then renamed over it. */
    private void save() throws IOException {
        if (dir == null) {
            return;
        }
        requireOwnedPrivate(dir, true);
        Path temp = dir.resolve(FILE + ".new");
        Files.deleteIfExists(temp);
        try (OutputStream out = Channels.newOutputStream(Files.newByteChannel(
                temp,
                EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.SYNC),
                PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE)))) {
            JSON.writerWithDefaultPrettyPrinter().writeValue(out, List.copyOf(byNode.values()));
        }
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
