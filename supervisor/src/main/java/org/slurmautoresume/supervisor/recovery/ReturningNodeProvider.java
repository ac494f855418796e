package org.slurmautoresume.supervisor.recovery;

import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slurmautoresume.agent.protocol.AgentClient;
import org.slurmautoresume.agent.protocol.AgentRequest;
import org.slurmautoresume.agent.protocol.AgentResponse;
import org.slurmautoresume.agent.protocol.NodeDecision;
import org.slurmautoresume.slurm.client.NodeMark;
import org.slurmautoresume.slurm.client.SlurmClient;
import org.slurmautoresume.slurm.model.Node;

/**
 * The failed node itself, once it is back under its own hostname: HyperPod's model, where the
 * platform swaps the instance and the new one registers as the old name. Three variants differ
 * only in how the node comes back: {@code same-hostname} waits for the platform,
 * {@code command} has the agent run the site's replace command first, and {@code reboot} has
 * the agent ask Slurm to reboot it ({@code nextstate=RESUME}).
 *
 * <p>A node counts as back when slurmctld hears from it again and its slurmd started after the
 * fault (a new SlurmdStartTime); the agent then resumes it, and it is ready when it is idle.
 * The agent holds a lemon (a node marked faulty as often as the site's rule allows) instead of
 * resuming or rebooting it: such a node never comes back for the job, so once too few of the
 * failed nodes are left to wait for, the provider gives up and recovery goes on without it.
 */
public final class ReturningNodeProvider implements ReplacementProvider {

    private final Replacement trigger;
    private final SlurmClient slurm;
    private final AgentClient agent;
    private final Consumer<String> say;
    /** Failed nodes the agent held as lemons, with why: they will not come back. */
    private final Map<String, String> held = new LinkedHashMap<>();

    /** {@code trigger}: how the node comes back; any provider but {@link Replacement#SPARE}. */
    public ReturningNodeProvider(Replacement trigger, SlurmClient slurm, AgentClient agent, Consumer<String> say) {
        if (trigger == Replacement.SPARE) {
            throw new IllegalArgumentException("spares come from SpareProvider, not from the failed node");
        }
        this.trigger = trigger;
        this.slurm = Objects.requireNonNull(slurm);
        this.agent = Objects.requireNonNull(agent);
        this.say = Objects.requireNonNull(say);
    }

    @Override
    public String name() {
        return trigger.word();
    }

    @Override
    public NodeMark.Action action() {
        return trigger == Replacement.REBOOT ? NodeMark.Action.REBOOT : NodeMark.Action.REPLACE;
    }

    @Override
    public void begin(String jobId, List<String> failed) {
        if (trigger == Replacement.SAME_HOSTNAME) {
            say.accept("waiting for " + String.join(",", failed) + " to come back under the same hostname");
            return;
        }
        boolean reboot = trigger == Replacement.REBOOT;
        AgentResponse response =
                agent.send(reboot ? AgentRequest.reboot(jobId, failed) : AgentRequest.replace(jobId, failed));
        for (NodeDecision decision : response.decisions()) {
            if (decision.refusedOrFailed() || decision.heldAsLemon()) {
                throw new ProviderException("the agent did not " + (reboot ? "reboot " : "replace ") + decision.node()
                        + ": " + decision.why());
            }
            say.accept(decision.node() + ": " + decision.why());
        }
    }

    @Override
    public List<String> ready(
            String jobId, List<String> failed, int missing, Collection<String> exclude, LocalDateTime failedAt) {
        List<String> ready = new ArrayList<>();
        for (String name : failed) {
            if (ready.size() == missing) {
                break;
            }
            if (exclude.contains(name) || held.containsKey(name)) {
                continue;
            }
            Optional<Node> node = slurm.node(name);
            if (node.isEmpty() || !isBack(node.get(), failedAt)) {
                continue;
            }
            if (!node.get().state().isSchedulable() || node.get().state().isUnhealthy()) {
                AgentResponse response = agent.send(AgentRequest.resume(jobId, List.of(name)));
                NodeDecision decision = response.decisions().get(0);
                if (decision.heldAsLemon()) {
                    held.put(name, decision.why());
                    say.accept(name + " is back but held as a lemon: " + decision.why());
                    giveUpWhenTooFewLeft(failed, missing, exclude);
                    continue;
                }
                if (!decision.decision().equals(NodeDecision.RESUMED)) {
                    continue; // not reachable yet, say: asked again at the next look
                }
                say.accept(name + " is back (slurmd started "
                        + node.get().slurmdStartTime().orElseThrow() + "); resumed");
                node = slurm.node(name);
            }
            if (node.isPresent() && SparePool.isFree(node.get())) {
                ready.add(name);
            }
        }
        return ready;
    }

    /** Stops the wait once the failed nodes not held can no longer make up what is missing. */
    private void giveUpWhenTooFewLeft(List<String> failed, int missing, Collection<String> exclude) {
        long left = failed.stream()
                .filter(n -> !exclude.contains(n) && !held.containsKey(n))
                .count();
        if (left < missing) {
            List<String> lemons = failed.stream().filter(held::containsKey).toList();
            throw new ProviderException("the agent held " + String.join(",", lemons)
                    + " as a lemon instead of returning it ("
                    + String.join("; ", lemons.stream().map(held::get).toList())
                    + "): not waiting for it to come back");
        }
    }

    /** Heard from again, by a slurmd that started after the fault. */
    static boolean isBack(Node node, LocalDateTime failedAt) {
        return node.answersFromSlurmdStartedSince(failedAt.truncatedTo(ChronoUnit.SECONDS));
    }
}
