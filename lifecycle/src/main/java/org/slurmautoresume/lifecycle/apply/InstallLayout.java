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
 */
public record InstallLayout(Path root, Path slurmConf, Path plugin, Path autoresume, Path systemdDir,
                            Path healthCheckWrapper) {

    public static final Path DEFAULT_SLURM_CONF = Path.of("/etc/slurm/slurm.conf");

    /**
     * The layout of the installation that runs apply: an unpacked tarball installed by
     * {@code install.sh --prefix DIR} holds {@code DIR/bin/autoresume} and
     * {@code DIR/lib/slurm/auto_resume.so}, and the plugstack snippet and units must name those,
     * not {@code /usr/local} (both write {@code auto_resume.conf}: a snippet naming a plugin that
     * is not there would be skipped by Slurm, as it is {@code optional}, and --auto-resume would be
     * gone). Anything else (a build tree, no home known) keeps {@link #defaults}.
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
        if (!Files.isRegularFile(plugin) || !Files.isRegularFile(command)) {
            return defaults;
        }
        return new InstallLayout(root, slurmConf, plugin, command, defaults.systemdDir(), defaults.healthCheckWrapper());
    }

    public static InstallLayout defaults(Path root, Path slurmConf) {
        return new InstallLayout(root, slurmConf, Path.of("/usr/local/lib/slurm/auto_resume.so"),
                Path.of("/usr/local/bin/autoresume"), Path.of("/etc/systemd/system"),
                Path.of("/usr/local/libexec/autoresume/health-check"));
    }

    /** The real file behind a node path: {@code /etc/x} under root {@code /tmp/r} is {@code /tmp/r/etc/x}. */
    public Path under(Path nodePath) {
        if (!nodePath.isAbsolute()) {
            throw new ApplyException("not an absolute path: " + nodePath);
        }
        return root.resolve(nodePath.getRoot().relativize(nodePath).toString());
    }
}
