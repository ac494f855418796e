package org.slurmautoresume.slurm.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ShellQuoteTest {

    /** The shell itself must read back exactly what was quoted. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "node[1-4]",
                "",
                "it's",
                "a b\tc",
                "$(touch /tmp/pwned)",
                "`id`",
                "x'\"'y",
                "semi;colon && or || pipe | glob * ? [a]",
                "new\nline",
                "back\\slash",
                "'"
            })
    void shellReadsBackTheSameValue(String value) {
        String script = "printf %s " + ShellQuote.quote(value);
        CommandResult result = new CommonsExecCommandRunner()
                .run(new CommandRequest(List.of("sh", "-c", script), CommandRequest.DEFAULT_TIMEOUT, Map.of()));
        assertEquals(value, result.stdout());
    }

    @ParameterizedTest
    @ValueSource(strings = {"node1", "node[1-4]", "a b", ""})
    void quoteIfNeededLeavesPlainWordsAlone(String value) {
        String quoted = ShellQuote.quoteIfNeeded(value);
        boolean plain = value.matches("[A-Za-z0-9_./:=,@+%-]+");
        assertEquals(plain, quoted.equals(value));
    }
}
