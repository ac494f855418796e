package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnixUsersTest {

    @TempDir
    Path dir;

    @Test
    void theKernelsAnswerIsTheCLibrarys() {
        assertEquals(UnixUsers.effectiveUidFromLibc(), UnixUsers.effectiveUid());
    }

    @Test
    void readsTheEffectiveUidNotTheRealOne() throws IOException {
        // A setuid program run by uid 1000: real 1000, effective 0.
        assertEquals(OptionalLong.of(0), UnixUsers.effectiveUidFrom(status("Uid:\t1000\t0\t1000\t0\n")));
        assertEquals(OptionalLong.of(4294967294L), UnixUsers.effectiveUidFrom(status("Uid:\t0\t4294967294\t0\t0\n")));
    }

    @Test
    void anUnreadableLineLeavesItToTheCLibrary() throws IOException {
        assertEquals(OptionalLong.empty(), UnixUsers.effectiveUidFrom(status("Uid:\t1000\n")));
        assertEquals(OptionalLong.empty(), UnixUsers.effectiveUidFrom(status("Uid:\t1000\t-1\t1000\t1000\n")));
        assertEquals(OptionalLong.empty(), UnixUsers.effectiveUidFrom(status("Gid:\t0\t0\t0\t0\n")));
        assertEquals(OptionalLong.empty(), UnixUsers.effectiveUidFrom(dir.resolve("absent")));
    }

    private Path status(String uidLine) throws IOException {
        return Files.writeString(dir.resolve("status"), "Name:\tjava\nUmask:\t0022\nState:\tR (running)\n" + uidLine);
    }
}
