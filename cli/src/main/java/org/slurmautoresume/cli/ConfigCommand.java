package org.slurmautoresume.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
        name = "config",
        mixinStandardHelpOptions = true,
        description = {
            "Check configuration files (restart policy, strategies, log rules) and show the configuration"
                    + " a job gets.",
            "A job's configuration is the site file (--site-config, $AUTORESUME_SITE_CONFIG, or"
                    + " /etc/autoresume/config.yaml when it exists) overridden field by field by the job's file"
                    + " (--config or $AUTORESUME_CONFIG)."
        },
        subcommands = {ConfigCheckCommand.class, ConfigShowCommand.class})
final class ConfigCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: check or show");
    }
}
