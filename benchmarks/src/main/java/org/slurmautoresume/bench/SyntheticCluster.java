package org.slurmautoresume.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Large `scontrol -o show node` text made from real 22.05 records (fixtures in slurm-client's test-jar). */
public final class SyntheticCluster {

    private static final String[] TEMPLATES = {
        "show-node-idle.txt",
        "show-node-mixed.txt",
        "show-node-allocated.txt",
        "show-node-idle-fail.txt",
        "show-node-idle-drain.txt",
        "show-node-down-not-responding.txt",
        "show-node-mixed-completing.txt",
        "show-node-idle-drain-reboot-requested.txt"
    };

    /**
     * For the sweep: mostly healthy nodes, with about one in twenty in a state a sweep rule
     * matches (replaced and back, down and silent, FAIL with jobs, COMPLETING, drained).
     */
    private static final String[] SWEEP_TEMPLATES = {
        "show-node-idle.txt",
        "show-node-mixed.txt",
        "show-node-allocated.txt",
        "show-node-idle.txt",
        "show-node-mixed.txt",
        "show-node-allocated.txt",
        "show-node-idle.txt",
        "show-node-mixed.txt",
        "show-node-allocated.txt",
        "show-node-idle.txt",
        "show-node-mixed.txt",
        "show-node-allocated.txt",
        "show-node-idle.txt",
        "show-node-mixed.txt",
        "show-node-allocated.txt",
        "show-node-idle-drain.txt",
        "show-node-idle-fail.txt",
        "show-node-down-not-responding.txt",
        "show-node-mixed-fail.txt",
        "show-node-idle-completing.txt"
    };

    private SyntheticCluster() {}

    public static String sweepNodeOutput(int count) {
        return render(count, SWEEP_TEMPLATES);
    }

    /**
     * Jobs over {@code gpu-00001...}: one 8-node RUNNING job per 20 nodes, a COMPLETING job on
     * each COMPLETING node of {@link #sweepNodeOutput}, and an expansion donor per 500 nodes
     * (half of them orphaned), all made from real 22.05 job records.
     */
    public static String showJobOutput(int nodes) {
        String running = read("show-job-running-expanded.txt").strip();
        String completing = read("show-job-completing.txt").strip();
        String donor = read("show-job-expansion-donor.txt").strip();
        StringBuilder out = new StringBuilder();
        int id = 1000;
        for (int first = 1; first + 7 <= nodes; first += 20) {
            out.append(job(running, id++, String.format("gpu-[%05d-%05d]", first, first + 7), "grow"))
                    .append('\n');
        }
        for (int i = SWEEP_TEMPLATES.length - 1; i < nodes; i += SWEEP_TEMPLATES.length) {
            out.append(job(completing, id++, String.format("gpu-%05d", i + 1), "noterm"))
                    .append('\n');
        }
        for (int i = 0; i < nodes / 500; i++) {
            String target = i % 2 == 0 ? "1000" : "999999";
            out.append(job(donor, id++, String.format("gpu-%05d", i * 500 + 1), "autoresume-donor-" + target))
                    .append('\n');
        }
        return out.toString();
    }

    private static String job(String template, int id, String nodeList, String name) {
        return template.replaceFirst("^JobId=\\d+", "JobId=" + id)
                .replaceFirst(" JobName=\\S+", " JobName=" + name)
                .replaceFirst(" NodeList=\\S+", " NodeList=" + java.util.regex.Matcher.quoteReplacement(nodeList));
    }

    public static String showNodeOutput(int count) {
        return render(count, TEMPLATES);
    }

    private static String render(int count, String[] names) {
        List<String> templates = new ArrayList<>();
        for (String name : names) {
            templates.add(read(name).strip());
        }
        StringBuilder out = new StringBuilder(count * 800);
        for (int i = 0; i < count; i++) {
            String template = templates.get(i % templates.size());
            String name = String.format("gpu-%05d", i + 1);
            String record = template.replaceFirst("NodeName=node\\d+", "NodeName=" + name)
                    .replaceFirst(
                            "NodeAddr=127\\.0\\.0\\.1",
                            "NodeAddr=10." + (i / 65536) + "." + ((i / 256) % 256) + "." + (i % 256))
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
