package org.slurmautoresume.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Run by the build (cli/pom.xml, prepare-package): writes the man pages' AsciiDoc sources (one
 * per command: autoresume.adoc, autoresume-sweep.adoc, ...) and the bash and zsh completion
 * scripts from the same picocli model that `--help` prints, with picocli's own generators, so
 * the help texts stay their one source. asciidoctor turns the AsciiDoc into roff afterwards.
 * A build-time tool: picocli-codegen is a test dependency and ships in no jar.
 *
 * <p>Arguments: ADOC_DIR COMPLETION_DIR.
 */
public final class GenerateDocs {

    /** Where the zsh completion names the bash one; install.sh writes the installed path there. */
    static final String BASH_COMPLETION_MARKER = "@AUTORESUME_BASH_COMPLETION@";

    private GenerateDocs() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: GenerateDocs ADOC_DIR COMPLETION_DIR");
        }
        File adocDir = new File(args[0]);
        Path completionDir = Path.of(args[1]);
        CommandLine autoresume = CliFactory.create(CliContext.system());
        Files.createDirectories(adocDir.toPath());
        int status = ManPageGenerator.generateManPage(adocDir, null, new boolean[0], true, autoresume.getCommandSpec());
        if (status != 0) {
            throw new IOException("picocli's man page generator ended with status " + status);
        }
        Files.createDirectories(completionDir.resolve("bash"));
        Files.createDirectories(completionDir.resolve("zsh"));
        Files.writeString(
                completionDir.resolve("bash/autoresume"),
                AutoComplete.bash("autoresume", autoresume),
                StandardCharsets.UTF_8);
        // zsh runs the same script through its bash completion layer (what picocli's script
        // supports); the installer puts the bash script's installed path in place of the marker.
        Files.writeString(
                completionDir.resolve("zsh/_autoresume"),
                "#compdef autoresume\n"
                        + "# autoresume's bash completion (generated from its picocli model), through zsh's bashcompinit.\n"
                        + "autoload -U +X bashcompinit && bashcompinit\n"
                        + "source " + BASH_COMPLETION_MARKER + "\n",
                StandardCharsets.UTF_8);
    }
}
