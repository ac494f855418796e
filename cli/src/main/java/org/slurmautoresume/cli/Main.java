package org.slurmautoresume.cli;

/** Entry point of the autoresume launcher. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        CliContext context = CliContext.system();
        System.exit(SuperviseCommand.isPluginHandOff(args) ? SuperviseCommand.handOff(context, args)
                : CliFactory.create(context).execute(args));
    }
}
