package org.slurmautoresume.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
        name = "lifecycle",
        mixinStandardHelpOptions = true,
        description = {"Cluster provisioning from provisioning_parameters.json and resource_config.json."},
        subcommands = {LifecycleValidateCommand.class, LifecycleApplyCommand.class})
final class LifecycleCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: validate or apply");
    }
}
