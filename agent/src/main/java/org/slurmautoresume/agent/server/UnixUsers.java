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

    private UnixUsers() {
    }

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
     * The uid of a user name; a name that is all digits is the uid itself (what the JDK gives
     * for a uid without a passwd entry). Empty when neither.
     */
    public static synchronized OptionalLong uidOf(String name) {
        if (name.matches("[0-9]{1,10}")) {
            return OptionalLong.of(Long.parseLong(name));
        }
        Pointer entry = libc().getpwnam(name);
        if (entry == null) {
            return OptionalLong.empty();
        }
        // struct passwd { char *pw_name; char *pw_passwd; uid_t pw_uid; ... } on Linux and the BSDs.
        return OptionalLong.of(Integer.toUnsignedLong(entry.getInt(2L * Native.POINTER_SIZE)));
    }
}
