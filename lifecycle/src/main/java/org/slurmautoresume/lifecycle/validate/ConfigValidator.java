package org.slurmautoresume.lifecycle.validate;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.lifecycle.model.ClusterRequest;
import org.slurmautoresume.lifecycle.model.ProvisioningParameters;
import org.slurmautoresume.lifecycle.model.ResourceConfig;

/**
 * Checks provisioning_parameters.json, resource_config.json and the cluster request, each alone
 * and against each other, and reports every problem in one run: no check stops or overwrites
 * another, and a file that cannot be read only skips the checks that need it.
 */
public final class ConfigValidator {

    private ConfigValidator() {
    }

    /**
     * @param resourceConfig absent before the cluster exists (the platform writes it)
     * @param clusterRequest absent on a node, where only the platform's file is at hand
     */
    public static ValidationReport validate(Path provisioning, Optional<Path> resourceConfig, Optional<Path> clusterRequest) {
        List<Problem> problems = new ArrayList<>();
        Problems inProvisioning = new Problems(provisioning.toString(), problems);
        Optional<ProvisioningParameters> parameters = JsonDocument.read(provisioning, inProvisioning)
                .flatMap(tree -> ProvisioningReader.read(tree, inProvisioning));
        Optional<Problems> inResources = resourceConfig.map(p -> new Problems(p.toString(), problems));
        Optional<ResourceConfig> resources = resourceConfig.flatMap(path -> JsonDocument.read(path, inResources.get())
                .flatMap(tree -> ResourceConfigReader.read(tree, inResources.get())));
        Optional<Problems> inRequest = clusterRequest.map(p -> new Problems(p.toString(), problems));
        Optional<ClusterRequest> request = clusterRequest.flatMap(path -> JsonDocument.read(path, inRequest.get())
                .flatMap(tree -> ClusterRequestReader.read(tree, inRequest.get())));

        CrossChecks cross = new CrossChecks(inProvisioning, inResources, inRequest);
        parameters.ifPresent(p -> resources.ifPresent(r -> cross.provisioningAgainstResources(p, r)));
        parameters.ifPresent(p -> request.ifPresent(q -> cross.provisioningAgainstRequest(p, q)));
        resources.ifPresent(r -> request.ifPresent(q -> cross.resourcesAgainstRequest(r, q)));
        return new ValidationReport(problems, parameters, resources, request);
    }
}
