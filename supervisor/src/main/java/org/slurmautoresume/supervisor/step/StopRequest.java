package org.slurmautoresume.supervisor.step;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slurmautoresume.supervisor.policy.SignalNumber;

/**
 * The first stop signal (SIGINT, SIGTERM, SIGHUP) the supervisor received: the attempt loop
 * then re-runs nothing, and a repair waiting for nodes gives up.
 */
final class StopRequest {

    private final AtomicReference<SignalNumber> signal = new AtomicReference<>();

    void received(SignalNumber stop) {
        signal.compareAndSet(null, stop);
    }

    boolean requested() {
        return signal.get() != null;
    }

    Optional<SignalNumber> signal() {
        return Optional.ofNullable(signal.get());
    }
}
