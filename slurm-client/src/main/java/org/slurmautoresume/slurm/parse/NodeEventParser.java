package org.slurmautoresume.slurm.parse;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slurmautoresume.slurm.model.NodeEvent;
import org.slurmautoresume.slurm.model.SlurmTime;

/**
 * Reads {@code sacctmgr -n -P show event event=node format=NodeName,TimeStart,TimeEnd,State,User,Reason}:
 * one event a line, fields split on {@code |}. Reason comes last so that a {@code |} an
 * administrator typed into it stays in the reason. An event still open prints its end as
 * {@code Unknown}.
 */
public final class NodeEventParser {

    /** The format the parser reads, as sacctmgr takes it. */
    public static final String FORMAT = "NodeName,TimeStart,TimeEnd,State,User,Reason";

    private static final int FIELDS = 6;

    private NodeEventParser() {}

    public static List<NodeEvent> parse(String text) {
        List<NodeEvent> events = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\\|", FIELDS);
            if (f.length < FIELDS) {
                throw new ParseException("not a node event (" + FIELDS + " fields expected)", line);
            }
            Optional<LocalDateTime> start = SlurmTime.parse(f[1].strip());
            if (start.isEmpty()) {
                throw new ParseException("a node event without a start time", line);
            }
            events.add(new NodeEvent(
                    f[0].strip(),
                    start.get(),
                    SlurmTime.parse(f[2].strip()),
                    f[3].strip(),
                    f[4].strip(),
                    f[5].strip()));
        }
        return events;
    }
}
