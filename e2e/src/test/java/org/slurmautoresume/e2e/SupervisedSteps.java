package org.slurmautoresume.e2e;

import java.util.List;

/**
 * What a test class of node-fault recovery needs on the cluster: auto_resume.so in
 * plugstack.conf.d handing steps to the launcher, and the root agent in the plugin's
 * directory. Started once per class, stopped (agent first, then the snippet) after it.
 */
final class SupervisedSteps {

    private final Plugstack plugstack;
    private final LocalAgent agent;

    private SupervisedSteps(Plugstack plugstack, LocalAgent agent) {
        this.plugstack = plugstack;
        this.agent = agent;
    }

    static SupervisedSteps start(LocalCluster cluster, String prefix, String... agentOptions) {
        Plugstack plugstack = Plugstack.install(cluster, prefix, List.of("auto_resume.so"));
        plugstack.useAutoResume(cluster.launcher());
        return new SupervisedSteps(plugstack, LocalAgent.start(cluster, plugstack.installDir().resolve("agent"), agentOptions));
    }

    Plugstack plugstack() {
        return plugstack;
    }

    LocalAgent agent() {
        return agent;
    }

    /** Null-safe for an {@code @AfterAll} after a failed {@code @BeforeAll}. */
    static void stop(SupervisedSteps steps) throws InterruptedException {
        if (steps != null) {
            steps.agent.stop();
            steps.plugstack.removeAll();
        }
    }
}
