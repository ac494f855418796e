package org.slurmautoresume.lifecycle.validate;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.configfile.ConfigPath;
import org.slurmautoresume.configfile.ConfigProblem;
import org.slurmautoresume.configfile.ConfigText;
import org.slurmautoresume.configfile.ConfigText.Format;
import org.slurmautoresume.configfile.Problems;
import org.slurmautoresume.lifecycle.model.ClusterRequest;
import org.slurmautoresume.lifecycle.model.ProvisioningParameters;
import org.slurmautoresume.lifecycle.model.ResourceConfig;

/**
 * Checks provisioning_parameters.json, resource_config.json and the cluster request, each alone
 * and against each other, and reports every problem in one run: no check stops or overwrites
 * another, and a file that cannot be read only skips the checks that need it.
 */
public final class ConfigValidator {

    /**
     * Paths in these files start with {@code $} ({@code $.worker_groups[1].partition_name}): their
     * users know JSONPath from the platform's own tools, and the documentation quotes them so.
     */
    static final ConfigPath ROOT = ConfigPath.root("$");

    private ConfigValidator() {}

    /**
     * @param resourceConfig absent before the cluster exists (the platform writes it)
     * @param clusterRequest absent on a node, where only the platform's file is at hand
     */
    public static ValidationReport validate(
            Path provisioning, Optional<Path> resourceConfig, Optional<Path> clusterRequest) {
        List<ConfigProblem> problems = new ArrayList<>();
        Problems inProvisioning = new Problems(provisioning.toString(), ROOT, problems);
        Optional<ProvisioningParameters> parameters =
                read(provisioning, inProvisioning).flatMap(tree -> ProvisioningReader.read(tree, inProvisioning));
        Optional<Problems> inResources = resourceConfig.map(p -> new Problems(p.toString(), ROOT, problems));
        Optional<ResourceConfig> resources = resourceConfig.flatMap(path ->
                read(path, inResources.get()).flatMap(tree -> ResourceConfigReader.read(tree, inResources.get())));
        Optional<Problems> inRequest = clusterRequest.map(p -> new Problems(p.toString(), ROOT, problems));
        Optional<ClusterRequest> request = clusterRequest.flatMap(
                path -> read(path, inRequest.get()).flatMap(tree -> ClusterRequestReader.read(tree, inRequest.get())));

        CrossChecks cross = new CrossChecks(inProvisioning, inResources, inRequest);
        parameters.ifPresent(p -> resources.ifPresent(r -> cross.provisioningAgainstResources(p, r)));
        parameters.ifPresent(p -> request.ifPresent(q -> cross.provisioningAgainstRequest(p, q)));
        resources.ifPresent(r -> request.ifPresent(q -> cross.resourcesAgainstRequest(r, q)));
        return new ValidationReport(problems, parameters, resources, request);
    }

    /** The file's tree; these files are JSON whatever their name, and one with nothing in it is a mistake. */
    private static Optional<JsonNode> read(Path file, Problems problems) {
        Optional<JsonNode> tree = ConfigText.read(file, Format.JSON, problems);
        if (tree.isPresent() && tree.get().isMissingNode()) {
            problems.error(ROOT, "the file is empty", "write the JSON object this file should hold");
            return Optional.empty();
        }
        return tree;
    }
}
