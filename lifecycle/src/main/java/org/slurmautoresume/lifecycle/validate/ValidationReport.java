package org.slurmautoresume.lifecycle.validate;

import java.util.List;
import java.util.Optional;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.lifecycle.model.ClusterRequest;
import org.slurmautoresume.lifecycle.model.ProvisioningParameters;
import org.slurmautoresume.lifecycle.model.ResourceConfig;

/**
 * Everything found in one validation run, and the files as read (empty when a file could not be
 * read at all). {@link #ok()} is true when there is no error; warnings do not count.
 */
public record ValidationReport(
        List<ConfigProblem> problems,
        Optional<ProvisioningParameters> provisioning,
        Optional<ResourceConfig> resourceConfig,
        Optional<ClusterRequest> clusterRequest) {

    public ValidationReport {
        problems = List.copyOf(problems);
    }

    public List<ConfigProblem> errors() {
        return problems.stream().filter(ConfigProblem::isError).toList();
    }

    public List<ConfigProblem> warnings() {
        return problems.stream().filter(p -> !p.isError()).toList();
    }

    public boolean ok() {
        return errors().isEmpty();
    }
}
