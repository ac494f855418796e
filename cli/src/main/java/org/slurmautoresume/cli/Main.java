package org.slurmautoresume.cli;

/** Entry point of the autoresume launcher. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(CliFactory.create(CliContext.system()).execute(args));
    }
}
