package org.slurmautoresume.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slurmautoresume.lifecycle.apply.LocalHost;

/** `autoresume lifecycle validate|apply` on the local cluster's own JSON files. */
class LifecycleCommandTest {

    private static final String PROVISIONING = "../local-cluster/provisioning_parameters.json";
    private static final String RESOURCES = "../local-cluster/resource_config.json";
    private static final LocalHost NOWHERE = new LocalHost() {
        @Override
        public List<String> addresses() {
            return List.of("192.0.2.1");
        }

        @Override
        public Optional<String> hostname() {
            return Optional.of("node3");
        }
    };

    @TempDir
    Path dir;

    private String out;
    private String err;

    /** Lifecycle commands never run Slurm: the harness's runner would answer only `scontrol --version`. */
    private int run(String... args) {
        CliHarness cli = new CliHarness(Map.of(), NOWHERE);
        int code = cli.run(args);
        out = cli.out;
        err = cli.err;
        return code;
    }

    @Test
    void validFilesValidate() {
        assertEquals(0, run("lifecycle", "validate", "--provisioning", PROVISIONING, "--resource-config", RESOURCES));
        assertEquals("ok: no errors, 0 warning(s)\n", out);
    }

    @Test
    void errorsExitSevenAndAreListedWithFieldAndFix() throws IOException {
        Path bad = Files.writeString(dir.resolve("p.json"), "{\"version\": 1, \"workload_manager\": \"pbs\"}");
        assertEquals(
                ExitCode.CONFIG_INVALID.code(),
                run(
                        "lifecycle",
                        "validate",
                        "--provisioning",
                        bad.toString(),
                        "--resource-config",
                        RESOURCES,
                        "--json"));
        JsonNode report = new ObjectMapper().readTree(out);
        assertFalse(report.get("ok").asBoolean());
        assertEquals(4, report.get("errors").asInt(), out);
        JsonNode first = report.get("problems").get(0);
        assertEquals("$.version", first.get("field").asText());
        List<String> names = new ArrayList<>();
        first.fieldNames().forEachRemaining(names::add);
        assertEquals(List.of("severity", "file", "field", "message", "fix"), names);
        assertEquals(bad.toString(), first.get("file").asText());
        assertTrue(first.get("fix").asText().contains("double quotes"));
    }

    @Test
    void applyFindsTheNodeByHostnameAndIsIdempotent() throws IOException {
        String[] args = {
            "lifecycle",
            "apply",
            "--provisioning",
            PROVISIONING,
            "--resource-config",
            RESOURCES,
            "--root",
            dir.toString(),
            "--slurm-conf",
            "/etc/slurm/slurm.conf"
        };
        assertEquals(0, run(args), err);
        assertTrue(out.startsWith("node node3 (node3), role compute\n"), out);
        assertTrue(out.contains("created /etc/slurm/slurm.conf\n"), out);
        assertTrue(Files.readString(dir.resolve("etc/slurm/slurm.conf"))
                .contains("NodeName=node3 NodeHostname=localhost" + " NodeAddr=127.0.0.3 Port=17003"));
        assertEquals(0, run(args));
        assertTrue(out.endsWith("no changes\n"), out);
    }

    @Test
    void dryRunPrintsDiffsAndWritesNothing() throws IOException {
        assertEquals(
                0,
                run(
                        "lifecycle",
                        "apply",
                        "--provisioning",
                        PROVISIONING,
                        "--resource-config",
                        RESOURCES,
                        "--root",
                        dir.toString(),
                        "--node",
                        "controller",
                        "--dry-run"));
        assertTrue(out.contains("would create /etc/systemd/system/autoresume-sweep.timer\n--- /dev/null\n"), out);
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void applyRefusesInvalidFilesAndWritesNothing() throws IOException {
        Path bad = Files.writeString(dir.resolve("p.json"), "{");
        assertEquals(
                ExitCode.CONFIG_INVALID.code(),
                run(
                        "lifecycle",
                        "apply",
                        "--provisioning",
                        bad.toString(),
                        "--resource-config",
                        RESOURCES,
                        "--root",
                        dir.resolve("root").toString()));
        assertTrue(err.contains("not valid JSON at line 1"), err);
        assertFalse(Files.exists(dir.resolve("root")));
    }

    @Test
    void anUnknownNodeIsAConfigurationError() {
        assertEquals(
                ExitCode.CONFIG_INVALID.code(),
                run(
                        "lifecycle",
                        "apply",
                        "--provisioning",
                        PROVISIONING,
                        "--resource-config",
                        RESOURCES,
                        "--root",
                        dir.toString(),
                        "--node",
                        "node9"));
        assertTrue(err.contains("no instance or Slurm node is named \"node9\""), err);
    }
}
