package org.slurmautoresume.slurm.hostlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every expected value below was printed by Slurm 22.05.8's {@code scontrol show hostnames},
 * {@code show hostlist} or {@code show hostlistsorted}; they are observations, not opinions.
 * Where {@link Hostlist} deliberately differs from Slurm, the test says what Slurm does.
 */
class HostlistTest {

    /** Expression, then {@code scontrol show hostnames} output with newlines turned into spaces. */
    static Stream<Arguments> expansions() {
        return Stream.of(
                Arguments.of("n[1-3,7,10-12]", "n1 n2 n3 n7 n10 n11 n12"),
                Arguments.of("n[01-10]", "n01 n02 n03 n04 n05 n06 n07 n08 n09 n10"),
                // The width of a range is the width of its low end; the high end's padding is ignored.
                Arguments.of("n[1-010]", "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10"),
                Arguments.of("n[001-10]", "n001 n002 n003 n004 n005 n006 n007 n008 n009 n010"),
                Arguments.of("n[007-9]", "n007 n008 n009"),
                Arguments.of("n[9-11]", "n9 n10 n11"),
                Arguments.of("n[098-101]", "n098 n099 n100 n101"),
                Arguments.of("n[0]", "n0"),
                Arguments.of("n[00]", "n00"),
                Arguments.of("n[01-1]", "n01"),
                Arguments.of("n[1-1]", "n1"),
                Arguments.of("a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4"),
                Arguments.of("a[1,2]b[3,4]", "a1b3 a1b4 a2b3 a2b4"),
                Arguments.of("rack[1-2]-gpu[1-2]", "rack1-gpu1 rack1-gpu2 rack2-gpu1 rack2-gpu2"),
                // Not an odometer: the last group is fastest, then the first, then the second.
                Arguments.of("x[1-2]y[1-2]z[1-2]", "x1y1z1 x1y1z2 x2y1z1 x2y1z2 x1y2z1 x1y2z2 x2y2z1 x2y2z2"),
                Arguments.of(
                        "w[1-2]x[1-2]y[1-2]z[1-2]",
                        "w1x1y1z1 w1x1y1z2 w2x1y1z1 w2x1y1z2 w1x2y1z1 w1x2y1z2 w2x2y1z1 w2x2y1z2"
                                + " w1x1y2z1 w1x1y2z2 w2x1y2z1 w2x1y2z2 w1x2y2z1 w1x2y2z2 w2x2y2z1 w2x2y2z2"),
                Arguments.of("n[1-2][3-4]", "n13 n14 n23 n24"),
                Arguments.of("[1-2]a[1-2]", "1a1 1a2 2a1 2a2"),
                Arguments.of("[1-3]", "1 2 3"),
                Arguments.of("n-[1-2]", "n-1 n-2"),
                Arguments.of("n.[1-2]", "n.1 n.2"),
                Arguments.of("n_[1-2]", "n_1 n_2"),
                Arguments.of("a[1-2],b[3-4]", "a1 a2 b3 b4"),
                Arguments.of("n1 n2", "n1 n2"),
                Arguments.of("n1\tn2", "n1 n2"),
                Arguments.of("n1,  n2", "n1 n2"),
                Arguments.of(" n1", "n1"),
                Arguments.of(",n1,", "n1"),
                Arguments.of("n[1-2],,n3", "n1 n2 n3"),
                Arguments.of("n3,n1,n2,n1", "n3 n1 n2 n1"),
                Arguments.of("n[1-3],n[2-3],n1", "n1 n2 n3 n2 n3 n1"),
                Arguments.of("login", "login"),
                Arguments.of("login,head,n1", "login head n1"),
                Arguments.of("n18446744073709551615", "n18446744073709551615"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("expansions")
    void expandsLikeScontrolShowHostnames(String expression, String hosts) {
        List<String> expected = Arrays.asList(hosts.split(" "));
        assertEquals(expected, Hostlist.expand(expression));
        assertEquals(expected.size(), Hostlist.count(expression));
    }

    /** Hosts (comma-joined), then {@code scontrol show hostlist} and {@code show hostlistsorted} of them. */
    static Stream<Arguments> compressions() {
        return Stream.of(
                Arguments.of("n1,n2,n3", "n[1-3]", "n[1-3]"),
                Arguments.of("n1,n2,n3,n7,n10,n11,n12", "n[1-3,7,10-12]", "n[1-3,7,10-12]"),
                // Unsorted: a host joins the range before it only if it continues it.
                Arguments.of("n3,n1,n2", "n[3,1-2]", "n[1-3]"),
                Arguments.of("n1,n3,n2", "n[1,3,2]", "n[1-3]"),
                Arguments.of("n5,n4,n3,n2,n1", "n[5,4,3,2,1]", "n[1-5]"),
                Arguments.of("n2,n1,m1,n3", "n[2,1],m1,n3", "m1,n[1-3]"),
                Arguments.of("b1,a1,b2,a2", "b1,a1,b2,a2", "a[1-2],b[1-2]"),
                // Widths: a host may join a range of another width if no padding changes.
                Arguments.of("n8,n9,n10", "n[8-10]", "n[8-10]"),
                Arguments.of("n10,n9", "n[10,9]", "n[9-10]"),
                Arguments.of("n10,n09", "n[10,09]", "n[09-10]"),
                Arguments.of("n9,n10,n08", "n[9-10,08]", "n[9-10,08]"),
                Arguments.of("n99,n100", "n[99-100]", "n[99-100]"),
                Arguments.of("n099,n100", "n[099-100]", "n[099-100]"),
                Arguments.of("n0099,n100", "n[0099,100]", "n[100,0099]"),
                Arguments.of("n1,n01,n001", "n[1,01,001]", "n[1,01,001]"),
                Arguments.of("n01,n1", "n[01,1]", "n[1,01]"),
                Arguments.of("n100,n5,n99,n099", "n[100,5,99,099]", "n[5,99,099-100]"),
                Arguments.of("n100,n101,n5,n099", "n[100-101,5,099]", "n[5,099-101]"),
                Arguments.of("nid00001,nid00002,nid00003", "nid[00001-00003]", "nid[00001-00003]"),
                Arguments.of(
                        "gpu-001,gpu-002,gpu-004,cpu-001", "gpu-[001-002,004],cpu-001", "cpu-001,gpu-[001-002,004]"),
                // Names without digits; a bare prefix sorts before its numbered hosts.
                Arguments.of("a,b,a", "a,b,a", "a,a,b"),
                Arguments.of("n,n1,n2,n", "n,n[1-2],n", "n,n,n[1-2]"),
                Arguments.of("foo,bar,n1,n,n2", "foo,bar,n1,n,n2", "bar,foo,n,n[1-2]"),
                Arguments.of("n1a,n2a", "n1a,n2a", "n1a,n2a"),
                Arguments.of("1,2,3", "[1-3]", "[1-3]"),
                // Prefixes sort in natural order, and case-sensitively.
                Arguments.of(
                        "rack10-n1,rack2-n1,rack1-n1", "rack10-n1,rack2-n1,rack1-n1", "rack1-n1,rack2-n1,rack10-n1"),
                Arguments.of("rack10,rack2,rack1", "rack[10,2,1]", "rack[1-2,10]"),
                Arguments.of("N1,N2,n1,n2", "N[1-2],n[1-2]", "N[1-2],n[1-2]"),
                // Only the last run of digits is a number.
                Arguments.of("node-1-1,node-1-2,node-2-1", "node-1-[1-2],node-2-1", "node-1-[1-2],node-2-1"),
                Arguments.of("a1b3,a1b4,a2b3,a2b4", "a1b[3-4],a2b[3-4]", "a1b[3-4],a2b[3-4]"),
                Arguments.of("n13,n14,n23,n24", "n[13-14,23-24]", "n[13-14,23-24]"),
                Arguments.of(
                        "x1y1z1,x1y1z2,x2y1z1,x2y1z2,x1y2z1,x1y2z2,x2y2z1,x2y2z2",
                        "x1y1z[1-2],x2y1z[1-2],x1y2z[1-2],x2y2z[1-2]",
                        "x1y1z[1-2],x1y2z[1-2],x2y1z[1-2],x2y2z[1-2]"),
                // Duplicates are kept; sorting splits overlapping ranges at the shared hosts.
                Arguments.of("n1,n1", "n[1,1]", "n[1,1]"),
                Arguments.of("n3,n1,n2,n1", "n[3,1-2,1]", "n[1,1-3]"),
                Arguments.of("n1,n2,n3,n2,n3,n4", "n[1-3,2-4]", "n[1-2,2-3,3-4]"),
                Arguments.of("a1,a01,a1,a01,a2", "a[1,01,1,01,2]", "a[1,1-2,01,01]"),
                Arguments.of("n1,n2,n3,n4,n5,n3,n4,n5,n6,n7", "n[1-5,3-7]", "n[1-3,3-4,4-5,5-7]"),
                Arguments.of("n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n3,n4", "n[1-10,3-4]", "n[1-3,3-4,4-10]"),
                Arguments.of("n1,n2,n3,n1,n2,n3", "n[1-3,1-3]", "n[1,1-2,2-3,3]"),
                Arguments.of("n1,n2,n3,n2,n3,n1", "n[1-3,2-3,1]", "n[1,1-2,2-3,3]"),
                Arguments.of(
                        "n1,n2,n3,n4,n5,n3,n4,n5,n6,n7,n2,n3,n4,n5,n6,n7,n8,n9",
                        "n[1-5,3-7,2-9]",
                        "n[1-2,2-3,3,3-4,4,4-5,5,5-6,6-7,7-9]"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("compressions")
    void compressesLikeScontrolShowHostlistAndHostlistsorted(String hosts, String hostlist, String sorted) {
        List<String> names = Arrays.asList(hosts.split(","));
        assertEquals(hostlist, Hostlist.compress(names));
        assertEquals(sorted, Hostlist.compressSorted(names));
    }

    @Test
    void emptyInputGivesEmptyResults() {
        assertEquals(List.of(), Hostlist.expand(""));
        assertEquals(List.of(), Hostlist.expand(" ,\t, "));
        assertEquals(0, Hostlist.count(""));
        assertEquals("", Hostlist.compress(List.of()));
        assertEquals("", Hostlist.compressSorted(List.of()));
    }

    @Test
    void expansionIsUnmodifiable() {
        List<String> hosts = Hostlist.expand("n[1-2]");
        assertThrows(UnsupportedOperationException.class, () -> hosts.add("n3"));
    }

    /** Expression, position of the problem, part of the reason; the comment says what Slurm does. */
    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("n[1-", 1, "never closed"), // Slurm: host "n]"
                Arguments.of("n[1-2", 1, "never closed"), // Slurm: host "n]"
                Arguments.of("n[1-2,n3", 6, "found 'n'"), // Slurm: hosts "n]" and "n3"
                Arguments.of("n[3-1]", 2, "runs backwards"), // Slurm: Invalid range
                Arguments.of("n[a-b]", 2, "found 'a'"), // Slurm: Invalid range
                Arguments.of("n[1-2]]", 6, "without a matching"), // Slurm: Invalid hostlist
                Arguments.of("n1-2]", 4, "without a matching"), // Slurm: host "n1-2]"
                Arguments.of("n]1", 1, "without a matching"), // Slurm: host "n]1"
                Arguments.of("n[[1-2]", 2, "nested"), // Slurm: hosts "n[1", "n[2"
                Arguments.of("n[]", 2, "missing a number"), // Slurm: Invalid range
                Arguments.of("n[1,,2]", 4, "missing a number"), // Slurm: Invalid range
                Arguments.of("n[1-2,]", 6, "missing a number"), // Slurm: Invalid range
                Arguments.of("n[,1]", 2, "missing a number"), // Slurm: Invalid range
                Arguments.of("n[1-]", 4, "missing the upper end"), // Slurm: n1
                Arguments.of("n[1--2]", 4, "found '-'"), // Slurm: Invalid range
                Arguments.of("n[-1]", 2, "found '-'"), // Slurm: Invalid range
                Arguments.of("n[1-2-3]", 5, "found '-'"), // Slurm: Invalid range
                Arguments.of("n[+1]", 2, "found '+'"), // Slurm: n01
                Arguments.of("n[1, 2]", 4, "whitespace"), // Slurm: n1 n02
                Arguments.of("n[ 1- 2]", 2, "whitespace"), // Slurm: n01 n02
                Arguments.of("n[1 ,2]", 3, "whitespace"), // Slurm: Invalid range
                Arguments.of("n[1x2]", 3, "found 'x'"), // Slurm: Invalid range
                Arguments.of("rack[1-2]-gpu", 9, "after the last ']'"), // Slurm 22.05: Invalid hostlist
                Arguments.of("n[1-2]x", 6, "after the last ']'"), // Slurm: Invalid hostlist
                Arguments.of("n[1-2]b[]", 8, "missing a number"), // Slurm: Invalid range
                Arguments.of("n[1-65537]", 2, "at most 65536"), // Slurm: Too many hosts in range
                Arguments.of("n[0-999999999]", 2, "at most 65536"), // Slurm: Too many hosts in range
                Arguments.of("n[1-40000,1-30000]m[1]", 1, "at most 65536"), // Slurm: Invalid hostlist
                Arguments.of("a[3-1]b[1-2]c[1-2]", 2, "runs backwards"), // Slurm: no hosts, exit 0
                Arguments.of("x[1-2],a[3-1]b[1-2]c[1-2]", 9, "runs backwards"), // Slurm: x1 x2, exit 0
                Arguments.of("n1\nn2", 2, "control character U+000A"), // Slurm: one host "n1\nn2"
                Arguments.of("n[1234567890123456789]", 2, "too large"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("malformed")
    void malformedExpressionsAreRefusedWithPositionAndReason(String expression, int position, String reason) {
        HostlistException e = assertThrows(HostlistException.class, () -> Hostlist.expand(expression));
        assertEquals(expression, e.input());
        assertEquals(position, e.position(), e.getMessage());
        assertTrue(e.reason().contains(reason), e.getMessage());
        assertTrue(e.getMessage().contains("position " + position), e.getMessage());
        assertThrows(HostlistException.class, () -> Hostlist.count(expression));
    }

    @Test
    void messageQuotesTheInput() {
        HostlistException e = assertThrows(HostlistException.class, () -> Hostlist.expand("gpu[3-1]"));
        assertEquals("invalid hostlist \"gpu[3-1]\" at position 4: range 3-1 runs backwards (3 > 1)", e.getMessage());
    }

    @Test
    void messageShowsAnExcerptOfLongInput() {
        String expression = "n1," + "n2,".repeat(500) + "n[5-4]";
        HostlistException e = assertThrows(HostlistException.class, () -> Hostlist.expand(expression));
        assertTrue(e.getMessage().startsWith("invalid hostlist \"...n2,n2,"), e.getMessage());
        assertTrue(
                e.getMessage().endsWith(",n2,n[5-4]\" at position 1505: range 5-4 runs backwards (5 > 4)"),
                e.getMessage());
        assertTrue(e.getMessage().length() < 300, e.getMessage());
    }

    @Test
    void slurmLimitsPerRangeAndPerBracketAreAccepted() {
        assertEquals(65536, Hostlist.count("n[1-65536]"));
        assertEquals(80000, Hostlist.count("n[1-40000,40001-80000]"));
        assertEquals(90000, Hostlist.count("a[1-300]b[1-300]"));
        assertEquals(65536, Hostlist.count("n[1-65536]m[1]"));
    }

    @Test
    void rangesPerBracketAreLimitedLikeSlurm() {
        // Slurm aborts (fatal) past 262144 ranges in one pair of brackets.
        String allowed = "n["
                + IntStream.range(0, 262_144)
                        .mapToObj(i -> Integer.toString(2 * i))
                        .collect(Collectors.joining(",")) + "]";
        assertEquals(262_144, Hostlist.count(allowed));
        String tooMany = allowed.replace("]", ",999999]");
        HostlistException e = assertThrows(HostlistException.class, () -> Hostlist.count(tooMany));
        assertTrue(e.reason().contains("more than 262144 ranges"), e.getMessage());
    }

    @Test
    void capIsCheckedBeforeAnyHostIsBuilt() {
        // 2^48 hosts: building even their list would exhaust memory, so the refusal must come first.
        String huge = "a[1-65536]b[1-65536]c[1-65536]";
        assertEquals(1L << 48, Hostlist.count(huge));
        HostlistException e = assertTimeoutPreemptively(
                Duration.ofSeconds(5), () -> assertThrows(HostlistException.class, () -> Hostlist.expand(huge)));
        assertEquals(-1, e.position());
        assertTrue(e.getMessage().contains("281474976710656 hosts, more than the limit of 1000000"), e.getMessage());
    }

    @Test
    void countSaturatesInsteadOfOverflowing() {
        assertEquals(Long.MAX_VALUE, Hostlist.count("a[1-65536]b[1-65536]c[1-65536]d[1-65536]"));
        assertEquals(
                Long.MAX_VALUE,
                Hostlist.count("a[1-65536]b[1-65536]c[1-65536]d[1-65536],x[1-65536]b[1-65536]c[1-65536]d[1-65536]"));
        HostlistException e = assertThrows(
                HostlistException.class, () -> Hostlist.expand("a[1-65536]b[1-65536]c[1-65536]d[1-65536]"));
        assertTrue(e.getMessage().contains("more than " + Long.MAX_VALUE + " hosts"), e.getMessage());
    }

    @Test
    void capCountsDuplicatesAndAllTerms() {
        assertEquals(10, Hostlist.expand("n[1-10]", 10).size());
        assertThrows(HostlistException.class, () -> Hostlist.expand("n[1-10]", 9));
        assertThrows(HostlistException.class, () -> Hostlist.expand("n[1-5],n[1-5]", 9));
        assertEquals(List.of(), Hostlist.expand("", 0));
        assertThrows(HostlistException.class, () -> Hostlist.expand("a[1-1000]b[1-1001]"));
        assertThrows(IllegalArgumentException.class, () -> Hostlist.expand("n1", -1));
    }

    @Test
    void compressingManyConsecutiveHostsGivesARangeSlurmItselfRefusesToExpand() {
        // scontrol show hostlist of g000001..g100000 prints g[000001-100000], and
        // scontrol show hostnames g[000001-100000] answers "Too many hosts in range".
        List<String> hosts = Hostlist.expand("g[000001-050000,050001-100000]");
        assertEquals(100_000, hosts.size());
        assertEquals("g[000001-100000]", Hostlist.compress(hosts));
        assertEquals("g[000001-100000]", Hostlist.compressSorted(hosts));
        assertThrows(HostlistException.class, () -> Hostlist.expand("g[000001-100000]"));
    }

    @Test
    void sortedCompressionKeepsHostsWhereSlurmLosesThem() {
        // scontrol show hostlistsorted N99,N100,N99,N100,N098,N099 prints N[99,99-100,100]:
        // N098 and one N099 are gone (Slurm reads a range it has just freed).
        List<String> hosts = List.of("N99", "N100", "N99", "N100", "N098", "N099");
        assertEquals("N[99-100,99-100,098-099]", Hostlist.compress(hosts)); // as scontrol show hostlist
        assertEquals("N[99,99-100,100,098-099]", Hostlist.compressSorted(hosts));
        assertSameHosts(hosts, Hostlist.expand(Hostlist.compressSorted(hosts)));
    }

    @Test
    void sortedCompressionOrdersNumbersFarApart() {
        // scontrol show hostlistsorted n4294967296,n0 prints n[4294967296] (its comparison
        // truncates the difference to 32 bits); show hostlist prints n[4294967296,0] as we do.
        List<String> hosts = List.of("n4294967296", "n0");
        assertEquals("n[4294967296,0]", Hostlist.compress(hosts));
        assertEquals("n[0,4294967296]", Hostlist.compressSorted(hosts));
    }

    @Test
    void overlongNumericSuffixIsKeptAsPartOfTheName() {
        // Slurm clamps the number to 2^64-1: scontrol show hostlist n99999999999999999999999
        // prints n00018446744073709551615.
        List<String> hosts = List.of("n99999999999999999999999", "n1");
        assertEquals("n99999999999999999999999,n1", Hostlist.compress(hosts));
        assertEquals(hosts, Hostlist.expand("n99999999999999999999999,n1"));
    }

    @Test
    void compressTakesPlainHostNamesOnly() {
        assertThrows(HostlistException.class, () -> Hostlist.compress(Arrays.asList("n1", null)));
        assertThrows(HostlistException.class, () -> Hostlist.compress(List.of("n1", "")));
        HostlistException e =
                assertThrows(HostlistException.class, () -> Hostlist.compressSorted(List.of("n1", "n[2-3]")));
        assertEquals(1, e.position());
        assertTrue(e.getMessage().contains("element 1"), e.getMessage());
        assertThrows(HostlistException.class, () -> Hostlist.compress(List.of("a,b")));
        assertThrows(HostlistException.class, () -> Hostlist.compress(List.of("a b")));
        assertThrows(HostlistException.class, () -> Hostlist.compress(List.of("a\u0000")));
    }

    @Test
    void roundTripsGeneratedExpressions() {
        for (String expression : new HostlistExpressionGenerator(7).generate(300)) {
            List<String> hosts = Hostlist.expand(expression);
            assertEquals(hosts, Hostlist.expand(Hostlist.compress(hosts)), expression);
            // Sorting reorders; it must neither lose nor invent hosts. (It is not idempotent, in
            // Slurm either: re-sorting its own output can split ranges differently.)
            assertSameHosts(hosts, Hostlist.expand(Hostlist.compressSorted(hosts)));
        }
    }

    @Test
    void roundTripsShuffledHosts() {
        List<String> hosts = new ArrayList<>(Hostlist.expand("gpu-[001-300],cpu[1-200],io[01-20]"));
        Collections.shuffle(hosts, new java.util.Random(42));
        assertEquals(hosts, Hostlist.expand(Hostlist.compress(hosts)));
        assertEquals("cpu[1-200],gpu-[001-300],io[01-20]", Hostlist.compressSorted(hosts));
    }

    @Test
    void generatorIsDeterministicAndValid() {
        List<String> first = new HostlistExpressionGenerator(1).generate(200);
        assertEquals(first, new HostlistExpressionGenerator(1).generate(200));
        assertTrue(first.stream().distinct().count() > 190, "expressions should vary");
        for (String expression : first) {
            long count = Hostlist.count(expression);
            assertTrue(count > 0 && count <= HostlistExpressionGenerator.MAX_HOSTS, expression);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"n1", "gpu-001", "a.b_c-d", "1node", "NODE", "x"})
    void validHostnames(String name) {
        assertTrue(Hostlist.isValidHostname(name));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"", "-n1", ".n1", "_n1", "n 1", "n,1", "n[1]", "n/1", "n;1", "n\u00f1", "n\n1", "n@1", "n:1"})
    void invalidHostnames(String name) {
        assertFalse(Hostlist.isValidHostname(name));
    }

    @Test
    void hostnameLengthIsLimited() {
        assertFalse(Hostlist.isValidHostname(null));
        assertTrue(Hostlist.isValidHostname("n".repeat(Hostlist.MAX_HOSTNAME_LENGTH)));
        assertFalse(Hostlist.isValidHostname("n".repeat(Hostlist.MAX_HOSTNAME_LENGTH + 1)));
    }

    @Test
    void expandsALargeListWithoutDroppingOrReordering() {
        List<String> hosts = Hostlist.expand("gpu-[000001-050000,050001-100000]");
        assertEquals(100_000, hosts.size());
        IntStream.of(0, 1, 9, 99_999).forEach(i -> assertEquals(String.format("gpu-%06d", i + 1), hosts.get(i)));
    }

    private static void assertSameHosts(List<String> expected, List<String> actual) {
        List<String> a = new ArrayList<>(expected);
        List<String> b = new ArrayList<>(actual);
        Collections.sort(a);
        Collections.sort(b);
        assertEquals(a, b);
    }

    @Test
    void aNodeListIsTrustedOnlyBesideTheCountSlurmGaveWithIt() {
        assertEquals(java.util.Optional.of(List.of("node1", "node3")), Hostlist.expandCounted(" node[1,3] ", "2"));
        assertEquals(java.util.Optional.empty(), Hostlist.expandCounted("node[1,3]", "3"));
        assertEquals(java.util.Optional.empty(), Hostlist.expandCounted("node[1,3]", "two"));
        assertEquals(java.util.Optional.empty(), Hostlist.expandCounted("node[3-1]", "2"));
        assertEquals(java.util.Optional.empty(), Hostlist.expandCounted(" ", "0"));
        assertEquals(java.util.Optional.empty(), Hostlist.expandCounted(null, "2"));
        assertEquals(java.util.Optional.empty(), Hostlist.expandCounted("node1", null));
    }
}
