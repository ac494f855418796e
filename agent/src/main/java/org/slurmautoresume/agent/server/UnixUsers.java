package org.slurmautoresume.agent.server;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
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

    public static long effectiveUid() {
        return Integer.toUnsignedLong(libc().geteuid());
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
