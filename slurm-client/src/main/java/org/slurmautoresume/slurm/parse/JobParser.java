package org.slurmautoresume.slurm.parse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobListing;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.SlurmTime;

/** Parses {@code scontrol -o show job} output (Slurm 22.05 to 25.11): one job per line. */
public final class JobParser {

    /**
     * Every job key printed by Slurm 22.05 through 25.11 (slurm_sprint_job_info, moved into
     * scontrol's info_job.c in 24.11). 23.02 replaced TRES with ReqTRES/AllocTRES and added
     * FailedNode, Extra and ContainerID; 23.11 the GresAllowTaskSharing/GresOneTaskPerSharing
     * flags; 24.05 StepMgrEnabled and ResvPorts (and dropped Power); 24.11 OOMKillStep and
     * MinMemoryTRES; 25.05 LicensesAlloc and SegmentSize; 25.11 SubmitLine, SLUID (with
     * {@code -d}), SpreadSegments/ConsolidateSegments beside SegmentSize, ExpeditedRequeue=Yes
     * (a job submitted with --requeue=expedite) and KillOnInvalidDependent (was KillOIn...).
     */
    static final Set<String> KNOWN_KEYS = Set.of(
            "JobId",
            "ArrayJobId",
            "ArrayTaskId",
            "ArrayTaskThrottle",
            "HetJobId",
            "HetJobOffset",
            "HetJobIdSet",
            "JobName",
            "UserId",
            "GroupId",
            "MCS_label",
            "Priority",
            "Nice",
            "Account",
            "QOS",
            "JobState",
            "Reason",
            "Dependency",
            "Requeue",
            "Restarts",
            "BatchFlag",
            "Reboot",
            "ExitCode",
            "DerivedExitCode",
            "RunTime",
            "TimeLimit",
            "TimeMin",
            "SubmitTime",
            "EligibleTime",
            "AccrueTime",
            "StartTime",
            "EndTime",
            "Deadline",
            "PreemptEligibleTime",
            "PreemptTime",
            "SuspendTime",
            "SecsPreSuspend",
            "LastSchedEval",
            "Scheduler",
            "Partition",
            "AllocNode:Sid",
            "ReqNodeList",
            "ExcNodeList",
            "NodeList",
            "SchedNodeList",
            "BatchHost",
            "NumNodes",
            "NumCPUs",
            "NumTasks",
            "CPUs/Task",
            "ReqB:S:C:T",
            "TRES",
            "ReqTRES",
            "AllocTRES",
            "Socks/Node",
            "NtasksPerN:B:S:C",
            "CoreSpec",
            "ThreadSpec",
            "MinCPUsNode",
            "MinMemoryNode",
            "MinMemoryCPU",
            "MinTmpDiskNode",
            "Features",
            "ClusterFeatures",
            "Prefer",
            "DelayBoot",
            "OverSubscribe",
            "Exclusive",
            "Contiguous",
            "Licenses",
            "LicensesAlloc",
            "Network",
            "Command",
            "SubmitLine",
            "WorkDir",
            "StdErr",
            "StdIn",
            "StdOut",
            "Power",
            "Comment",
            "AdminComment",
            "SystemComment",
            "CPU_IDs",
            "Mem",
            "GRES",
            "Nodes",
            "TresPerNode",
            "TresPerTask",
            "TresPerJob",
            "TresPerSocket",
            "MemPerTres",
            "CpusPerTres",
            "TresBind",
            "TresFreq",
            "NtasksPerTRES",
            "MailUser",
            "MailType",
            "Reservation",
            "Container",
            "ContainerID",
            "OOMKillStep",
            "KillOInInvalidDependent",
            "CronJob",
            "CrontabSpec",
            "Extra",
            "ResvPorts",
            "SegmentSize",
            "Switches",
            "Wait-for-Switch",
            "BurstBuffer",
            "BurstBufferState",
            "WCKey",
            "SELinuxContext",
            "StepMgrEnabled",
            "FailedNode",
            "BatchFeatures",
            "ResizeTime",
            "FedOrigin",
            "FedViableSiblings",
            "FedActiveSiblings",
            "JOB_GRES",
            "GresEnforceBind",
            "GresAllowTaskSharing",
            "GresOneTaskPerSharing",
            "SpreadJob",
            "MinMemoryTRES",
            "CPUFreqReq",
            "Profile",
            "MaxNodes",
            "CPUs",
            "ExpeditedRequeue",
            "KillOnInvalidDependent",
            "SLUID",
            "SpreadSegments",
            "ConsolidateSegments");

    /**
     * The order scontrol prints job keys in, the same from 22.05 to 25.11 (read from
     * slurm_sprint_job_info in each release: keys are added, never moved). Keys no release of
     * that span prints in a job record (CPUFreqReq, Profile, MaxNodes, CPUs belong to steps)
     * go last, where they can never end a value that comes before them.
     */
    static final List<String> PRINT_ORDER = List.of(
            "JobId",
            "ArrayJobId",
            "ArrayTaskId",
            "ArrayTaskThrottle",
            "HetJobId",
            "HetJobOffset",
            "JobName",
            "SLUID",
            "HetJobIdSet",
            "UserId",
            "GroupId",
            "MCS_label",
            "Priority",
            "Nice",
            "Account",
            "QOS",
            "WCKey",
            "JobState",
            "Reason",
            "FailedNode",
            "Dependency",
            "Requeue",
            "Restarts",
            "BatchFlag",
            "Reboot",
            "ExitCode",
            "DerivedExitCode",
            "RunTime",
            "TimeLimit",
            "TimeMin",
            "SubmitTime",
            "EligibleTime",
            "AccrueTime",
            "ResizeTime",
            "StartTime",
            "EndTime",
            "Deadline",
            "CronJob",
            "CrontabSpec",
            "PreemptEligibleTime",
            "PreemptTime",
            "SuspendTime",
            "SecsPreSuspend",
            "LastSchedEval",
            "Scheduler",
            "Partition",
            "AllocNode:Sid",
            "ReqNodeList",
            "ExcNodeList",
            "NodeList",
            "SchedNodeList",
            "BatchFeatures",
            "BatchHost",
            "StepMgrEnabled",
            "FedOrigin",
            "FedViableSiblings",
            "FedActiveSiblings",
            "NumNodes",
            "NumCPUs",
            "NumTasks",
            "CPUs/Task",
            "ReqB:S:C:T",
            "TRES",
            "ReqTRES",
            "AllocTRES",
            "Socks/Node",
            "NtasksPerN:B:S:C",
            "CoreSpec",
            "ThreadSpec",
            "JOB_GRES",
            "Nodes",
            "CPU_IDs",
            "Mem",
            "GRES",
            "MinCPUsNode",
            "MinMemoryNode",
            "MinMemoryCPU",
            "MinMemoryTRES",
            "MinTmpDiskNode",
            "Features",
            "DelayBoot",
            "ClusterFeatures",
            "Prefer",
            "Reservation",
            "OverSubscribe",
            "Exclusive",
            "Contiguous",
            "Licenses",
            "LicensesAlloc",
            "Network",
            "Command",
            "SubmitLine",
            "WorkDir",
            "AdminComment",
            "SystemComment",
            "Comment",
            "Extra",
            "StdErr",
            "StdIn",
            "StdOut",
            "SegmentSize",
            "SpreadSegments",
            "ConsolidateSegments",
            "Switches",
            "Wait-for-Switch",
            "BurstBuffer",
            "BurstBufferState",
            "Power",
            "GresAllowTaskSharing",
            "GresEnforceBind",
            "GresOneTaskPerSharing",
            "KillOInInvalidDependent",
            "KillOnInvalidDependent",
            "SpreadJob",
            "ExpeditedRequeue",
            "OOMKillStep",
            "CpusPerTres",
            "MemPerTres",
            "TresBind",
            "TresFreq",
            "TresPerJob",
            "TresPerNode",
            "TresPerSocket",
            "TresPerTask",
            "MailUser",
            "MailType",
            "NtasksPerTRES",
            "Container",
            "ContainerID",
            "SELinuxContext",
            "ResvPorts",
            "CPUFreqReq",
            "Profile",
            "MaxNodes",
            "CPUs");

    static final Set<String> FREE_TEXT_KEYS = Set.of(
            "JobName",
            "Comment",
            "AdminComment",
            "SystemComment",
            "Command",
            "WorkDir",
            "StdErr",
            "StdIn",
            "StdOut",
            "Extra",
            "CrontabSpec",
            "Container",
            "MailUser",
            "SubmitLine");

    /**
     * Every decision reads fields scontrol prints between UserId and Command, where it prints only
     * its own words and values slurmctld validated. The two free-text values before that span
     * are held to the key always printed after them (JobName to UserId, CrontabSpec to
     * SuspendTime); the free-text values after it cannot reach back into it. Command, StdErr and
     * StdIn are held to the key printed after them too (StdErr, StdIn and StdOut come together,
     * for batch jobs; 25.11 prints SubmitLine between Command and WorkDir); the values after
     * WorkDir and StdOut, which nothing here reads, are not.
     */
    static final PrintOrder ORDER = new PrintOrder(
            PRINT_ORDER,
            Map.of(
                    "JobName",
                    "UserId",
                    "CrontabSpec",
                    "SuspendTime",
                    "Command",
                    "WorkDir",
                    "SubmitLine",
                    "WorkDir",
                    "StdErr",
                    "StdIn",
                    "StdIn",
                    "StdOut"),
            Set.of("Nodes", "CPU_IDs", "Mem", "GRES"),
            Set.of("JobId", "JobState"));

    private final KeyValueLineParser lineParser = new KeyValueLineParser(KNOWN_KEYS, FREE_TEXT_KEYS, ORDER);

    /** Every job, or a {@link ParseException} for the first record that cannot be read. */
    public List<Job> parseAll(String output) {
        JobListing listing = readAll(output);
        if (!listing.unreadable().isEmpty()) {
            throw new ParseException(listing.unreadable().get(0).problem(), output);
        }
        return listing.jobs();
    }

    /**
     * Every record, each read on its own. A line that does not start with {@code JobId=} is the
     * rest of the record before it (a value held a line break): both are unreadable. A job id
     * printed twice means a value forged a record: every record with that id is unreadable.
     */
    public JobListing readAll(String output) {
        List<String> records = RecordSplitter.records(output);
        List<Job> read = new ArrayList<>();
        List<JobListing.Unreadable> unreadable = new ArrayList<>();
        Map<String, Integer> printed = new HashMap<>();
        Map<String, String> printedAfter = new HashMap<>();
        Job previous = null;
        for (String record : records) {
            if (!record.startsWith("JobId=")) {
                if (previous != null) {
                    read.remove(previous);
                    unreadable.add(new JobListing.Unreadable(
                            previous.jobId(), "the record goes on past its line: a value holds a line break"));
                }
                unreadable.add(new JobListing.Unreadable(
                        "",
                        "a line that starts with no JobId, the rest of a record" + " whose value holds a line break: \""
                                + ParseException.abbreviate(record) + "\""));
                previous = null;
                continue;
            }
            try {
                Job job = parse(record);
                if (previous != null) {
                    printedAfter.put(job.jobId(), previous.jobId());
                }
                previous = job;
                read.add(previous);
                printed.merge(previous.jobId(), 1, Integer::sum);
            } catch (ParseException e) {
                unreadable.add(new JobListing.Unreadable(leadingJobId(record), e.getMessage()));
                previous = null;
            }
        }
        for (Map.Entry<String, Integer> id : printed.entrySet()) {
            if (id.getValue() > 1) {
                read.removeIf(job -> job.jobId().equals(id.getKey()));
                unreadable.add(new JobListing.Unreadable(
                        id.getKey(),
                        "job " + id.getKey() + " printed " + id.getValue()
                                + " times: a value holds a line break that forged a record"));
            }
        }
        printedAfter.keySet().removeIf(id -> printed.getOrDefault(id, 0) > 1);
        return new JobListing(read, unreadable, printedAfter);
    }

    /** The digits after a leading {@code JobId=}, which scontrol writes before any user text. */
    private static String leadingJobId(String record) {
        int end = "JobId=".length();
        while (end < record.length() && Character.isDigit(record.charAt(end))) {
            end++;
        }
        return record.startsWith("JobId=") ? record.substring("JobId=".length(), end) : "";
    }

    public Job parse(String line) {
        Map<String, String> raw = lineParser.parse(line);
        Fields f = new Fields(raw, line);
        String userField = f.text("UserId");
        return new Job(
                f.jobId("JobId"),
                f.text("JobName"),
                Fields.nameOf(userField),
                Fields.idOf(userField),
                JobState.parse(f.required("JobState")),
                f.text("Reason"),
                f.text("NodeList"),
                f.integer("NumNodes").orElse(0),
                f.optional("BatchHost"),
                f.text("ExcNodeList"),
                f.text("ReqNodeList"),
                f.text("Partition"),
                f.integer("Restarts").orElse(0),
                f.integer("Requeue").orElse(0) != 0,
                f.integer("BatchFlag").orElse(0) != 0,
                Job.ExitCode.parse(raw.get("ExitCode")),
                SlurmTime.parse(raw.get("StartTime")),
                SlurmTime.parse(raw.get("EndTime")),
                SlurmTime.parse(raw.get("SubmitTime")),
                SlurmTime.parse(raw.get("ResizeTime")),
                f.text("Dependency"),
                overSubscribe(f),
                f.text("Licenses"),
                f.optional("ArrayJobId"),
                f.optional("HetJobId"),
                f.text("ExpeditedRequeue").equalsIgnoreCase("yes"),
                tres(f),
                new Job.TresPer(
                        f.text("TresPerJob"), f.text("TresPerNode"), f.text("TresPerSocket"), f.text("TresPerTask")),
                raw);
    }

    /**
     * Whether the job shares its nodes, in the words releases up to 25.11 print as
     * {@code OverSubscribe}: {@code OK} (it may), {@code NO} (whole nodes), {@code USER},
     * {@code MCS}, {@code YES}, {@code FORCE}... 26.05 prints node exclusivity apart, as
     * {@code Exclusive} ({@code NO}, {@code NODE}, or the {@code --exclusive=} word), and its
     * {@code OverSubscribe} then says only whether resources are oversubscribed ({@code NO} for
     * an exclusive job and a shared one alike, captured): read together they give the old word,
     * as the JSON's whole-node allocation does.
     */
    private static String overSubscribe(Fields f) {
        String overSubscribe = f.text("OverSubscribe");
        Optional<String> exclusive = f.optional("Exclusive");
        if (exclusive.isEmpty()) {
            return overSubscribe;
        }
        String word = exclusive.get().toUpperCase(Locale.ROOT);
        if (word.equals("NODE")) {
            return "NO";
        }
        if (!word.equals("NO")) {
            return word;
        }
        return overSubscribe.equalsIgnoreCase("NO") ? "OK" : overSubscribe;
    }

    /**
     * 22.05 prints one {@code TRES}: the allocation, or the request while nothing is allocated.
     * 23.02 split it into {@code ReqTRES} and {@code AllocTRES}; the same rule joins them again.
     */
    private static String tres(Fields f) {
        return f.optional("AllocTRES")
                .or(() -> f.optional("ReqTRES"))
                .or(() -> f.optional("TRES"))
                .orElse("");
    }
}
