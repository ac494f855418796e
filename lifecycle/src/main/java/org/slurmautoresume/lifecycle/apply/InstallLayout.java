package org.slurmautoresume.lifecycle.apply;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where things live on a node, as absolute paths on that node. {@link #under(Path)} maps one onto
 * the directory apply writes into ({@code --root}), so tests write into a temporary tree.
 *
 * @param plugin     the SPANK plugin, as spank-shim's {@code make install} places it
 * @param autoresume the installed {@code autoresume} command
 * @param packaged   the plugin, its plugstack.conf.d snippet and the units belong to an installation
 *                   in the packages' layout (the Debian or EL packages, or install.sh), which apply
 *                   leaves to it
 */
public record InstallLayout(
        Path root,
        Path slurmConf,
        Path plugin,
        Path autoresume,
        Path systemdDir,
        Path healthCheckWrapper,
        boolean packaged) {

    public static final Path DEFAULT_SLURM_CONF = Path.of("/etc/slurm/slurm.conf");
    /** The snippet slurm-autoresume-plugin installs (a conffile): {@code optional PLUGIN supervisor=COMMAND}. */
    static final Path PACKAGE_SNIPPET = Path.of("/etc/slurm/plugstack.conf.d/auto_resume.conf");
    /** Where the packages put their units. */
    static final Path PACKAGE_UNITS = Path.of("/usr/lib/systemd/system");

    /**
     * The layout of the installation that runs apply. One in the packages' layout (the Debian or EL
     * packages, or install.sh: {@code /usr/share/autoresume}, the plugin in Slurm's plugin
     * directory, listed by the {@code auto_resume.conf} snippet with this installation's launcher
     * as its supervisor) is {@code packaged}: apply writes neither that snippet nor the units, which
     * that installation owns (a second snippet would load the plugin twice). An unpacked tarball run
     * in place holds {@code DIR/bin/autoresume} and {@code DIR/lib/slurm/auto_resume.so}, and the
     * snippet and units apply writes name those, not {@code /usr/local} (a snippet naming a plugin
     * that is not there would be skipped by Slurm, as it is {@code optional}, and --auto-resume would
     * be gone). Anything else (a build tree, no home known) keeps {@link #defaults}.
     *
     * @param home the installation's directory, as the launcher passes it ({@code -Dautoresume.home})
     */
    public static InstallLayout forInstallation(Path root, Path slurmConf, Optional<Path> home) {
        InstallLayout defaults = defaults(root, slurmConf);
        if (home.isEmpty() || !home.get().isAbsolute()) {
            return defaults;
        }
        Path plugin = home.get().resolve("lib/slurm/auto_resume.so");
        Path command = home.get().resolve("bin/autoresume");
        if (!Files.isRegularFile(command)) {
            return defaults;
        }
        if (Files.isRegularFile(plugin)) {
            return new InstallLayout(
                    root, slurmConf, plugin, command, defaults.systemdDir(), defaults.healthCheckWrapper(), false);
        }
        // The packages' layout: the plugin in Slurm's plugin directory, named by the snippet with
        // this installation's command as its supervisor. A second snippet from apply would load it twice.
        return packagedPlugin(defaults, command)
                .map(packaged -> new InstallLayout(
                        root, slurmConf, packaged, command, PACKAGE_UNITS, defaults.healthCheckWrapper(), true))
                .orElse(defaults);
    }

    /** The plugin the installation's snippet lists with {@code command} as its supervisor, when it is there. */
    private static Optional<Path> packagedPlugin(InstallLayout defaults, Path command) {
        Path snippet = defaults.under(PACKAGE_SNIPPET);
        if (!Files.isRegularFile(snippet)) {
            return Optional.empty();
        }
        try {
            for (String line : Files.readAllLines(snippet)) {
                String[] words = line.strip().split("\\s+");
                if (words.length >= 3
                        && words[0].equals("optional")
                        && words[1].startsWith("/")
                        && words[1].endsWith("/auto_resume.so")
                        && words[2].equals("supervisor=" + command)
                        && Files.isRegularFile(defaults.under(Path.of(words[1])))) {
                    return Optional.of(Path.of(words[1]));
                }
            }
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    public static InstallLayout defaults(Path root, Path slurmConf) {
        return new InstallLayout(
                root,
                slurmConf,
                Path.of("/usr/local/lib/slurm/auto_resume.so"),
                Path.of("/usr/local/bin/autoresume"),
                Path.of("/etc/systemd/system"),
                Path.of("/usr/local/libexec/autoresume/health-check"),
                false);
    }

    /** The real file behind a node path: {@code /etc/x} under root {@code /tmp/r} is {@code /tmp/r/etc/x}. */
    public Path under(Path nodePath) {
        if (!nodePath.isAbsolute()) {
            throw new ApplyException("not an absolute path: " + nodePath);
        }
        return root.resolve(nodePath.getRoot().relativize(nodePath).toString());
    }
}
