package org.slurmautoresume.nodeops.health;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.slurmautoresume.nodeops.xid.XidCatalog;
import org.slurmautoresume.nodeops.xid.XidEvent;
import org.slurmautoresume.nodeops.xid.XidParser;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.parse.ParseException;

/**
 * NVIDIA GPUs through nvidia-smi and the kernel log: the GPU count against the expected one,
 * uncorrected ECC errors, pending page retirement, row-remap pending/failure, and the Xid codes
 * the driver logged since boot (classified by {@link XidCatalog}).
 */
public final class GpuCheck implements HealthCheck {

    public static final String NAME = "gpu";
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final boolean kernelLog;

    /** nvidia-smi and the kernel log's Xids since boot: the one-shot check. */
    public GpuCheck() {
        this(true);
    }

    private GpuCheck(boolean kernelLog) {
        this.kernelLog = kernelLog;
    }

    /**
     * nvidia-smi only: for a caller that follows the kernel log's Xids as they appear (the agent)
     * and must not act again on one logged before it started.
     */
    public static GpuCheck smiOnly() {
        return new GpuCheck(false);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "nvidia-smi: GPU count, uncorrected ECC, retired pages, remapped rows; Xid errors in the kernel log";
    }

    @Override
    public CheckResult run(HealthContext context) {
        Optional<Path> smi = context.tool("nvidia-smi");
        if (smi.isEmpty()) {
            return CheckResult.skipped(NAME, "nvidia-smi is not on PATH (no NVIDIA driver here)");
        }
        List<Finding> findings = new ArrayList<>();
        CommandResult query = context.run(
                smi.get(),
                List.of("--query-gpu=" + NvidiaSmiParser.GPU_FIELDS, "--format=csv,noheader,nounits"),
                TIMEOUT);
        if (!query.succeeded()) {
            // A hung or failing nvidia-smi is the classic sign of a wedged driver or GPU.
            findings.add(
                    Finding.fault(HealthAction.REBOOT, "nvidia-smi failed: " + HealthContext.describeFailure(query)));
            addXids(context, findings);
            return CheckResult.of(NAME, findings, "");
        }
        List<GpuStatus> gpus;
        try {
            gpus = NvidiaSmiParser.gpus(query.stdout());
        } catch (ParseException e) {
            findings.add(Finding.fault(HealthAction.NONE, "unreadable nvidia-smi output: " + e.getMessage()));
            return CheckResult.of(NAME, findings, "");
        }
        compareCount(context.expectedGpus(), gpus.size(), findings);
        Map<String, Integer> indexByBus = new HashMap<>();
        for (GpuStatus gpu : gpus) {
            indexByBus.put(gpu.busId().toLowerCase(Locale.ROOT), gpu.index());
            gpu.uncorrectedEccVolatile().ifPresent(count -> {
                if (count > 0) {
                    findings.add(Finding.fault(
                            HealthAction.REBOOT,
                            "GPU " + gpu.index() + " (" + gpu.busId() + "): " + count
                                    + " uncorrected ECC errors since the last driver load"));
                }
            });
            if (gpu.retiredPagesPending().orElse(false)) {
                findings.add(Finding.fault(
                        HealthAction.REBOOT,
                        "GPU " + gpu.index() + " (" + gpu.busId()
                                + "): page retirement pending, takes effect after a GPU reset"));
            }
        }
        addRemaps(context, smi.get(), indexByBus, findings);
        addXids(context, findings);
        return CheckResult.of(NAME, findings, gpus.size() + " GPU(s) healthy");
    }

    private static void compareCount(OptionalInt expected, int found, List<Finding> findings) {
        if (expected.isEmpty()) {
            findings.add(Finding.note(found + " GPU(s) found; expected count unknown (no --expected-gpus, no gpu Gres"
                    + " from Slurm), not compared"));
        } else if (found < expected.getAsInt()) {
            findings.add(
                    Finding.fault(HealthAction.REPLACE, "found " + found + " GPU(s), expected " + expected.getAsInt()));
        } else {
            findings.add(Finding.note(found + " GPU(s) found, " + expected.getAsInt() + " expected"));
        }
    }

    private static void addRemaps(
            HealthContext context, Path smi, Map<String, Integer> indexByBus, List<Finding> findings) {
        CommandResult result = context.run(
                smi,
                List.of("--query-remapped-rows=" + NvidiaSmiParser.REMAP_FIELDS, "--format=csv,noheader,nounits"),
                TIMEOUT);
        if (!result.succeeded()) {
            // Pre-Ampere GPUs and old drivers have no row remapper; page retirement covers them.
            findings.add(Finding.note("row remapper not read: " + HealthContext.describeFailure(result)));
            return;
        }
        List<RowRemapStatus> remaps;
        try {
            remaps = NvidiaSmiParser.remaps(result.stdout());
        } catch (ParseException e) {
            findings.add(Finding.note("row remapper answer not understood: " + e.getMessage()));
            return;
        }
        for (RowRemapStatus remap : remaps) {
            Integer index = indexByBus.get(remap.busId().toLowerCase(Locale.ROOT));
            String gpu = "GPU " + (index == null ? "?" : index) + " (" + remap.busId() + ")";
            if (remap.failure().orElse(false)) {
                findings.add(
                        Finding.fault(HealthAction.REPLACE, gpu + ": row remapping failed, memory cannot be repaired"));
            } else if (remap.pending().orElse(false)) {
                findings.add(Finding.fault(HealthAction.REBOOT, gpu + ": row remapping pending, needs a GPU reset"));
            }
        }
    }

    static HealthAction action(XidCatalog.XidClass xidClass) {
        return switch (xidClass) {
            case RESET -> HealthAction.REBOOT;
            case ISOLATE -> HealthAction.REPLACE;
            case APPLICATION, UNKNOWN -> HealthAction.NONE;
        };
    }

    private void addXids(HealthContext context, List<Finding> findings) {
        if (!kernelLog) {
            return;
        }
        KernelLog.Reading log = KernelLog.read(context);
        if (log.text().isEmpty()) {
            findings.add(Finding.note("Xid errors not checked, kernel log unreadable: " + log.source()));
            return;
        }
        // One finding per (code, device), with a count: a flapping GPU logs the same Xid thousands of times.
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, XidEvent> first = new HashMap<>();
        for (XidEvent event : XidParser.parse(log.text().get())) {
            String key = event.code() + "@" + event.device();
            counts.merge(key, 1, Integer::sum);
            first.putIfAbsent(key, event);
        }
        if (counts.isEmpty()) {
            findings.add(Finding.note("no Xid errors in " + log.source()));
        }
        for (Map.Entry<String, Integer> entry : counts.entrySet()) {
            XidEvent event = first.get(entry.getKey());
            XidCatalog.XidClass xidClass = XidCatalog.classify(event);
            String text = XidCatalog.describe(event) + (entry.getValue() > 1 ? ", " + entry.getValue() + " times" : "")
                    + " [" + xidClass.name().toLowerCase(Locale.ROOT) + "-class]";
            findings.add(xidClass.isFault() ? Finding.fault(action(xidClass), text) : Finding.note(text));
        }
    }
}
