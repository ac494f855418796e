package org.slurmautoresume.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Large `scontrol -o show node` text made from real 22.05 records (fixtures in slurm-bridge's test-jar). */
public final class SyntheticCluster {

    private static final String[] TEMPLATES = {
        "show-node-idle.txt", "show-node-mixed.txt", "show-node-allocated.txt", "show-node-idle-fail.txt",
        "show-node-idle-drain.txt", "show-node-down-not-responding.txt", "show-node-mixed-completing.txt",
        "show-node-idle-drain-reboot-requested.txt"};

    private SyntheticCluster() {
    }

    public static String showNodeOutput(int count) {
        List<String> templates = new ArrayList<>();
        for (String name : TEMPLATES) {
            templates.add(read(name).strip());
        }
        StringBuilder out = new StringBuilder(count * 800);
        for (int i = 0; i < count; i++) {
            String template = templates.get(i % templates.size());
            String name = String.format("gpu-%05d", i + 1);
            String record = template.replaceFirst("NodeName=node\\d+", "NodeName=" + name)
                    .replaceFirst("NodeAddr=127\\.0\\.0\\.1", "NodeAddr=10." + (i / 65536) + "." + ((i / 256) % 256) + "." + (i % 256))
                    .replaceFirst("NodeHostName=localhost", "NodeHostName=" + name);
            out.append(record).append('\n');
        }
        return out.toString();
    }

    private static String read(String name) {
        try (InputStream in = SyntheticCluster.class.getResourceAsStream("/fixtures/slurm-22.05/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing fixture " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
