package org.slurmautoresume.slurm.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where srun finds its SPANK plugins: slurm.conf's PlugStackConfig or plugstack.conf beside it, and its includes. */
class PlugStackTest {

    @TempDir
    Path dir;

    @Test
    void thePlugstackBesideSlurmConfAndTheSnippetsItIncludes() throws IOException {
        Path slurmConf =
                Files.writeString(dir.resolve("slurm.conf"), "ClusterName=c\nPluginDir=/usr/lib/slurm:/opt/x\n");
        Files.createDirectories(dir.resolve("plugstack.conf.d"));
        Files.writeString(
                dir.resolve("plugstack.conf"),
                "# site\nrequired /usr/lib/slurm/spank_pyxis.so runtime_path=/run\n"
                        + "include plugstack.conf.d/*.conf\n");
        Files.writeString(
                dir.resolve("plugstack.conf.d/50-auto_resume.conf"),
                "optional /opt/autoresume/lib/slurm/auto_resume.so supervisor=/opt/autoresume/bin/autoresume\n");
        Files.writeString(dir.resolve("plugstack.conf.d/10-other.conf"), "optional other.so # relative\n");
        Files.writeString(dir.resolve("plugstack.conf.d/notes.txt"), "optional /not/read.so\n");
        Map<String, String> env = Map.of("SLURM_CONF", slurmConf.toString());

        Path plugstack = PlugStack.configFile(env);

        assertEquals(dir.resolve("plugstack.conf"), plugstack);
        assertEquals(
                List.of(
                        new PlugStack.Entry(Path.of("/usr/lib/slurm/spank_pyxis.so"), false, plugstack),
                        new PlugStack.Entry(Path.of("other.so"), true, dir.resolve("plugstack.conf.d/10-other.conf")),
                        new PlugStack.Entry(
                                Path.of("/opt/autoresume/lib/slurm/auto_resume.so"),
                                true,
                                dir.resolve("plugstack.conf.d/50-auto_resume.conf"))),
                PlugStack.entries(plugstack));
        assertEquals(Optional.of(Path.of("/usr/lib/slurm")), PlugStack.pluginDir(env));
    }

    @Test
    void plugStackConfigInSlurmConfNamesTheFile() throws IOException {
        Path slurmConf = Files.writeString(dir.resolve("slurm.conf"), "plugstackconfig = spank/stack.conf\n");
        assertEquals(dir.resolve("spank/stack.conf"), PlugStack.configFile(Map.of("SLURM_CONF", slurmConf.toString())));
        assertEquals(List.of(), PlugStack.entries(dir.resolve("spank/stack.conf")), "no file: no plugins");
    }
}
