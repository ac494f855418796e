package org.slurmautoresume.slurm.plugin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A real Slurm plugin of this host's Slurm (install-deps.sh installs Slurm): built for the release its srun reports. */
public final class HostPlugins {

    private static final List<Path> PLUGIN_DIRS = List.of(
            Path.of("/usr/lib/x86_64-linux-gnu/slurm-wlm"),
            Path.of("/usr/lib/aarch64-linux-gnu/slurm-wlm"),
            Path.of("/usr/lib64/slurm"),
            Path.of("/usr/lib/slurm"));

    private HostPlugins() {}

    public static Path selectConsTres() {
        return PLUGIN_DIRS.stream()
                .map(d -> d.resolve("select_cons_tres.so"))
                .filter(Files::isRegularFile)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no select_cons_tres.so in " + PLUGIN_DIRS
                        + ": install Slurm (local-cluster/install-deps.sh)"));
    }
}
