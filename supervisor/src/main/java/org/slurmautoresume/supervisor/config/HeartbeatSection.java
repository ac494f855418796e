package org.slurmautoresume.supervisor.config;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slurmautoresume.configfile.ConfigFields;
import org.slurmautoresume.configfile.Field;
import org.slurmautoresume.supervisor.rules.Heartbeat;

/** Reads and checks {@code heartbeat}: the timeouts of each phase, each defaulting to the seed's figure. */
final class HeartbeatSection {

    static final String FIELD = "heartbeat";
    static final Set<String> FIELDS =
            Set.of("startupTimeoutSeconds", "steadyTimeoutSeconds", "checkpointTimeoutSeconds");

    private HeartbeatSection() {}

    /** The heartbeat ({@code heartbeat: {}} turns it on with the defaults); empty when absent or wrong. */
    static Optional<Heartbeat> read(Field field, boolean complete) {
        Optional<ConfigFields> maybe = field.object();
        if (maybe.isEmpty()) {
            return Optional.empty();
        }
        ConfigFields in = maybe.get();
        int mark = in.problems().mark();
        in.only(FIELDS);
        OptionalLong startup = in.wholeNumber("startupTimeoutSeconds", 1, Integer.MAX_VALUE);
        OptionalLong steady = in.wholeNumber("steadyTimeoutSeconds", 1, Integer.MAX_VALUE);
        OptionalLong checkpoint = in.wholeNumber("checkpointTimeoutSeconds", 1, Integer.MAX_VALUE);
        if (!complete || in.problems().hasErrorsSince(mark)) {
            return Optional.empty();
        }
        Heartbeat heartbeat = new Heartbeat(
                startup.orElse(Heartbeat.DEFAULTS.startupTimeoutSeconds()),
                steady.orElse(Heartbeat.DEFAULTS.steadyTimeoutSeconds()),
                checkpoint.orElse(Heartbeat.DEFAULTS.checkpointTimeoutSeconds()));
        if (heartbeat.checkpointTimeoutSeconds() < heartbeat.steadyTimeoutSeconds()) {
            in.warning(
                    "checkpointTimeoutSeconds",
                    "is " + heartbeat.checkpointTimeoutSeconds()
                            + ", shorter than steadyTimeoutSeconds (" + heartbeat.steadyTimeoutSeconds() + "): a"
                            + " checkpoint beat then shortens the wait");
        }
        return Optional.of(heartbeat);
    }
}
