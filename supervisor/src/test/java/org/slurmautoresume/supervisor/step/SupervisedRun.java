package org.slurmautoresume.supervisor.step;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slurmautoresume.slurm.probe.NodeProber;
import org.slurmautoresume.supervisor.config.AutoresumeConfig;
import org.slurmautoresume.supervisor.step.record.EventHistory;
import org.slurmautoresume.supervisor.step.record.JobStateDirectory;
import org.slurmautoresume.supervisor.step.record.SupervisorLog;
import org.slurmautoresume.supervisor.step.settings.SupervisorSettings;

/**
 * One supervised srun of job 42 in a test: the fake cluster, the fake agent, a scripted srun,
 * the supervisor's stderr and the job's timeline. Only the boundaries are fakes; every part of
 * the supervisor is the real one.
 */
public final class SupervisedRun implements AutoCloseable {

    static final List<String> ARGV = List.of("srun", "-N2", "train.sh");

    final Path dir;
    public final FakeSlurm slurm;
    public final FakeAgent agent;
    final Map<String, String> environment = new HashMap<>();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    /** Which nodes' slurmd does not answer; empty: all answer. */
    public final List<String> silentSlurmd = new ArrayList<>();
    /** How nodes are probed; null: by {@link #silentSlurmd}. */
    private NodeProber prober;

    public SupervisedRun(Path dir, FakeSlurm slurm) throws IOException {
        this.dir = dir;
        this.slurm = slurm;
        this.agent = new FakeAgent(dir.resolve("agent.sock"));
        environment.put("SLURM_JOB_ID", FakeSlurm.JOB);
        environment.put("USER", "tester");
        environment.put("TMPDIR", dir.toString());
        environment.put("AUTORESUME_AGENT_SOCKET", agent.socket().toString());
    }

    /** Nodes probed by {@code prober} (a real LivenessProber for the agents' verdicts) instead. */
    SupervisedRun probedBy(NodeProber prober) {
        this.prober = prober;
        return this;
    }

    public SupervisedRun with(String name, String value) {
        environment.put(name, value);
        return this;
    }

    public int run(ScriptedSrun srun) throws InterruptedException {
        return run(srun, Optional.empty());
    }

    public int run(ScriptedSrun srun, Optional<AutoresumeConfig> config) throws InterruptedException {
        return run(srun, config, ARGV);
    }

    public int run(ScriptedSrun srun, Optional<AutoresumeConfig> config, List<String> argv)
            throws InterruptedException {
        PrintStream stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        NodeProber prober = this.prober != null
                ? this.prober
                : node -> silentSlurmd.contains(node.name()) ? Optional.of("connection refused") : Optional.empty();
        StepSupervisor supervisor = new StepSupervisor(
                slurm.client(),
                slurm,
                SupervisorSettings.fromEnvironment(environment),
                config,
                environment,
                new SupervisorLog(stderr, FakeSlurm.JOB),
                srun,
                () -> prober);
        return supervisor.run(argv);
    }

    /** What the supervisor said on stderr. */
    public String said() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** The supervisor's per-job directory under this run's TMPDIR. */
    Path stateDir() {
        return JobStateDirectory.locate(Map.of("TMPDIR", dir.toString()), JobStateDirectory.uid());
    }

    public List<EventHistory.Event> timeline() throws IOException {
        Path file = EventHistory.fileFor(stateDir(), "tester", FakeSlurm.JOB);
        List<String> skipped = new ArrayList<>();
        return Files.exists(file) ? EventHistory.read(file, skipped) : List.of();
    }

    List<String> timelineWords() throws IOException {
        return timeline().stream().map(EventHistory.Event::event).toList();
    }

    @Override
    public void close() throws IOException {
        agent.close();
    }
}
