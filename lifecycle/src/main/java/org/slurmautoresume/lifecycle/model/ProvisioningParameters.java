package org.slurmautoresume.lifecycle.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Optional;

/**
 * {@code provisioning_parameters.json}: which instance group plays which Slurm role. The field
 * names are those of the widely used lifecycle scripts; {@code autoresume} is this project's own
 * extension (absent in their files, ignored by their scripts).
 *
 * @param loginGroup may be null: a login node is optional
 * @param fsxDnsName shared storage; with {@code fsxMountname}, both or neither
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProvisioningParameters(
        @JsonProperty("version") String version,
        @JsonProperty("workload_manager") String workloadManager,
        @JsonProperty("controller_group") String controllerGroup,
        @JsonProperty("login_group") String loginGroup,
        @JsonProperty("worker_groups") List<WorkerGroup> workerGroups,
        @JsonProperty("fsx_dns_name") String fsxDnsName,
        @JsonProperty("fsx_mountname") String fsxMountname,
        @JsonProperty("fsx_openzfs_dns_name") String fsxOpenzfsDnsName,
        @JsonProperty("autoresume") SiteOptions autoresume) {

    public static final String FILE_NAME = "provisioning_parameters.json";
    public static final String SUPPORTED_VERSION = "1.0.0";
    public static final String WORKLOAD_MANAGER = "slurm";

    public ProvisioningParameters {
        workerGroups = workerGroups == null ? List.of() : List.copyOf(workerGroups);
    }

    public Optional<String> login() {
        return Optional.ofNullable(loginGroup).filter(s -> !s.isEmpty());
    }

    public SiteOptions site() {
        return autoresume == null ? SiteOptions.DEFAULTS : autoresume;
    }
}
