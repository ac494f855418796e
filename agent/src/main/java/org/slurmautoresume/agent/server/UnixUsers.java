package org.slurmautoresume.agent.server;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * User ids, which Java's peer credentials give only as names ({@code UnixDomainPrincipal}
 * resolves the uid with getpwuid): the name is mapped back with getpwnam.
 */
public final class UnixUsers {

    private interface LibC extends Library {
        int geteuid();

        Pointer getpwnam(String name);
    }

    private static LibC libc;

    private UnixUsers() {}

    private static synchronized LibC libc() {
        if (libc == null) {
            libc = Native.load("c", LibC.class);
        }
        return libc;
    }

    /**
     * This process's effective uid: the second number of the kernel's {@code Uid:} line in
     * {@code /proc/self/status}, else geteuid through JNA. Every command builds its caller from
     * it, and loading JNA's native library (unpacked from its jar at each start) cost a short
     * command such as {@code health --mark} about 30 ms.
     */
    public static long effectiveUid() {
        OptionalLong fromProc = effectiveUidFrom(ProcStatus.SELF);
        return fromProc.isPresent() ? fromProc.getAsLong() : effectiveUidFromLibc();
    }

    static long effectiveUidFromLibc() {
        return Integer.toUnsignedLong(libc().geteuid());
    }

    /** The effective uid on a status file's {@code Uid:} line (real, effective, saved, filesystem); empty if none. */
    static OptionalLong effectiveUidFrom(Path status) {
        Optional<String[]> ids = ProcStatus.field(status, "Uid").map(value -> value.split("\t"));
        return ids.isPresent() && ids.get().length == 4 && ids.get()[1].matches("[0-9]{1,10}")
                ? OptionalLong.of(Long.parseLong(ids.get()[1]))
                : OptionalLong.empty();
    }

    /**
     * The uid of a user name, from the passwd database. The JDK's peer credentials give a name:
     * getpwuid's, or the uid's digits where the uid has no passwd entry. A name of digits is
     * therefore ambiguous (a user named "1001" whose uid is 2000, or a uid 1001 with no entry), and
     * it is taken only where both readings agree: the entry of that name has that very uid.
     * Otherwise empty, which the agent treats as nobody.
     */
    public static synchronized OptionalLong uidOf(String name) {
        Pointer entry = libc().getpwnam(name);
        if (entry == null) {
            return OptionalLong.empty();
        }
        // struct passwd { char *pw_name; char *pw_passwd; uid_t pw_uid; ... } on Linux and the BSDs.
        long uid = Integer.toUnsignedLong(entry.getInt(2L * Native.POINTER_SIZE));
        if (name.matches("[0-9]+") && !name.equals(Long.toString(uid))) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(uid);
    }
}
