package org.slurmautoresume.supervisor.recovery;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.slurmautoresume.slurm.client.SlurmClient;

/** Hot spares: idle nodes of the configured pool, taken at once. */
public final class SpareProvider implements ReplacementProvider {

    private final SparePool pool;
    private final SlurmClient slurm;

    public SpareProvider(SparePool pool, SlurmClient slurm) {
        this.pool = Objects.requireNonNull(pool);
        this.slurm = Objects.requireNonNull(slurm);
    }

    @Override
    public String name() {
        return "spare";
    }

    @Override
    public List<String> ready(
            String jobId, List<String> failed, int missing, Collection<String> exclude, LocalDateTime failedAt) {
        List<String> notThese = new ArrayList<>(exclude);
        notThese.addAll(failed); // a failed node is never its own spare
        return pool.pick(slurm.nodes(), missing, notThese);
    }
}
