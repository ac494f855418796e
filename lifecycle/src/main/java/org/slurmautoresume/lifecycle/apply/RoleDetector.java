package org.slurmautoresume.lifecycle.apply;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slurmautoresume.lifecycle.model.IpAddress;

/**
 * Which planned node this machine is: the one named with {@code --node}, the one with the
 * address given by {@code --address}, else the one whose address is on a local interface, else
 * the one whose name is this host's name. Two candidates are an error, never a guess.
 */
public final class RoleDetector {

    private RoleDetector() {}

    public static PlannedNode byName(ClusterPlan plan, String name) {
        List<PlannedNode> found = plan.nodes().stream()
                .filter(n -> n.nodeName().equals(name) || n.instanceName().equals(name))
                .toList();
        return one(found, "no instance or Slurm node is named \"" + name + "\"", plan);
    }

    public static PlannedNode byAddress(ClusterPlan plan, String address) {
        String wanted = IpAddress.canonical(address)
                .orElseThrow(() -> new ApplyException("\"" + address + "\" is not an IPv4 or IPv6 address"));
        List<PlannedNode> found = plan.nodes().stream()
                .filter(n -> addressesOf(n).contains(wanted))
                .toList();
        return one(found, "no instance has the address " + wanted, plan);
    }

    public static PlannedNode detect(ClusterPlan plan, LocalHost host) {
        Set<String> local = host.addresses().stream()
                .map(IpAddress::canonical)
                .flatMap(Optional::stream)
                .collect(Collectors.toSet());
        List<PlannedNode> byAddress = plan.nodes().stream()
                .filter(n -> !disjoint(addressesOf(n), local))
                .toList();
        if (byAddress.size() == 1) {
            return byAddress.get(0);
        }
        if (byAddress.size() > 1) {
            throw new ApplyException("this machine has the addresses of several instances (" + names(byAddress)
                    + "); say which one it is with --node NAME");
        }
        Optional<String> hostname = host.hostname();
        if (hostname.isPresent()) {
            String full = hostname.get();
            String shortName = full.contains(".") ? full.substring(0, full.indexOf('.')) : full;
            List<PlannedNode> byName = plan.nodes().stream()
                    .filter(n -> n.nodeName().equals(shortName)
                            || n.instanceName().equals(shortName)
                            || n.hostname()
                                    .map(h -> h.equals(full) || h.equals(shortName))
                                    .orElse(false))
                    .toList();
            if (!byName.isEmpty()) {
                return one(byName, "", plan);
            }
        }
        throw new ApplyException("this machine matches no instance of resource_config.json: its addresses are "
                + String.join(", ", local) + " and its host name is " + hostname.orElse("unknown")
                + "; say which instance it is with --node NAME or --address IP");
    }

    private static PlannedNode one(List<PlannedNode> found, String noneMessage, ClusterPlan plan) {
        if (found.isEmpty()) {
            throw new ApplyException(noneMessage + " (known: " + names(plan.nodes()) + ")");
        }
        if (found.size() > 1) {
            throw new ApplyException("several instances match (" + names(found) + "); say which one with --node NAME");
        }
        return found.get(0);
    }

    private static Set<String> addressesOf(PlannedNode node) {
        Set<String> addresses = new HashSet<>();
        IpAddress.canonical(node.address()).ifPresent(addresses::add);
        node.agentAddress().flatMap(IpAddress::canonical).ifPresent(addresses::add);
        return addresses;
    }

    private static boolean disjoint(Set<String> a, Set<String> b) {
        return a.stream().noneMatch(b::contains);
    }

    private static String names(List<PlannedNode> nodes) {
        List<String> names = new ArrayList<>();
        nodes.forEach(n -> names.add(n.nodeName()));
        return String.join(", ", names);
    }
}
