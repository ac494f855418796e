package org.slurmautoresume.slurm.parse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.slurmautoresume.slurm.model.JobId;
import org.slurmautoresume.slurm.model.SlurmTime;
import org.slurmautoresume.slurm.model.Step;

/** Parses {@code scontrol -o show step} output: one step per line. */
public final class StepParser {

    /**
     * Every step key of slurm_sprint_job_step_info (scontrol's _sprint_step_info from 25.11),
     * 22.05 through 25.11: 23.02 added ContainerID (printed with Container), 25.05 StdIn, StdErr
     * and StdOut, 25.11 SLUID (with {@code -d}).
     */
    static final Set<String> KNOWN_KEYS = Set.of(
            "StepId",
            "UserId",
            "StartTime",
            "TimeLimit",
            "SLUID",
            "State",
            "Partition",
            "NodeList",
            "Nodes",
            "CPUs",
            "Tasks",
            "Name",
            "Network",
            "TRES",
            "ResvPorts",
            "CPUFreqReq",
            "Dist",
            "SrunHost:Pid",
            "TresPerNode",
            "TresPerTask",
            "TresPerStep",
            "TresPerSocket",
            "CpusPerTres",
            "MemPerTres",
            "TresBind",
            "TresFreq",
            "NtasksPerTRES",
            "Container",
            "ContainerID",
            "SubmitLine",
            "Reservation",
            "Comment",
            "StdIn",
            "StdErr",
            "StdOut");

    static final Set<String> FREE_TEXT_KEYS =
            Set.of("Name", "Container", "SubmitLine", "Comment", "StdIn", "StdErr", "StdOut");

    /**
     * The order scontrol prints step keys in, 22.05 to 25.11 (25.11's {@code -d} adds SLUID after
     * TimeLimit). Keys of the table not seen in those releases' step records go last. The step's
     * name is the user's and comes before SrunHost:Pid, which tells a supervisor its own step: it
     * is held to Network, printed with it in one format string.
     */
    static final PrintOrder ORDER = new PrintOrder(
            List.of(
                    "StepId",
                    "UserId",
                    "StartTime",
                    "TimeLimit",
                    "SLUID",
                    "State",
                    "Partition",
                    "NodeList",
                    "Nodes",
                    "CPUs",
                    "Tasks",
                    "Name",
                    "Network",
                    "TRES",
                    "ResvPorts",
                    "CPUFreqReq",
                    "Dist",
                    "SrunHost:Pid",
                    "CpusPerTres",
                    "MemPerTres",
                    "TresBind",
                    "TresFreq",
                    "TresPerStep",
                    "TresPerNode",
                    "TresPerSocket",
                    "TresPerTask",
                    "Container",
                    "ContainerID",
                    "StdIn",
                    "StdErr",
                    "StdOut",
                    "NtasksPerTRES",
                    "SubmitLine",
                    "Reservation",
                    "Comment"),
            Map.of("Name", "Network"),
            Set.of(),
            Set.of("StepId"));

    private final KeyValueLineParser lineParser = new KeyValueLineParser(KNOWN_KEYS, FREE_TEXT_KEYS, ORDER);

    public List<Step> parseAll(String output) {
        List<Step> steps = new ArrayList<>();
        for (String record : RecordSplitter.records(output)) {
            // 22.05 prints this sentence instead of a record when a job has no steps.
            if (!record.startsWith("No job steps")) {
                steps.add(parse(record));
            }
        }
        return steps;
    }

    public Step parse(String line) {
        Map<String, String> raw = lineParser.parse(line);
        Fields f = new Fields(raw, line);
        String fullId = f.required("StepId");
        int dot = fullId.indexOf('.');
        if (dot <= 0 || dot == fullId.length() - 1) {
            throw new ParseException("StepId is not JOB.STEP", line);
        }
        // Only the job part is held to JobId: step parts other than StepId's (a het step's 0+1) may appear.
        if (!JobId.isValid(fullId.substring(0, dot))) {
            throw new ParseException("StepId's job part is not a job id", line);
        }
        String srun = f.text("SrunHost:Pid");
        int colon = srun.lastIndexOf(':');
        OptionalInt srunPid = OptionalInt.empty();
        if (colon > 0) {
            try {
                srunPid = OptionalInt.of(Integer.parseInt(srun.substring(colon + 1)));
            } catch (NumberFormatException e) {
                srunPid = OptionalInt.empty();
            }
        }
        return new Step(
                fullId.substring(0, dot),
                fullId.substring(dot + 1),
                f.text("Name"),
                f.text("State"),
                f.text("NodeList"),
                f.integer("Nodes"),
                f.integer("Tasks"),
                SlurmTime.parse(raw.get("StartTime")),
                srunHost(srun, colon),
                srunPid,
                raw);
    }

    /** The batch step has no srun: Slurm prints its NULL host as {@code (null)}. */
    private static Optional<String> srunHost(String srun, int colon) {
        if (colon <= 0) {
            return Optional.empty();
        }
        String host = srun.substring(0, colon);
        return host.equals("(null)") ? Optional.empty() : Optional.of(host);
    }
}
