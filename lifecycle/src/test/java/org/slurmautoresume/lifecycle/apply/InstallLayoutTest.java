package org.slurmautoresume.lifecycle.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which plugin and command the snippet and units name: the running installation's, when it has both. */
class InstallLayoutTest {

    @TempDir
    Path dir;

    private final Path conf = Path.of("/etc/slurm/slurm.conf");

    @Test
    void anInstalledTarballNamesItsOwnPluginAndCommand() throws IOException {
        Path home = dir.resolve("opt/autoresume");
        Files.createDirectories(home.resolve("lib/slurm"));
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("lib/slurm/auto_resume.so"), "");
        Files.writeString(home.resolve("bin/autoresume"), "");
        InstallLayout layout = InstallLayout.forInstallation(dir, conf, Optional.of(home));
        assertEquals(home.resolve("lib/slurm/auto_resume.so"), layout.plugin());
        assertEquals(home.resolve("bin/autoresume"), layout.autoresume());
        assertEquals(InstallLayout.defaults(dir, conf).systemdDir(), layout.systemdDir());
    }

    @Test
    void aBuildTreeOrNoHomeKeepsTheDefaults() throws IOException {
        InstallLayout defaults = InstallLayout.defaults(dir, conf);
        Path buildTree = dir.resolve("cli/target/autoresume");
        Files.createDirectories(buildTree.resolve("bin"));
        Files.writeString(buildTree.resolve("bin/autoresume"), ""); // no lib/slurm/auto_resume.so
        assertEquals(defaults, InstallLayout.forInstallation(dir, conf, Optional.of(buildTree)));
        assertEquals(defaults, InstallLayout.forInstallation(dir, conf, Optional.empty()));
        assertEquals(defaults, InstallLayout.forInstallation(dir, conf, Optional.of(Path.of("relative/home"))));
        assertEquals(Path.of("/usr/local/lib/slurm/auto_resume.so"), defaults.plugin());
    }
}
