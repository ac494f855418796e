package org.slurmautoresume.slurm.parse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.slurm.model.Node;
import org.slurmautoresume.slurm.model.NodeReason;
import org.slurmautoresume.slurm.model.NodeState;
import org.slurmautoresume.slurm.model.SlurmTime;

/** Parses {@code scontrol -o show node} output (Slurm 22.05 to 25.11): one node per line. */
public final class NodeParser {

    /**
     * Every node key printed by Slurm 22.05 through 25.11 (slurm_sprint_node_table). 23.02 added
     * ResumeAfterTime and ReservationName, 23.11 InstanceId/InstanceType, 24.05
     * RestrictedCoresPerGPU (and dropped CapWatts and ExtSensors*), 25.05 TLSCertTokenSet,
     * TLSCertLastRenewal and Topology, 25.11 Parameters (last). Keys after Reason must be here,
     * or the reason swallows them.
     */
    static final Set<String> KNOWN_KEYS = Set.of(
            "NodeName",
            "Arch",
            "CoresPerSocket",
            "CPUAlloc",
            "CPUEfctv",
            "CPUTot",
            "CPULoad",
            "AvailableFeatures",
            "ActiveFeatures",
            "Gres",
            "GresDrain",
            "GresUsed",
            "NodeAddr",
            "NodeHostName",
            "Port",
            "Version",
            "OS",
            "RealMemory",
            "AllocMem",
            "FreeMem",
            "Sockets",
            "Boards",
            "MemSpecLimit",
            "State",
            "ThreadsPerCore",
            "TmpDisk",
            "Weight",
            "Owner",
            "MCS_label",
            "Partitions",
            "BootTime",
            "SlurmdStartTime",
            "LastBusyTime",
            "ResumeAfterTime",
            "CfgTRES",
            "AllocTRES",
            "CapWatts",
            "CurrentWatts",
            "AveWatts",
            "LowestJoules",
            "ConsumedJoules",
            "ExtSensorsJoules",
            "ExtSensorsWatts",
            "ExtSensorsTemp",
            "Reason",
            "Comment",
            "Extra",
            "CoreSpecCount",
            "CPUSpecList",
            "NextState",
            "InstanceId",
            "InstanceType",
            "ReservationName",
            "Topology",
            "TopologyParam",
            "CpuBind",
            "TRESWeights",
            "GresUsage",
            "Features",
            "NodeHostname",
            "RebootRequested",
            "BcastAddr",
            "RestrictedCoresPerGPU",
            "TLSCertTokenSet",
            "TLSCertLastRenewal",
            "Parameters");

    /** Fields whose value is text that may contain blanks and '='. */
    static final Set<String> FREE_TEXT_KEYS = Set.of("OS", "Reason", "Comment", "Extra");

    private final KeyValueLineParser lineParser = new KeyValueLineParser(KNOWN_KEYS, FREE_TEXT_KEYS);

    /** Parses every record (one per line with {@code -o}; multi-line records are folded). */
    public List<Node> parseAll(String output) {
        List<Node> nodes = new ArrayList<>();
        for (String record : RecordSplitter.records(output)) {
            nodes.add(parse(record));
        }
        return nodes;
    }

    public Node parse(String line) {
        Map<String, String> raw = lineParser.parse(line);
        Fields f = new Fields(raw, line);
        String name = f.required("NodeName");
        NodeState state;
        try {
            state = NodeState.parse(f.required("State"));
        } catch (IllegalArgumentException e) {
            throw new ParseException("bad node state", line);
        }
        // Plain branches, not Optional's lambdas or streams: a node dump of 10,000 records, and
        // every short command's start, run through here.
        Optional<String> partitionList = f.optional("Partitions");
        List<String> partitions = partitionList.isEmpty()
                ? List.of()
                : Arrays.asList(partitionList.get().split(","));
        Optional<String> hostname = f.optional("NodeHostName");
        if (hostname.isEmpty()) {
            hostname = f.optional("NodeHostname");
        }
        Optional<String> features = f.optional("ActiveFeatures");
        return new Node(
                name,
                f.optional("NodeAddr").orElse(name),
                hostname.orElse(name),
                f.integer("Port"),
                state,
                NodeReason.parse(raw.get("Reason")),
                SlurmTime.parse(raw.get("BootTime")),
                SlurmTime.parse(raw.get("SlurmdStartTime")),
                partitions,
                f.optional("Gres"),
                f.integer("CPUTot"),
                f.optional("Version"),
                features.isPresent() ? features(features.get()) : List.of(),
                raw);
    }

    /** {@code ActiveFeatures=gpu,a100} as a list, the shape data_parser prints. */
    private static List<String> features(String text) {
        List<String> features = new ArrayList<>();
        for (String item : text.split(",")) {
            String feature = item.strip();
            if (!feature.isEmpty()) {
                features.add(feature);
            }
        }
        return List.copyOf(features);
    }
}
