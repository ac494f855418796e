package org.slurmautoresume.lifecycle.apply;

import java.nio.file.Path;

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
