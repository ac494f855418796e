package org.slurmautoresume.nodeops.health;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.model.Node;

/**
 * The GPU count in a node's {@code Gres} as scontrol prints it: {@code gpu:8},
 * {@code gpu:h100:8(S:0-1)}, several entries separated by commas (all gpu entries add up).
 * Empty when the node has no gpu Gres ({@code (null)}, other resources only).
 */
public final class GresGpus {

    /**
     * The gpu Gres Slurm has for {@code node}, read now: what nvidia-smi's count is compared with;
     * empty when Slurm names none. Reading failures are the caller's to handle.
     */
    public static OptionalInt ofNode(SlurmClient slurm, String node) {
        return slurm.node(node).flatMap(Node::gres).map(GresGpus::count).orElse(OptionalInt.empty());
    }

    /** name[:type]:count[(socket binding)], count possibly with a K/M suffix that GPU counts never use. */
    private static final Pattern ENTRY = Pattern.compile("^gpu(?::[^:(]+)?:(\\d+)(?:\\(.*\\))?$");

    private GresGpus() {}

    public static OptionalInt count(String gres) {
        if (gres == null || gres.isBlank()) {
            return OptionalInt.empty();
        }
        int total = 0;
        boolean any = false;
        // Split on commas outside parentheses: a binding such as (S:0,1) holds commas too.
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= gres.length(); i++) {
            char c = i < gres.length() ? gres.charAt(i) : ',';
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth = Math.max(0, depth - 1);
            } else if (c == ',' && depth == 0) {
                Matcher m = ENTRY.matcher(gres.substring(start, i).strip());
                if (m.matches()) {
                    total += Integer.parseInt(m.group(1));
                    any = true;
                }
                start = i + 1;
            }
        }
        return any ? OptionalInt.of(total) : OptionalInt.empty();
    }
}
