package org.slurmautoresume.e2e;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slurmautoresume.slurm.exec.CommandResult;

/**
 * What Slurm itself says, read with plain regular expressions over scontrol's text, so that
 * the toolkit's own parsers are not used to check themselves.
 */
final class SlurmTruth {

    private final LocalCluster cluster;

    SlurmTruth(LocalCluster cluster) {
        this.cluster = cluster;
    }

    String jobField(String jobId, String key) {
        return field(scontrol("-o", "show", "job", jobId), key);
    }

    String nodeField(String node, String key) {
        return field(scontrol("-o", "show", "node", node), key);
    }

    List<String> hostnames(String hostlist) {
        return scontrol("show", "hostnames", hostlist)
                .lines()
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .toList();
    }

    private String scontrol(String... args) {
        List<String> argv = new java.util.ArrayList<>(List.of("scontrol"));
        argv.addAll(List.of(args));
        CommandResult result = cluster.run(argv);
        if (!result.succeeded()) {
            throw new AssertionError("scontrol failed: " + result.stderr());
        }
        return result.stdout();
    }

    private static String field(String record, String key) {
        Matcher m = Pattern.compile("(?:^| )" + Pattern.quote(key) + "=(\\S*)").matcher(record);
        if (!m.find()) {
            throw new AssertionError("no " + key + " in: " + record);
        }
        return m.group(1);
    }
}
