package org.slurmautoresume.slurm.hostlist;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Slurm hostlist expressions ({@code gpu[01-16],login1}), with the semantics of Slurm 22.05's
 * {@code scontrol show hostnames|hostlist|hostlistsorted}.
 *
 * <h2>Expressions</h2>
 * <ul>
 *   <li>Terms are separated by commas, spaces or tabs; commas inside brackets separate ranges.
 *       Empty terms are skipped, so {@code ""} and {@code " , "} are empty lists.</li>
 *   <li>A bracket holds numbers and {@code lo-hi} ranges: {@code n[1-3,7,10-12]}. Every number of
 *       a range is zero-padded to the width of its low end as written: {@code n[01-10]} gives
 *       n01..n10, {@code n[001-10]} gives n001..n010, {@code n[1-010]} gives n1..n10.</li>
 *   <li>A term may hold several bracket groups ({@code rack[1-2]-gpu[1-4]}) but must end with
 *       one: Slurm 22.05 rejects text after the last {@code ]} ({@code rack[1-2]-gpu}); Slurm 23.02.5
 *       and later accept it. The last group varies fastest, then the first, the second and so on,
 *       the one before the last varying slowest:
 *       {@code x[1-2]y[1-2]z[1-2]} gives x1y1z1 x1y1z2 x2y1z1 x2y1z2 x1y2z1 ...</li>
 *   <li>Expansion keeps the written order and duplicates: {@code n3,n1,n3} gives n3 n1 n3.</li>
 *   <li>Slurm's limits hold: at most 65536 hosts in one range (so {@code gpu[1-100000]} is an error,
 *       {@code gpu[1-50000,50001-100000]} is not), at most 65536 values in a group that is not the
 *       last of its term, at most 262144 ranges in one bracket.</li>
 * </ul>
 * Malformed input raises {@link HostlistException}. That includes input Slurm accepts only by
 * accident of its C parser, where Slurm's answer is surely not what was meant: an unclosed bracket
 * ({@code n[1-2} is a host named {@code n]} to Slurm), a stray {@code ]}, whitespace or a sign
 * inside brackets ({@code n[1, 2]} is n1 and n02 to Slurm), a missing upper end ({@code n[1-]}),
 * an error in an inner bracket group (Slurm drops that term silently), control characters, and
 * numbers with more than 18 significant digits.
 *
 * <h2>Compression</h2>
 * {@link #compress} is {@code scontrol show hostlist} of the hosts, comma-joined: hosts stay in
 * the given order and a host joins the range before it only when it continues it
 * ({@code n3,n1,n2} gives {@code n[3,1-2]}). {@link #compressSorted} is
 * {@code scontrol show hostlistsorted}: prefixes in natural order ({@code rack2} before
 * {@code rack10}), then numbers. Both keep duplicates, and a host joins a range of another width
 * when no padding changes ({@code n9,n10} gives {@code n[9-10]}, {@code n0099,n100} does not
 * merge). Sorting keeps Slurm's quirks with duplicates: overlapping ranges are split at the shared
 * hosts ({@code n[1-5],n[3-7]} gives {@code n[1-3,3-4,4-5,5-7]}). Host names must be plain names
 * (no separators, brackets or control characters).
 *
 * <p>Where Slurm's sorted output is wrong, this is not: Slurm can drop hosts when mixed padding
 * meets duplicates ({@code N99,N100,N99,N100,N098,N099} gives {@code N[99,99-100,100]}) and when
 * numbers are 2^31 or more apart ({@code n4294967296,n0} gives {@code n[4294967296]}); both keep
 * every host here. A numeric suffix of more than 18 significant digits is kept as part of the name
 * (Slurm clamps it to 2^64-1). Note that more than 65536 consecutive hosts compress, here as in
 * Slurm, to one range that Slurm refuses to expand.
 *
 * <p>All methods are thread-safe. Expansion, counting and {@link #compress} take time linear in
 * their input and output, {@link #compressSorted} adds a sort.
 */
public final class Hostlist {

    /** The expansion cap of {@link #expand(String)}. */
    public static final int DEFAULT_MAX_HOSTS = 1_000_000;

    /** Longest name {@link #isValidHostname} accepts; Slurm itself has no limit this small. */
    public static final int MAX_HOSTNAME_LENGTH = 255;

    private Hostlist() {}

    /**
     * The hosts of {@code expression}, in Slurm's order, duplicates kept; at most
     * {@link #DEFAULT_MAX_HOSTS} of them.
     *
     * @throws HostlistException when the expression is malformed or holds more hosts than the cap
     */
    public static List<String> expand(String expression) {
        return expand(expression, DEFAULT_MAX_HOSTS);
    }

    /**
     * The hosts of {@code expression}, in Slurm's order, duplicates kept.
     *
     * @param maxHosts the most hosts the caller accepts; the count is checked before any host is built
     * @return an unmodifiable list
     * @throws HostlistException when the expression is malformed or holds more than {@code maxHosts}
     */
    public static List<String> expand(String expression, int maxHosts) {
        Objects.requireNonNull(expression, "expression");
        if (maxHosts < 0) {
            throw new IllegalArgumentException("maxHosts must not be negative: " + maxHosts);
        }
        List<Term> terms = HostlistParser.parse(expression);
        long total = total(terms);
        if (total > maxHosts) {
            String count = total == Long.MAX_VALUE ? "more than " + Long.MAX_VALUE : Long.toString(total);
            throw new HostlistException(
                    "hostlist",
                    expression,
                    -1,
                    "it expands to " + count + " hosts, more than the limit of " + maxHosts);
        }
        List<String> hosts = new ArrayList<>((int) total);
        for (Term term : terms) {
            term.appendHosts(hosts);
        }
        return Collections.unmodifiableList(hosts);
    }

    /**
     * The hosts of a node list Slurm put in an environment beside its node count (SLURM_JOB_NODELIST
     * and SLURM_JOB_NUM_NODES, SLURM_STEP_NODELIST and SLURM_STEP_NUM_NODES); empty when either is
     * missing or blank, the list is malformed, or the two disagree, as in a hand-edited
     * environment, which is no basis for telling a training script where its master is.
     */
    public static Optional<List<String>> expandCounted(String nodeList, String count) {
        if (nodeList == null || count == null || nodeList.isBlank()) {
            return Optional.empty();
        }
        try {
            List<String> hosts = expand(nodeList.strip());
            return hosts.isEmpty() || hosts.size() != Integer.parseInt(count.strip())
                    ? Optional.empty()
                    : Optional.of(hosts);
        } catch (HostlistException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The number of hosts {@link #expand} would return, duplicates included, without building them;
     * {@link Long#MAX_VALUE} when it is at least that.
     *
     * @throws HostlistException when the expression is malformed
     */
    public static long count(String expression) {
        Objects.requireNonNull(expression, "expression");
        return total(HostlistParser.parse(expression));
    }

    /**
     * The hosts as Slurm's {@code scontrol show hostlist} writes them: in the given order,
     * duplicates kept, runs of consecutive numbers merged.
     *
     * @throws HostlistException when an element is null, empty or not a plain host name
     */
    public static String compress(Collection<String> hosts) {
        Objects.requireNonNull(hosts, "hosts");
        return HostRangeList.of(hosts).toRangedString();
    }

    /**
     * The hosts as Slurm's {@code scontrol show hostlistsorted} writes them: sorted by prefix in
     * natural order ({@code rack2} before {@code rack10}) then by number, duplicates kept.
     *
     * @throws HostlistException when an element is null, empty or not a plain host name
     */
    public static String compressSorted(Collection<String> hosts) {
        Objects.requireNonNull(hosts, "hosts");
        HostRangeList list = HostRangeList.of(hosts);
        list.sort();
        return list.toRangedString();
    }

    /**
     * Whether {@code name} is safe to pass to Slurm commands and to print unquoted: 1 to
     * {@value #MAX_HOSTNAME_LENGTH} ASCII letters, digits, '-', '_' and '.', starting with a letter
     * or a digit (so that it can never be read as a command-line option, a hidden or parent path,
     * or a hostlist expression).
     *
     * <p>Slurm accepts more as node names; this is the subset the toolkit lets through from users.
     */
    public static boolean isValidHostname(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_HOSTNAME_LENGTH || !isLetterOrDigit(name.charAt(0))) {
            return false;
        }
        for (int i = 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!isLetterOrDigit(c) && c != '-' && c != '_' && c != '.') {
                return false;
            }
        }
        return true;
    }

    private static boolean isLetterOrDigit(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    private static long total(List<Term> terms) {
        long total = 0;
        for (Term term : terms) {
            total = Counting.add(total, term.count());
        }
        return total;
    }
}
