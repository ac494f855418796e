package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.hostlist.Hostlist;
import org.slurmautoresume.slurm.hostlist.HostlistExpressionGenerator;

/** Java's hostlist expansion and compression against Slurm's own, for generated expressions. */
class HostlistMatchesSlurmIT {

    private static final int EXPRESSIONS = 300;
    private static LocalCluster cluster;

    @BeforeAll
    static void findCluster() {
        cluster = LocalCluster.get();
    }

    @Test
    void expansionAndCompressionEqualScontrols() {
        List<String> mismatches = new ArrayList<>();
        HostlistExpressionGenerator generator = new HostlistExpressionGenerator(20261122L);
        for (int i = 0; i < EXPRESSIONS; i++) {
            String expression = generator.next();
            List<String> slurm = lines(scontrol("show", "hostnames", expression));
            List<String> java = Hostlist.expand(expression);
            if (!slurm.equals(java)) {
                mismatches.add("expand " + expression + ": slurm " + slurm + " java " + java);
                continue;
            }
            String joined = String.join(",", slurm);
            String slurmSorted = scontrol("show", "hostlistsorted", joined).strip();
            if (!slurmSorted.equals(Hostlist.compressSorted(slurm))) {
                mismatches.add("compressSorted " + joined + ": slurm " + slurmSorted + " java "
                        + Hostlist.compressSorted(slurm));
            }
            String slurmRanged = scontrol("show", "hostlist", joined).strip();
            if (!slurmRanged.equals(Hostlist.compress(slurm))) {
                mismatches.add("compress " + joined + ": slurm " + slurmRanged + " java " + Hostlist.compress(slurm));
            }
        }
        assertEquals(List.of(), mismatches, mismatches.size() + " of " + EXPRESSIONS + " expressions differ");
    }

    private String scontrol(String... args) {
        List<String> argv = new ArrayList<>(List.of("scontrol"));
        argv.addAll(List.of(args));
        CommandResult result = cluster.run(argv);
        if (!result.succeeded()) {
            throw new AssertionError("scontrol " + String.join(" ", args) + ": " + result.stderr());
        }
        return result.stdout();
    }

    private static List<String> lines(String text) {
        return text.lines().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }
}
