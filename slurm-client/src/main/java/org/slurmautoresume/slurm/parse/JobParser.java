package org.slurmautoresume.slurm.parse;


import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobState;
import org.slurmautoresume.slurm.model.SlurmTime;

/** Parses {@code scontrol -o show job} output (Slurm 22.05 to 25.05): one job per line. */
public final class JobParser {

    /**
     * Every job key printed by Slurm 22.05 through 25.05 (slurm_sprint_job_info, moved into
     * scontrol's info_job.c in 24.11). 23.02 replaced TRES with ReqTRES/AllocTRES and added
     * FailedNode, Extra and ContainerID; 23.11 the GresAllowTaskSharing/GresOneTaskPerSharing
     * flags; 24.05 StepMgrEnabled and ResvPorts (and dropped Power); 24.11 OOMKillStep and
     * MinMemoryTRES; 25.05 LicensesAlloc and SegmentSize; 25.11 ExpeditedRequeue (read from
     * its source: printed as ExpeditedRequeue=Yes for a job submitted with --requeue=expedite).
     */
    static final Set<String> KNOWN_KEYS = Set.of(
            "JobId", "ArrayJobId", "ArrayTaskId", "ArrayTaskThrottle", "HetJobId", "HetJobOffset",
            "HetJobIdSet", "JobName", "UserId", "GroupId", "MCS_label", "Priority", "Nice", "Account",
            "QOS", "JobState", "Reason", "Dependency", "Requeue", "Restarts", "BatchFlag", "Reboot",
            "ExitCode", "DerivedExitCode", "RunTime", "TimeLimit", "TimeMin", "SubmitTime",
            "EligibleTime", "AccrueTime", "StartTime", "EndTime", "Deadline", "PreemptEligibleTime",
            "PreemptTime", "SuspendTime", "SecsPreSuspend", "LastSchedEval", "Scheduler", "Partition",
            "AllocNode:Sid", "ReqNodeList", "ExcNodeList", "NodeList", "SchedNodeList", "BatchHost",
            "NumNodes", "NumCPUs", "NumTasks", "CPUs/Task", "ReqB:S:C:T", "TRES", "ReqTRES", "AllocTRES",
            "Socks/Node", "NtasksPerN:B:S:C", "CoreSpec", "ThreadSpec", "MinCPUsNode", "MinMemoryNode",
            "MinMemoryCPU", "MinTmpDiskNode", "Features", "ClusterFeatures", "Prefer", "DelayBoot",
            "OverSubscribe", "Contiguous", "Licenses", "LicensesAlloc", "Network", "Command", "WorkDir",
            "StdErr", "StdIn", "StdOut", "Power", "Comment", "AdminComment", "SystemComment",
            "CPU_IDs", "Mem", "GRES", "Nodes", "TresPerNode", "TresPerTask", "TresPerJob",
            "TresPerSocket", "MemPerTres", "CpusPerTres", "TresBind", "TresFreq", "NtasksPerTRES",
            "MailUser", "MailType", "Reservation", "Container", "ContainerID", "OOMKillStep",
            "KillOInInvalidDependent", "CronJob", "CrontabSpec", "Extra", "ResvPorts",
            "SegmentSize", "Switches", "Wait-for-Switch", "BurstBuffer", "BurstBufferState",
            "WCKey", "SELinuxContext", "StepMgrEnabled", "FailedNode", "BatchFeatures", "ResizeTime",
            "FedOrigin", "FedViableSiblings", "FedActiveSiblings", "JOB_GRES", "GresEnforceBind",
            "GresAllowTaskSharing", "GresOneTaskPerSharing", "SpreadJob", "MinMemoryTRES",
            "CPUFreqReq", "Profile", "MaxNodes", "CPUs", "ExpeditedRequeue");

    static final Set<String> FREE_TEXT_KEYS = Set.of(
            "JobName", "Comment", "AdminComment", "SystemComment", "Command", "WorkDir", "StdErr",
            "StdIn", "StdOut", "Extra", "CrontabSpec", "Container", "MailUser");

    private final KeyValueLineParser lineParser = new KeyValueLineParser(KNOWN_KEYS, FREE_TEXT_KEYS);

    public List<Job> parseAll(String output) {
        List<Job> jobs = new ArrayList<>();
        for (String record : RecordSplitter.records(output)) {
            jobs.add(parse(record));
        }
        return jobs;
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
                raw);
    }
}
