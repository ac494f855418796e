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

    /** The packages' files under {@code dir}: the command's home, the plugin in Slurm's directory, their snippet. */
    private Path packagedInstallation(String supervisor) throws IOException {
        Path home = dir.resolve("usr/share/autoresume");
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("bin/autoresume"), "");
        Path plugin = dir.resolve("usr/lib/x86_64-linux-gnu/slurm-wlm/auto_resume.so");
        Files.createDirectories(plugin.getParent());
        Files.writeString(plugin, "");
        Path snippet = dir.resolve("etc/slurm/plugstack.conf.d/auto_resume.conf");
        Files.createDirectories(snippet.getParent());
        Files.writeString(
                snippet,
                "# slurm-autoresume\noptional /usr/lib/x86_64-linux-gnu/slurm-wlm/auto_resume.so supervisor="
                        + (supervisor == null ? home.resolve("bin/autoresume") : supervisor) + "\n");
        return home;
    }

    @Test
    void thePackagesKeepTheirPluginSnippetAndUnits() throws IOException {
        Path home = packagedInstallation(null);
        InstallLayout layout = InstallLayout.forInstallation(dir, conf, Optional.of(home));
        assertEquals(true, layout.packaged());
        assertEquals(Path.of("/usr/lib/x86_64-linux-gnu/slurm-wlm/auto_resume.so"), layout.plugin());
        assertEquals(home.resolve("bin/autoresume"), layout.autoresume());
        assertEquals(Path.of("/usr/lib/systemd/system"), layout.systemdDir());
    }

    @Test
    void aSnippetForAnotherCommandIsNotThisInstallationsPackage() throws IOException {
        Path home = packagedInstallation("/opt/other/bin/autoresume");
        assertEquals(InstallLayout.defaults(dir, conf), InstallLayout.forInstallation(dir, conf, Optional.of(home)));
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
