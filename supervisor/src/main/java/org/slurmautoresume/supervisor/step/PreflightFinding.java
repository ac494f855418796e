package org.slurmautoresume.supervisor.step;

/** One cluster or job setting auto-resume depends on that is missing, and exactly what to change. */
public record PreflightFinding(String setting, String problem, String fix) {

    public String describe() {
        return setting + ": " + problem + "; " + fix;
    }
}
