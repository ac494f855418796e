package org.slurmautoresume.agent.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Work waiting per owner (the agent: per caller uid), handed out round-robin over the owners,
 * so one owner with many waiting items delays another's next item by at most one item per
 * other owner with work. Two bounds per owner: items admitted (waiting or running; beyond it
 * {@link #offer} says no and the caller closes the connection) and items running at once (so
 * one owner's slow or idle connections hold at most that many workers, never all of them).
 * Counts only, no clocks: what is fair does not depend on timing.
 */
final class FairQueue<K, T> {

    /** An item handed to a worker; give it back with {@link #done}. */
    record Turn<K, T>(K owner, T item) {}

    private static final class Owner<T> {
        final ArrayDeque<T> waiting = new ArrayDeque<>();
        int running;
    }

    private final int maxAdmitted;
    private final int maxRunning;
    private final Map<K, Owner<T>> owners = new HashMap<>();
    /** Owners with waiting items, in the order of their next turn. */
    private final ArrayDeque<K> rotation = new ArrayDeque<>();

    private boolean closed;

    FairQueue(int maxAdmittedPerOwner, int maxRunningPerOwner) {
        if (maxAdmittedPerOwner < 1 || maxRunningPerOwner < 1 || maxRunningPerOwner > maxAdmittedPerOwner) {
            throw new IllegalArgumentException(
                    "need 1 <= running (" + maxRunningPerOwner + ") <= admitted (" + maxAdmittedPerOwner + ")");
        }
        this.maxAdmitted = maxAdmittedPerOwner;
        this.maxRunning = maxRunningPerOwner;
    }

    /** Queues the item unless its owner already has its share admitted (or the queue is closed). */
    synchronized boolean offer(K owner, T item) {
        Objects.requireNonNull(owner);
        Objects.requireNonNull(item);
        if (closed) {
            return false;
        }
        Owner<T> o = owners.computeIfAbsent(owner, k -> new Owner<>());
        if (o.waiting.size() + o.running >= maxAdmitted) {
            return false;
        }
        if (o.waiting.isEmpty()) {
            rotation.addLast(owner);
        }
        o.waiting.addLast(item);
        notifyAll();
        return true;
    }

    /** The next owner's next item that may run now, or null when none may. */
    synchronized Turn<K, T> poll() {
        for (int tries = rotation.size(); tries > 0; tries--) {
            K owner = rotation.pollFirst();
            Owner<T> o = owners.get(owner);
            if (o.running >= maxRunning) {
                // Its workers are all busy: it keeps its place for when one is given back.
                rotation.addLast(owner);
                continue;
            }
            T item = o.waiting.pollFirst();
            o.running++;
            if (!o.waiting.isEmpty()) {
                rotation.addLast(owner);
            }
            return new Turn<>(owner, item);
        }
        return null;
    }

    /** Waits for {@link #poll()} to give something; null once the queue is closed. */
    synchronized Turn<K, T> take() throws InterruptedException {
        while (!closed) {
            Turn<K, T> turn = poll();
            if (turn != null) {
                return turn;
            }
            wait();
        }
        return null;
    }

    /**
     * A worker's life: takes turns until the queue is closed or the thread interrupted, gives
     * each item to {@code work}, and hands the owner's share back however the work ended.
     */
    void serve(java.util.function.Consumer<T> work) {
        while (true) {
            Turn<K, T> turn;
            try {
                turn = take();
            } catch (InterruptedException e) {
                return;
            }
            if (turn == null) {
                return;
            }
            try {
                work.accept(turn.item());
            } finally {
                done(turn.owner());
            }
        }
    }

    /** The item handed out for this owner has finished. */
    synchronized void done(K owner) {
        Owner<T> o = owners.get(owner);
        if (o == null || o.running == 0) {
            throw new IllegalStateException("nothing running for " + owner);
        }
        o.running--;
        if (o.running == 0 && o.waiting.isEmpty()) {
            owners.remove(owner);
        }
        notifyAll();
    }

    /** Items waiting or running for this owner. */
    synchronized int admitted(K owner) {
        Owner<T> o = owners.get(owner);
        return o == null ? 0 : o.waiting.size() + o.running;
    }

    /** Stops handing out work; returns what was still waiting, for the caller to close. */
    synchronized List<T> close() {
        closed = true;
        List<T> left = new ArrayList<>();
        for (Owner<T> o : owners.values()) {
            left.addAll(o.waiting);
            o.waiting.clear();
        }
        rotation.clear();
        notifyAll();
        return left;
    }
}
