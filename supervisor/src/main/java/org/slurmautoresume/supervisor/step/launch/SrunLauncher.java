package org.slurmautoresume.supervisor.step.launch;

import java.util.List;
import java.util.Map;
import org.slurmautoresume.supervisor.rules.OutputObserver;

/** Starts srun as the supervisor's child: {@link StepProcess#start} outside tests. */
@FunctionalInterface
public interface SrunLauncher {

    /**
     * @param environment the complete environment of the child
     * @param observer    sees both streams' bytes after they were copied; null for none
     */
    Srun start(List<String> argv, Map<String, String> environment, OutputObserver observer);
}
