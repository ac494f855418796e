package org.slurmautoresume.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The agent's per-uid admission and round-robin, by counts alone. */
class FairQueueTest {

    private static final long ROOT = 0;
    private static final long FLOODER = 1001;
    private static final long OTHER = 1002;

    @Test
    void anOwnerOverItsShareIsRefusedWhileOthersAreStillAdmitted() {
        FairQueue<Long, String> queue = new FairQueue<>(3, 2);
        for (int i = 0; i < 3; i++) {
            assertTrue(queue.offer(FLOODER, "f" + i));
        }
        assertFalse(queue.offer(FLOODER, "f3"));
        assertEquals(3, queue.admitted(FLOODER));
        assertTrue(queue.offer(OTHER, "o0"));
        assertTrue(queue.offer(ROOT, "r0"));
    }

    @Test
    void aFinishedItemFreesItsOwnersPlace() {
        FairQueue<Long, String> queue = new FairQueue<>(1, 1);
        assertTrue(queue.offer(FLOODER, "f0"));
        assertFalse(queue.offer(FLOODER, "f1"));
        FairQueue.Turn<Long, String> turn = queue.poll();
        assertEquals("f0", turn.item());
        assertFalse(queue.offer(FLOODER, "f1"), "a running item still counts");
        queue.done(FLOODER);
        assertEquals(0, queue.admitted(FLOODER));
        assertTrue(queue.offer(FLOODER, "f1"));
    }

    @Test
    void ownersTakeTurnsWhateverTheirQueuesHold() {
        FairQueue<Long, String> queue = new FairQueue<>(100, 100);
        for (int i = 0; i < 50; i++) {
            queue.offer(FLOODER, "f" + i);
        }
        queue.offer(OTHER, "o0");
        queue.offer(OTHER, "o1");
        queue.offer(ROOT, "r0");
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            order.add(queue.poll().item());
        }
        // Fifty waiting items of one owner put the others behind one of them, not behind fifty.
        assertEquals(List.of("f0", "o0", "r0", "f1", "o1", "f2", "f3"), order);
    }

    @Test
    void anOwnerAtItsRunningLimitIsPassedOverUntilOneFinishes() {
        FairQueue<Long, String> queue = new FairQueue<>(10, 2);
        for (int i = 0; i < 5; i++) {
            queue.offer(FLOODER, "f" + i);
        }
        assertEquals("f0", queue.poll().item());
        assertEquals("f1", queue.poll().item());
        // Idle connections of one owner hold two workers at most; the rest stay free.
        assertNull(queue.poll());
        queue.offer(ROOT, "r0");
        assertEquals("r0", queue.poll().item());
        queue.done(FLOODER);
        assertEquals("f2", queue.poll().item());
        assertNull(queue.poll());
    }

    @Test
    void rootIsServedWithinOneTurnOfEachOtherOwnerUnderAFlood() {
        int owners = 20;
        FairQueue<Long, String> queue = new FairQueue<>(32, 3);
        for (long uid = 1000; uid < 1000 + owners; uid++) {
            for (int i = 0; i < 32; i++) {
                queue.offer(uid, uid + "-" + i);
            }
        }
        queue.offer(ROOT, "root");
        int before = 0;
        FairQueue.Turn<Long, String> turn;
        while (!(turn = queue.poll()).item().equals("root")) {
            before++;
            queue.done(turn.owner());
        }
        assertEquals(owners, before);
    }

    @Test
    void closingHandsBackWhatWaitedAndStopsTakers() throws InterruptedException {
        FairQueue<Long, String> queue = new FairQueue<>(4, 1);
        queue.offer(FLOODER, "f0");
        queue.offer(FLOODER, "f1");
        queue.poll();
        assertEquals(List.of("f1"), queue.close());
        assertNull(queue.take());
        assertFalse(queue.offer(ROOT, "r0"));
    }

    @Test
    void doneWithoutARunningItemIsABug() {
        FairQueue<Long, String> queue = new FairQueue<>(1, 1);
        assertThrows(IllegalStateException.class, () -> queue.done(ROOT));
        assertThrows(IllegalArgumentException.class, () -> new FairQueue<Long, String>(1, 2));
    }
}
