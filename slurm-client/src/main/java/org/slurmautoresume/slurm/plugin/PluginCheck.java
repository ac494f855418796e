package org.slurmautoresume.slurm.plugin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slurmautoresume.slurm.model.SlurmVersion;

/**
 * Whether the auto_resume.so this node's plugstack lists will load into the Slurm it runs. A
 * Slurm upgrade without a rebuilt plugin breaks nothing visibly: srun skips an {@code optional}
 * plugin it cannot load and then refuses {@code --auto-resume=1} as an unknown option. This says
 * so plainly, with what to rebuild; it is about software, never a reason to mark a node.
 *
 * @param plugin   the plugin file as found (a bare name resolved under PluginDir)
 * @param listedIn the plugstack file that lists it
 * @param builtFor the release it was built for; empty when that could not be read (see {@code problem})
 * @param running  the release this node runs
 * @param loads    whether srun will load it
 * @param problem  what is wrong and what to do, in words; empty when it loads
 */
public record PluginCheck(
        Path plugin,
        Path listedIn,
        Optional<SlurmVersion> builtFor,
        SlurmVersion running,
        boolean loads,
        Optional<String> problem) {

    public static final String FILE_NAME = "auto_resume.so";

    /**
     * A check of every auto_resume.so the plugstack of {@code environment} lists; none when it
     * lists none, and then {@code running} (which may ask scontrol) is not asked.
     */
    public static List<PluginCheck> ofNode(Map<String, String> environment, Supplier<SlurmVersion> running)
            throws IOException {
        List<PluginCheck> checks = new ArrayList<>();
        Optional<Path> pluginDir = PlugStack.pluginDir(environment);
        SlurmVersion release = null;
        for (PlugStack.Entry entry : PlugStack.entries(PlugStack.configFile(environment))) {
            if (entry.plugin().getFileName() != null
                    && entry.plugin().getFileName().toString().equals(FILE_NAME)) {
                Path plugin = entry.plugin().isAbsolute() || pluginDir.isEmpty()
                        ? entry.plugin()
                        : pluginDir.get().resolve(entry.plugin());
                release = release == null ? running.get() : release;
                checks.add(of(plugin, entry.listedIn(), release));
            }
        }
        return checks;
    }

    /** A check of one plugin file; {@code listedIn} says where it came from (a plugstack file, or the command line). */
    public static PluginCheck of(Path plugin, Path listedIn, SlurmVersion running) {
        if (!Files.isRegularFile(plugin)) {
            return new PluginCheck(
                    plugin,
                    listedIn,
                    Optional.empty(),
                    running,
                    false,
                    Optional.of(plugin
                            + " is listed in " + listedIn
                            + " but is not there: srun cannot load it, and --auto-resume=1 is"
                            + " refused as an unknown option"));
        }
        Optional<SlurmVersion> built;
        try {
            built = PluginRelease.builtFor(plugin);
        } catch (IOException e) {
            return new PluginCheck(plugin, listedIn, Optional.empty(), running, false, Optional.of(e.getMessage()));
        }
        if (built.isEmpty()) {
            return new PluginCheck(
                    plugin,
                    listedIn,
                    built,
                    running,
                    false,
                    Optional.of(plugin + " names no Slurm release (no plugin_version): not a Slurm plugin"));
        }
        if (PluginRelease.loadsInto(built.get(), running)) {
            return new PluginCheck(plugin, listedIn, built, running, true, Optional.empty());
        }
        String target = String.format("%02d.%02d", running.major(), running.minor());
        return new PluginCheck(
                plugin,
                listedIn,
                built,
                running,
                false,
                Optional.of(plugin + " was built for Slurm "
                        + built.get() + " and this node runs " + running
                        + ": srun loads a SPANK plugin only into the release"
                        + " it was built for, so it skips this one and refuses --auto-resume=1 as an unknown option."
                        + " Rebuild it against Slurm " + target
                        + "'s headers (make -C spank-shim, or the toolkit's build"
                        + " for " + target + ") and install it again"));
    }
}
