package org.slurmautoresume.agent.server;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Each uid's share of the audit log, so that no one user's requests can push everyone else's
 * history out of the capped files. Two token buckets per uid: one for the lines a user can cause
 * at will (refusals, and answers to requests that change nothing), past which lines are left out
 * and counted; one for the requests that change Slurm, past which such a request is refused
 * before anything is decided (its intent and outcome lines, written whenever it is admitted,
 * are what a flood of them would otherwise multiply). Root (uid 0) is never limited.
 *
 * <p>With these numbers one uid adds at most about 60 routine lines and 2 x 20 lines of change
 * requests a minute after its bursts: a few days of an unbroken flood to fill the five 64 MiB
 * files, where without them it took minutes; and every stretch left out is counted in a line of
 * its own ({@link LeftOut}). Not thread-safe: {@link AuditLog} holds its own lock around it.
 */
final class AuditShares {

    /** Refusals and answers that change nothing: one a second on average per uid, ... */
    static final int ROUTINE_PER_MINUTE = 60;
    /** ... after a burst of this many (a job's supervisor asking about every node of a big job at once). */
    static final int ROUTINE_BURST = 120;
    /** Requests that may change Slurm (mark, resume, reboot, replace): far more than any job's recovery needs, ... */
    static final int CHANGES_PER_MINUTE = 20;
    /** ... after a burst of this many. */
    static final int CHANGES_BURST = 60;
    /** A uid's count of lines left out is written at the latest this long after the last one left out. */
    static final Duration LEFT_OUT_REPORTED_AFTER = Duration.ofMinutes(1);
    /** Above this many uids on record, those with nothing pending and full buckets are forgotten. */
    private static final int FORGET_ABOVE = 1_024;

    /** What was left out of one uid's lines since {@code since} (the first of them). */
    record LeftOut(long uid, String user, long refusals, long answers, Instant since) {}

    /** A token bucket: {@code perMinute} tokens a minute, at most {@code burst} saved up. */
    private static final class Bucket {
        private final int perMinute;
        private final int burst;
        private double tokens;
        private Instant last;

        Bucket(int perMinute, int burst, Instant now) {
            this.perMinute = perMinute;
            this.burst = burst;
            this.tokens = burst;
            this.last = now;
        }

        boolean take(Instant now) {
            refill(now);
            if (tokens < 1) {
                return false;
            }
            tokens -= 1;
            return true;
        }

        boolean full(Instant now) {
            refill(now);
            return tokens >= burst;
        }

        private void refill(Instant now) {
            if (now.isAfter(last)) {
                // A clock set back earns nothing and takes nothing; only time forward refills.
                tokens = Math.min(burst, tokens + Duration.between(last, now).toNanos() * perMinute / 60e9);
                last = now;
            }
        }
    }

    private static final class Share {
        final Bucket routine;
        final Bucket changes;
        String user;
        long refusalsLeftOut;
        long answersLeftOut;
        Instant since;
        Instant lastLeftOut;

        Share(Instant now) {
            routine = new Bucket(ROUTINE_PER_MINUTE, ROUTINE_BURST, now);
            changes = new Bucket(CHANGES_PER_MINUTE, CHANGES_BURST, now);
        }

        boolean pending() {
            return refusalsLeftOut + answersLeftOut > 0;
        }

        LeftOut take(long uid) {
            LeftOut leftOut = new LeftOut(uid, user, refusalsLeftOut, answersLeftOut, since);
            refusalsLeftOut = 0;
            answersLeftOut = 0;
            since = null;
            lastLeftOut = null;
            return leftOut;
        }
    }

    private final Map<Long, Share> shares = new HashMap<>();

    static boolean limited(long uid) {
        return uid != 0;
    }

    /**
     * True when a routine line of {@code uid} is to be written now; otherwise it is counted as
     * left out ({@code refusal}: a refusal, else an answer to a request that changed nothing).
     */
    boolean admitRoutine(long uid, String user, boolean refusal, Instant now) {
        if (!limited(uid)) {
            return true;
        }
        Share share = share(uid, now);
        if (share.routine.take(now)) {
            return true;
        }
        if (!share.pending()) {
            share.since = now;
        }
        share.user = user;
        share.lastLeftOut = now;
        if (refusal) {
            share.refusalsLeftOut++;
        } else {
            share.answersLeftOut++;
        }
        return false;
    }

    /** True when {@code uid} may make one more request that changes Slurm now. */
    boolean admitChange(long uid, Instant now) {
        return !limited(uid) || share(uid, now).changes.take(now);
    }

    /** What {@code uid} has left out since it was last said, and forgets it; null when nothing. */
    LeftOut takeLeftOut(long uid) {
        Share share = shares.get(uid);
        return share == null || !share.pending() ? null : share.take(uid);
    }

    /** Every uid's count of lines left out whose last one is {@link #LEFT_OUT_REPORTED_AFTER} old, or all. */
    List<LeftOut> takeSettled(Instant now, boolean all) {
        List<LeftOut> settled = new ArrayList<>();
        for (Map.Entry<Long, Share> e : shares.entrySet()) {
            Share share = e.getValue();
            if (share.pending()
                    && (all || !share.lastLeftOut.plus(LEFT_OUT_REPORTED_AFTER).isAfter(now))) {
                settled.add(share.take(e.getKey()));
            }
        }
        return settled;
    }

    private Share share(long uid, Instant now) {
        if (shares.size() > FORGET_ABOVE && !shares.containsKey(uid)) {
            shares.values().removeIf(s -> !s.pending() && s.routine.full(now) && s.changes.full(now));
        }
        return shares.computeIfAbsent(uid, u -> new Share(now));
    }
}
