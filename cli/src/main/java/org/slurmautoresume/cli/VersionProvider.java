package org.slurmautoresume.cli;

import picocli.CommandLine.IVersionProvider;

/** Reads the version Maven wrote into the jar's manifest. */
public final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"autoresume " + version()};
    }

    /** The version alone, as the agent's build_info metric carries it. */
    String version() {
        String version = AutoresumeCommand.class.getPackage().getImplementationVersion();
        return version == null ? "(development build)" : version;
    }
}
