package org.slurmautoresume.e2e;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.exec.CommandRequest;
import org.slurmautoresume.slurm.exec.CommandResult;
import org.slurmautoresume.slurm.exec.CommandRunner;
import org.slurmautoresume.slurm.exec.CommonsExecCommandRunner;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.Node;

/**
 * The local Slurm cluster brought up by {@code local-cluster/local-cluster.sh up}.
 * Found through its {@code cluster.env}; when it is missing the tests are skipped on a
 * developer's machine and fail in CI ({@code CI=true}).
 *
 * <p>The cluster has a shape: {@code gpu} (GRES and PrologFlags=Contain, the default, what
 * production training clusters look like) or {@code cpu-only} (where job expansion works).
 * Each failsafe execution names the shape its tests need in the system property
 * {@value #SHAPE_PROPERTY}; classes and methods tagged {@value #CPU_ONLY} run in the
 * cpu-only execution. When the running cluster has the other shape, {@link #get()} brings it
 * up again in the wanted one, with the node count, timeouts and accounting it had.
 */
final class LocalCluster {

    /** The JUnit tag of tests of the expansion path, which Slurm refuses on the GPU shape. */
    static final String CPU_ONLY = "cpu-only";

    /**
     * The JUnit tag of tests that bring the cluster up with many more slurmd for themselves
     * ({@link #withNodes}): they run in an execution of their own, last, so the cluster is
     * brought up large once.
     */
    static final String LARGE_STEP = "large-step";

    /**
     * The JUnit tag of tests that run on the oldest release only (e2e/pom.xml's newer-release
     * profile leaves them out for time): another test of the same class meets the newer release.
     */
    static final String OLDEST_RELEASE = "oldest-release";

    static final String SHAPE_PROPERTY = "autoresume.cluster.shape";
    private static final Duration RESHAPE_TIMEOUT = Duration.ofSeconds(240);

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final AtomicInteger SCRIPT_COUNTER = new AtomicInteger();
    private static LocalCluster instance;

    private final Map<String, String> env;
    private final Path repo;
    private final CommandRunner runner = new CommonsExecCommandRunner();
    private final Path launcher;

    private LocalCluster(Map<String, String> env, Path repo) {
        this.env = env;
        this.repo = repo;
        this.launcher = installDistribution();
    }

    /** Set to 1 by scripts/test.sh: a cluster that is not up fails the tests instead of skipping them. */
    static final String REQUIRE_CLUSTER = "AR_E2E_REQUIRE_CLUSTER";

    /** The running cluster, or a skipped (developer) / failed (CI, scripts/test.sh) test. */
    static synchronized LocalCluster get() {
        if (instance != null) {
            return instance;
        }
        String dir = Optional.ofNullable(System.getenv("AR_CLUSTER_DIR")).orElse("/var/tmp/autoresume-cluster");
        Path envFile = Path.of(dir, "cluster.env");
        String problem = null;
        Map<String, String> values = new HashMap<>();
        if (!Files.isReadable(envFile)) {
            problem =
                    "no local Slurm cluster: " + envFile + " is missing (run: sudo local-cluster/local-cluster.sh up)";
        } else {
            values = readEnvFile(envFile);
        }
        Path repo = Path.of(System.getProperty("autoresume.repo", "."))
                .toAbsolutePath()
                .normalize();
        if (problem == null) {
            problem = reshapeIfNeeded(values, repo, dir);
            if (problem == null) {
                values = readEnvFile(envFile);
            }
        }
        if (problem == null) {
            CommandResult status = new CommonsExecCommandRunner()
                    .run(new CommandRequest(
                            List.of(
                                    repo.resolve("local-cluster/local-cluster.sh")
                                            .toString(),
                                    "status"),
                            COMMAND_TIMEOUT,
                            Map.of("AR_CLUSTER_DIR", dir)));
            if (!status.succeeded()) {
                problem = "the local Slurm cluster is not fully up:\n" + status.stdout() + status.stderr();
            }
        }
        if (problem != null) {
            // scripts/test.sh brings the cluster up itself and says so: there a missing cluster
            // is a failure, never a class of tests quietly left out (an aborted class counts as
            // no tests at all). A developer's `mvn verify` without a cluster skips them.
            if ("true".equalsIgnoreCase(System.getenv("CI")) || "1".equals(System.getenv(REQUIRE_CLUSTER))) {
                fail(problem);
            }
            Assumptions.abort(problem);
        }
        instance = new LocalCluster(values, repo);
        Plugstack.removeLeftovers(instance);
        return instance;
    }

    /**
     * Brings the cluster up in the shape this execution asked for when it runs in the other
     * one: a changed configuration restarts it with fresh slurmctld state, so the suite orders
     * its executions to reshape once. Returns a problem, or null.
     */
    private static String reshapeIfNeeded(Map<String, String> values, Path repo, String dir) {
        String wanted = System.getProperty(SHAPE_PROPERTY, "gpu");
        // A cluster.env written before shapes existed describes a CPU-only cluster.
        String running = values.getOrDefault("AR_CLUSTER_SHAPE", CPU_ONLY);
        if (wanted.equals(running)) {
            return null;
        }
        if (!wanted.equals("gpu") && !wanted.equals(CPU_ONLY)) {
            return SHAPE_PROPERTY + " must be gpu or " + CPU_ONLY + ": '" + wanted + "'";
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return "these tests need the " + wanted + " cluster shape, the running one is " + running
                    + ": run as root, or: sudo local-cluster/local-cluster.sh up "
                    + (wanted.equals("gpu") ? "" : "--cpu-only");
        }
        List<String> argv = upArgv(values, repo, wanted, "1".equals(values.get("AR_BACKUP_CONTROLLER")));
        CommandResult up = new CommonsExecCommandRunner()
                .run(new CommandRequest(argv, RESHAPE_TIMEOUT, Map.of("AR_CLUSTER_DIR", dir)));
        if (!up.succeeded()) {
            return "could not bring the local cluster up in the " + wanted + " shape (" + String.join(" ", argv)
                    + "):\n" + up.stdout() + up.stderr();
        }
        System.out.println("local cluster reshaped from " + running + " to " + wanted + " for these tests");
        return null;
    }

    /** {@code local-cluster.sh up} with the options the cluster described by {@code values} had, in {@code shape}. */
    private static List<String> upArgv(Map<String, String> values, Path repo, String shape, boolean backupController) {
        return upArgv(values, repo, shape, backupController, values.getOrDefault("AR_NODE_COUNT", "4"));
    }

    /** As {@link #upArgv(Map, Path, String, boolean)}, with {@code nodes} slurmd. */
    private static List<String> upArgv(
            Map<String, String> values, Path repo, String shape, boolean backupController, String nodes) {
        List<String> argv = new ArrayList<>(List.of(
                repo.resolve("local-cluster/local-cluster.sh").toString(),
                "up",
                "--nodes",
                nodes,
                "--slurmd-timeout",
                values.getOrDefault("AR_SLURMD_TIMEOUT", "300"),
                "--cpus",
                values.getOrDefault("AR_CPUS_PER_NODE", "4")));
        if (shape.equals("gpu")) {
            String gpus = values.getOrDefault("AR_GPUS_PER_NODE", "0");
            argv.addAll(List.of("--gpus", gpus.equals("0") ? "4" : gpus));
        } else {
            argv.add("--cpu-only");
        }
        if ("1".equals(values.get("AR_POWER_SAVE"))) {
            argv.add("--power-save");
        }
        if ("0".equals(values.get("AR_ACCOUNTING"))) {
            argv.add("--no-accounting");
        }
        if (backupController) {
            argv.add("--backup-controller");
        }
        return argv;
    }

    /**
     * Makes the cluster run a backup slurmctld ({@code up --backup-controller}, with every other
     * option as it was): a changed configuration restarts the cluster afresh, once; later classes
     * keep the backup, which stands by unless a test fails the primary over.
     */
    void ensureBackupController() {
        if ("1".equals(env.get("AR_BACKUP_CONTROLLER"))) {
            return;
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            fail(
                    "these tests need a backup controller: run as root, or: sudo local-cluster/local-cluster.sh up --backup-controller");
        }
        upAgain(upArgv(env, repo, env.getOrDefault("AR_CLUSTER_SHAPE", "gpu"), true));
    }

    Path repo() {
        return repo;
    }

    Path clusterDir() {
        return Path.of(env.get("AR_CLUSTER_DIR"));
    }

    Path plugstackDir() {
        return Path.of(env.get("AR_PLUGSTACK_DIR"));
    }

    /** The SPANK plugins built for the cluster's Slurm release (they load in no other one). */
    Path spankBuildDir() {
        String built = env.get("AR_SPANK_BUILD_DIR");
        return built == null || built.isBlank() ? repo.resolve("spank-shim").resolve("build") : Path.of(built);
    }

    String testUser() {
        return env.get("AR_TEST_USER");
    }

    /** A second ordinary user, for jobs that share nodes with the test user's. */
    String otherUser() {
        String user = env.get("AR_OTHER_USER");
        if (user == null || user.isBlank()) {
            throw new AssertionError("cluster.env names no AR_OTHER_USER: bring the cluster up again with this"
                    + " checkout's local-cluster.sh");
        }
        return user;
    }

    Path jobsDir() {
        return Path.of(env.get("AR_JOBS_DIR"));
    }

    String partition() {
        return env.get("AR_PARTITION");
    }

    List<String> nodeNames() {
        return slurm().nodes().stream().map(n -> n.name()).toList();
    }

    /** The launcher, copied where the test user can run it. */
    Path launcher() {
        return launcher;
    }

    SlurmClient slurm() {
        return new SlurmClient(runner);
    }

    /** The node as Slurm has it now; a name Slurm does not know fails the test. */
    Node node(String name) {
        return slurm().node(name).orElseThrow(() -> new AssertionError("no node " + name));
    }

    CommandResult run(List<String> argv) {
        return runner.run(new CommandRequest(argv, COMMAND_TIMEOUT, Map.of()));
    }

    /** Runs a command as the ordinary test user (when the tests run as root). */
    CommandResult runAsTestUser(List<String> argv) {
        return run(asTestUser(argv));
    }

    /** The request as the test user, keeping its own timeout and environment. */
    CommandResult runAsTestUser(CommandRequest request) {
        return runner.run(new CommandRequest(asTestUser(request.argv()), request.timeout(), request.environment()));
    }

    List<String> asTestUser(List<String> argv) {
        if (!"root".equals(System.getProperty("user.name"))) {
            return argv;
        }
        return asUser(testUser(), argv);
    }

    /** Runs a command as the second ordinary user; the tests must run as root to have one. */
    CommandResult runAsOtherUser(List<String> argv) {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new AssertionError("a second user's command needs the tests to run as root");
        }
        return run(asUser(otherUser(), argv));
    }

    private static List<String> asUser(String user, List<String> argv) {
        List<String> wrapped = new ArrayList<>(List.of("runuser", "-u", user, "--"));
        wrapped.addAll(argv);
        return wrapped;
    }

    /**
     * Submits a batch script as the second ordinary user, its output discarded (the jobs
     * directory is the test user's); returns the job id.
     */
    String submitAsOtherUser(String script, List<String> sbatchOptions) {
        Path file = writeJobsFile(
                "other-" + ProcessHandle.current().pid() + "-" + SCRIPT_COUNTER.incrementAndGet() + ".sh",
                script,
                "rwxr-xr-x");
        List<String> argv = new ArrayList<>(List.of("sbatch", "--parsable", "--output=/dev/null", "--chdir=/tmp"));
        argv.addAll(sbatchOptions);
        argv.add(file.toString());
        CommandResult result = runAsOtherUser(argv);
        if (!result.succeeded()) {
            throw new AssertionError("sbatch as " + otherUser() + " failed: " + result.stderr() + result.stdout());
        }
        String jobId = result.stdout().strip().split(";")[0];
        StaleSchedulerState.watch(this, jobId);
        return jobId;
    }

    /**
     * Submits a batch script as the test user. The script's output goes to
     * {@code jobs/<jobid>.out}; returns the job id.
     */
    String submit(String script, List<String> sbatchOptions) {
        Path file = writeJobsFile(
                "test-" + ProcessHandle.current().pid() + "-" + SCRIPT_COUNTER.incrementAndGet() + ".sh",
                script,
                "rwxr-xr-x");
        List<String> argv = new ArrayList<>(
                List.of("sbatch", "--parsable", "--output=" + jobsDir().resolve("%j.out"), "--chdir=" + jobsDir()));
        argv.addAll(sbatchOptions);
        argv.add(file.toString());
        CommandResult result = runAsTestUser(argv);
        if (!result.succeeded()) {
            throw new AssertionError("sbatch failed: " + result.stderr() + result.stdout());
        }
        String jobId = result.stdout().strip().split(";")[0];
        StaleSchedulerState.watch(this, jobId);
        return jobId;
    }

    /** The Slurm release the cluster runs ({@code up --slurm}): 22.05 unless said otherwise. */
    String release() {
        return env.getOrDefault("AR_SLURM_RELEASE", "22.05");
    }

    /** A file in the jobs directory with the given permissions, so the test user's jobs can read it. */
    Path writeJobsFile(String name, String text, String permissions) {
        Path file = jobsDir().resolve(name);
        try {
            Files.writeString(file, text);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    Job waitForJob(String jobId, String what, Duration timeout, java.util.function.Predicate<Job> condition) {
        return Wait.until(
                "job " + jobId + " " + what, timeout, () -> slurm().job(jobId).filter(condition));
    }

    Job waitForJobEnd(String jobId, Duration timeout) {
        return waitForJob(jobId, "to finish", timeout, job -> job.state().isFinished());
    }

    String jobOutput(String jobId) {
        try {
            return Files.readString(jobsDir().resolve(jobId + ".out"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Fault injection: the node's slurmd and its share of every running step die at once. */
    CommandResult killNode(String node) {
        return clusterScript("kill-node", node);
    }

    /** Fault injection: the driver reports Xid {@code xid} on {@code node}'s GPU, in that node's kernel log. */
    CommandResult gpuFault(String node, int xid) {
        return clusterScript("gpu-fault", node, Integer.toString(xid));
    }

    /**
     * Fault injection: the cluster's HealthCheckProgram, a stand-in for LBNL NHC that slurmd runs
     * every 5 s, fails {@code node}'s check and drains it as NHC does: reason {@code NHC: message}.
     */
    CommandResult nhcFail(String node, String message) {
        return clusterScript("nhc-fail", node, message);
    }

    /** {@code node}'s stand-in NHC check passes again (a node it drained returns to service). */
    CommandResult nhcPass(String node) {
        return clusterScript("nhc-pass", node);
    }

    /** Fault injection: the step tasks on {@code node} are killed; the node and its daemons stay up. */
    CommandResult crashTask(String node) {
        return clusterScript("crash-task", node);
    }

    /**
     * As {@link #crashTask(String)}, where the step may have ended already: the supervisor may
     * have acted on the node's fault before the task was killed. Whether a task was there.
     */
    boolean crashTaskIfRunning(String node) {
        try {
            crashTask(node);
            return true;
        } catch (AssertionError e) {
            if (e.getMessage().contains("crash-task: no step task runs on " + node)) {
                return false;
            }
            throw e;
        }
    }

    /** As {@link #crashTask(String)}, for one job's steps, found without slurmctld (it may be away). */
    CommandResult crashTask(String node, String jobId) {
        return clusterScript("crash-task", node, "--job", jobId);
    }

    /** Fault injection: every process of {@code node}, its bound agent included, stops (SIGSTOP) and stays stopped. */
    CommandResult freezeNode(String node) {
        return clusterScript("freeze-node", node);
    }

    /** Fault injection: every task of the job's steps stops (SIGSTOP), on all its nodes; nodes and daemons stay up. */
    CommandResult hangStep(String jobId) {
        return clusterScript("hang-step", jobId);
    }

    /** Fault injection: the node's slurmd alone stops (SIGSTOP); its steps, tasks and agent go on. */
    CommandResult freezeSlurmd(String node) {
        return clusterScript("freeze-slurmd", node);
    }

    /** Continues what {@link #freezeNode} or {@link #freezeSlurmd} stopped. */
    CommandResult thawNode(String node) {
        return clusterScript("thaw-node", node);
    }

    /** Fault injection: every packet to or from the node's address is dropped; its processes run on. */
    CommandResult cutNetwork(String node) {
        return clusterScript("cut-network", node);
    }

    /** Lifts what {@link #cutNetwork} did. */
    CommandResult restoreNetwork(String node) {
        return clusterScript("restore-network", node);
    }

    /** The node's simulated kernel log, which a per-node agent follows ({@code --xid-source}). */
    Path kernelLog(String node) {
        return Path.of(clusterScript("kernel-log", node).stdout().strip());
    }

    /** The directory of the node's stand-in nvidia-smi and dcgmi, for an agent's {@code --gpu-tools}. */
    Path gpuTools(String node) {
        return Path.of(clusterScript("gpu-tools", node).stdout().strip());
    }

    /** The node's stand-in nvidia-smi forgets what {@link #gpuFault} injected. */
    CommandResult gpuRepair(String node) {
        return clusterScript("gpu-repair", node);
    }

    /** Something run against the cluster that may throw, for {@link #withSlurmdTimeout} and {@link #withMinJobAge}. */
    interface ClusterAction {
        void run() throws Exception;
    }

    /**
     * Runs {@code action} while slurmctld uses the given SlurmdTimeout, then restores the one the
     * cluster was started with (300 s): for tests of slurmctld's own not-responding verdict,
     * which would otherwise take over five minutes to come.
     */
    void withSlurmdTimeout(int seconds, ClusterAction action) throws Exception {
        String configured = env.get("AR_SLURMD_TIMEOUT");
        clusterScript("set-slurmd-timeout", Integer.toString(seconds));
        try {
            action.run();
        } finally {
            clusterScript("set-slurmd-timeout", configured);
        }
    }

    /**
     * Runs {@code action} while slurmctld keeps ended jobs' records {@code seconds} (MinJobAge),
     * then restores Slurm's default the cluster was started with (300 s): for tests that wait for
     * slurmctld's own purge of a record.
     */
    void withMinJobAge(int seconds, ClusterAction action) throws Exception {
        clusterScript("set-min-job-age", Integer.toString(seconds));
        try {
            action.run();
        } finally {
            clusterScript("set-min-job-age", "300");
        }
    }

    /**
     * Runs {@code action} while the cluster runs its own agent on every node ({@code up --agents},
     * every other option as it was), then takes them down again with an {@code up} without it:
     * the other tests start agents of their own on the same ports.
     */
    void withAgents(ClusterAction action) throws Exception {
        String shape = env.getOrDefault("AR_CLUSTER_SHAPE", "gpu");
        boolean backup = "1".equals(env.get("AR_BACKUP_CONTROLLER"));
        List<String> withAgents = new ArrayList<>(upArgv(env, repo, shape, backup));
        withAgents.add("--agents");
        upAgain(withAgents);
        try {
            action.run();
        } finally {
            upAgain(upArgv(env, repo, shape, backup));
        }
    }

    /**
     * Runs {@code action} while the cluster runs {@code nodes} slurmd ({@code up --nodes}, every
     * other option as it was), then brings it back to the count it had: the other tests name
     * node1 to node4 and expect no other idle node.
     */
    void withNodes(int nodes, ClusterAction action) throws Exception {
        String shape = env.getOrDefault("AR_CLUSTER_SHAPE", "gpu");
        boolean backup = "1".equals(env.get("AR_BACKUP_CONTROLLER"));
        String before = env.getOrDefault("AR_NODE_COUNT", "4");
        upAgain(upArgv(env, repo, shape, backup, Integer.toString(nodes)));
        try {
            action.run();
        } finally {
            upAgain(upArgv(env, repo, shape, backup, before));
        }
    }

    private void upAgain(List<String> argv) {
        CommandResult up = runner.run(
                new CommandRequest(argv, RESHAPE_TIMEOUT, Map.of("AR_CLUSTER_DIR", env.get("AR_CLUSTER_DIR"))));
        if (!up.succeeded()) {
            throw new AssertionError(String.join(" ", argv) + " failed:\n" + up.stdout() + up.stderr());
        }
        env.putAll(readEnvFile(clusterDir().resolve("cluster.env")));
        if (!argv.contains("--agents")) {
            env.remove("AR_AGENTS");
            env.remove("AR_AGENT_SOCKET");
        }
    }

    /** The value cluster.env gives {@code key}, if it names one. */
    Optional<String> envValue(String key) {
        return Optional.ofNullable(env.get(key));
    }

    /** Control plane outage: the primary slurmctld stops (SIGTERM, state saved); a running backup takes over after SlurmctldTimeout. */
    CommandResult stopController() {
        return clusterScript("stop-controller");
    }

    /** The primary slurmctld starts again from its saved state; returns once it serves requests. */
    CommandResult startController() {
        return clusterScript("start-controller", "--timeout", "90");
    }

    /** The primary slurmctld is killed (SIGKILL); returns once the backup serves requests ({@link #ensureBackupController}). */
    CommandResult failOver() {
        return clusterScript("fail-over", "--timeout", "90");
    }

    /** Accounting outage: slurmdbd stops. */
    CommandResult stopDbd() {
        return clusterScript("stop-dbd");
    }

    /** slurmdbd starts again; returns once it answers. */
    CommandResult startDbd() {
        return clusterScript("start-dbd");
    }

    /**
     * Kills {@code node} under the running job and waits for the job to end; afterwards, whatever
     * happened, the job is cancelled and the node brought back and resumed for the next test.
     */
    Job killNodeUntilJobEnds(String jobId, String node, Duration timeout) {
        try {
            killNode(node);
            return waitForJobEnd(jobId, timeout);
        } finally {
            run(List.of("scancel", jobId));
            reviveNode(node);
            run(List.of("scontrol", "update", "nodename=" + node, "state=resume"));
        }
    }

    /** Brings a node back as a replacement under the same hostname. */
    CommandResult reviveNode(String node) {
        return clusterScript("revive-node", node, "--fresh");
    }

    private CommandResult clusterScript(String... args) {
        List<String> argv = new ArrayList<>();
        argv.add(repo.resolve("local-cluster/local-cluster.sh").toString());
        argv.addAll(List.of(args));
        CommandResult result = runner.run(
                new CommandRequest(argv, Duration.ofSeconds(120), Map.of("AR_CLUSTER_DIR", env.get("AR_CLUSTER_DIR"))));
        if (!result.succeeded()) {
            throw new AssertionError(
                    "local-cluster.sh " + String.join(" ", args) + " failed:\n" + result.stdout() + result.stderr());
        }
        return result;
    }

    /** Copies cli/target/autoresume to a directory every user can read, fresh for each test run. */
    private Path installDistribution() {
        Path source = Path.of(System.getProperty(
                "autoresume.dist", repo.resolve("cli/target/autoresume").toString()));
        if (!Files.isExecutable(source.resolve("bin/autoresume"))) {
            fail("the autoresume distribution was not built: " + source
                    + "/bin/autoresume is missing (run mvn package)");
        }
        Path target = Path.of(env.get("AR_CLUSTER_DIR"), "dist");
        try {
            deleteTree(target);
            try (Stream<Path> files = Files.walk(source)) {
                for (Path from : (Iterable<Path>) files::iterator) {
                    Path to = target.resolve(source.relativize(from).toString());
                    if (Files.isDirectory(from)) {
                        Files.createDirectories(to);
                        Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwxr-xr-x"));
                    } else {
                        Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
                        Files.setPosixFilePermissions(
                                to,
                                PosixFilePermissions.fromString(Files.isExecutable(from) ? "rwxr-xr-x" : "rw-r--r--"));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path launcher = target.resolve("bin/autoresume");
        // As an installation does: the class-data archive keeps a supervised srun's start-up short.
        CommandResult cds =
                runner.run(new CommandRequest(List.of(launcher.toString(), "--dump-cds"), COMMAND_TIMEOUT, Map.of()));
        if (!cds.succeeded()) {
            fail("autoresume --dump-cds failed: " + cds.stderr());
        }
        return launcher;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static Map<String, String> readEnvFile(Path file) {
        Map<String, String> values = new HashMap<>();
        try {
            for (String line : Files.readAllLines(file)) {
                int eq = line.indexOf('=');
                if (eq > 0 && !line.startsWith("#")) {
                    values.put(
                            line.substring(0, eq).strip(),
                            line.substring(eq + 1).strip());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return values;
    }
}
