package org.slurmautoresume.cli;

/** Entry point of the autoresume launcher. */
public final class Main {

    private Main() {}

    public static void main(String[] args) {
        if (isBareVersion(args)) {
            // Scripts and package checks ask this often; picocli's model is not needed to answer.
            for (String line : new VersionProvider().getVersion()) {
                System.out.println(line);
            }
            System.exit(ExitCode.OK.code());
        }
        CliContext context = CliContext.system();
        if (SuperviseCommand.isPluginHandOff(args)) {
            System.exit(SuperviseCommand.handOff(context, args));
        }
        FastPath.Command fast = FastPath.match(context, args);
        System.exit(
                fast != null
                        ? FastPath.execute(fast)
                        : CliFactory.create(context, args).execute(args));
    }

    /** {@code autoresume --version} or {@code -V} and nothing else: what picocli's version help prints. */
    static boolean isBareVersion(String[] args) {
        return args.length == 1 && isVersionFlag(args[0]);
    }

    /** picocli's standard version option, in either spelling. */
    static boolean isVersionFlag(String arg) {
        return arg.equals("--version") || arg.equals("-V");
    }
}
