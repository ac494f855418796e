package org.slurmautoresume.cli;

import picocli.CommandLine.IVersionProvider;

/** Reads the version Maven wrote into the jar's manifest. */
public final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = AutoresumeCommand.class.getPackage().getImplementationVersion();
        return new String[] {"autoresume " + (version == null ? "(development build)" : version)};
    }
}
