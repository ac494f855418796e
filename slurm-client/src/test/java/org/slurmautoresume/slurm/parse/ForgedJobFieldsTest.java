package org.slurmautoresume.slurm.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slurmautoresume.slurm.model.Job;
import org.slurmautoresume.slurm.model.JobListing;
import org.slurmautoresume.slurm.parse.json.JsonJobParser;

/**
 * A job's owner writes its free-text values; none of that text may change another field.
 * Every value below goes into every free-text key, of the text and the JSON reading alike:
 * the job reads exactly as before except for that key, or (text only, when the value holds
 * the key scontrol always prints next, so that no reading can tell forged from real) the
 * record is refused. It is never read with a field the user made up.
 */
class ForgedJobFieldsTest {

    private static final String BIG = "a".repeat(5_000) + " NodeList=node4 JobState=RUNNING " + "b".repeat(5_000);

    static final List<String> HOSTILE = List.of(
            "x NodeList=node[1-4] JobState=RUNNING",
            "x UserId=root(0) GroupId=root(0)",
            "x JobState=COMPLETED ExitCode=9:0",
            "x BatchHost=node4 NumNodes=4",
            "x Partition=evil ExcNodeList=node1 ReqNodeList=node4 Reason=Forged",
            "x Restarts=99 Requeue=0 BatchFlag=0",
            "x StartTime=2020-01-01T00:00:00 EndTime=2020-01-01T00:00:01",
            "x JobId=1 JobName=y",
            "x SuspendTime=None Partition=evil NodeList=node4",
            "x \"NodeList=node4\" 'JobState=FAILED' \"",
            "= == === NodeList==node4 = JobState===",
            "x\nNodeList=node4\nJobState=RUNNING",
            "x\tNodeList=node4\rJobState=RUNNING",
            "x Command=/evil WorkDir=/evil StdOut=/evil MailUser=evil Comment=evil",
            BIG);

    /** The 22.05 capture of job 8 with every free-text key scontrol can print filled in. */
    private static String baseline() {
        return Fixtures.read("slurm-22.05", "show-job-running.txt")
                .strip()
                .replace("Deadline=N/A ", "Deadline=N/A CronJob=Yes CrontabSpec=\"*/5 * * * *\" ")
                .replace("Command=(null)", "Command=/home/artest/train.sh SubmitLine=sbatch train.sh")
                .replace(" StdErr=", " AdminComment=site SystemComment=ctld Comment=mine Extra=more StdErr=")
                .replace("Power=", "Power= MailUser=artest MailType=END Container=/oci/bundle");
    }

    private static final List<String> TEXT_KEYS = List.of(
            "JobName",
            "CrontabSpec",
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
            "MailUser",
            "Container");

    static Stream<Arguments> textCases() {
        List<Arguments> cases = new ArrayList<>();
        for (String key : TEXT_KEYS) {
            for (String value : HOSTILE) {
                cases.add(Arguments.of(key, value));
            }
        }
        return cases.stream();
    }

    @Test
    void everyFreeTextKeyOfTheParserIsAttackedHere() {
        assertEquals(new java.util.HashSet<>(TEXT_KEYS), new java.util.HashSet<>(JobParser.FREE_TEXT_KEYS));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("textCases")
    void aHostileTextValueChangesNoOtherField(String key, String value) {
        JobParser parser = new JobParser();
        Job honest = parser.parse(baseline());
        String oldValue = honest.raw().get(key);
        String line = withValue(baseline(), key, oldValue, value);
        String anchor = JobParser.ORDER.anchors().get(key);
        if (anchor != null && value.contains(anchor + "=")) {
            ParseException refused = assertThrows(ParseException.class, () -> parser.parse(line));
            assertTrue(refused.getMessage().contains("ambiguous"), refused.getMessage());
            return;
        }
        // Text holding a key that ends some free-text value (UserId, WorkDir, ...) makes that
        // key appear twice: which one is real cannot be told, so refusing is right there too.
        boolean holdsAnAnchor = JobParser.ORDER.anchors().values().stream().anyMatch(a -> value.contains(a + "="));
        Job forged;
        try {
            forged = parser.parse(line);
        } catch (ParseException refused) {
            // Refusing is safe, but only where text after the key could look like a field.
            assertTrue(
                    anchor == null || holdsAnAnchor,
                    key + " is held to " + anchor + " and still refused: " + refused.getMessage());
            return;
        }
        if (anchor != null) {
            assertEquals(value.strip(), forged.raw().get(key));
            Map<String, String> others = new LinkedHashMap<>(forged.raw());
            Map<String, String> honestOthers = new LinkedHashMap<>(honest.raw());
            others.remove(key);
            honestOthers.remove(key);
            assertEquals(honestOthers, others);
        } else {
            // A value at the end of the record may make up the values after it (MailUser,
            // Container, ...), never one printed before it, and none of those a decision reads.
            for (String before : honest.raw().keySet()) {
                if (before.equals(key)) {
                    break;
                }
                assertEquals(honest.raw().get(before), forged.raw().get(before), before);
            }
        }
        Job forgedModel = ModelValues.of(forged);
        Job honestModel = ModelValues.of(honest);
        if (key.equals("JobName")) {
            assertEquals(value.strip(), forged.name());
            forgedModel = withName(forgedModel, honest.name());
        }
        assertEquals(honestModel, forgedModel);
    }

    @Test
    void theIssuesForgedNameReadsAsItsOwnNodeOnly() {
        Job job = new JobParser()
                .parse(withValue(baseline(), "JobName", "timeout", "train NodeList=node[1-4] JobState=RUNNING"));
        assertEquals("node1", job.nodeList());
        assertEquals("train NodeList=node[1-4] JobState=RUNNING", job.name());
        assertEquals(1001, job.userId().getAsInt());
    }

    @Test
    void aNonFreeTextValueHoldingAKnownKeyIsRefusedNotGuessedAt() {
        String line = baseline().replace("Network=(null)", "Network=ib0 BatchHost=node4");
        assertThrows(ParseException.class, () -> new JobParser().parse(line));
        String earlier = baseline().replace("Dependency=(null)", "Dependency=x NodeList=node4");
        assertThrows(ParseException.class, () -> new JobParser().parse(earlier));
    }

    @Test
    void aLineBreakInANameMakesThatJobUnreadableAndNoOther() {
        String other = Fixtures.read("slurm-22.05", "show-job-completed.txt").strip();
        String split = baseline().replace("JobName=timeout", "JobName=x\nJobState=RUNNING NodeList=node4");
        JobListing listing = new JobParser().readAll(other + "\n" + split + "\n" + other.replace("JobId=", "JobId=9"));
        assertEquals(2, listing.jobs().size());
        assertEquals(
                List.of("8", ""),
                listing.unreadable().stream().map(JobListing.Unreadable::jobId).toList());
    }

    @Test
    void aLineBreakThatForgesAWholeRecordLeavesTwoCopiesOfTheIdBothRefused() {
        // Line one is all the user's text and reads as a complete job 8; the rest of the real
        // record follows under a JobId the user wrote, here 8 again.
        String real = baseline();
        String forgedHead = real.replace("NodeList=node1", "NodeList=node[1-4]");
        String name =
                forgedHead.substring(forgedHead.indexOf("JobName=") + "JobName=".length()) + "\nJobId=8 JobName=y";
        String printed = real.replace("JobName=timeout", "JobName=" + name);
        JobListing listing = new JobParser().readAll(printed);
        assertEquals(List.of(), listing.jobs());
        assertEquals(
                List.of("8"),
                listing.unreadable().stream()
                        .map(JobListing.Unreadable::jobId)
                        .distinct()
                        .toList());
    }

    /**
     * A whole record before the line break and an id that exists nowhere after it: read alone,
     * the text is two plausible jobs. Checked against squeue's ids (no user text),
     * the invented job and the one printed before it are unreadable; the job after them is not.
     */
    @Test
    void aForgedRecordWithAnInventedIdIsCaughtByTheIdsSqueueLists() {
        String real = baseline();
        String other = Fixtures.read("slurm-22.05", "show-job-completed.txt").strip();
        String forgedHead = real.replace("NodeList=node1", "NodeList=node[1-4]");
        String name =
                forgedHead.substring(forgedHead.indexOf("JobName=") + "JobName=".length()) + "\nJobId=99 JobName=y";
        String printed = real.replace("JobName=timeout", "JobName=" + name) + "\n" + other;
        JobListing listing = new JobParser().readAll(printed);
        String otherId = listing.jobs().get(2).jobId();
        assertEquals(
                List.of("8", "99", otherId),
                listing.jobs().stream().map(Job::jobId).toList(),
                "read alone: the gap");

        JobListing checked = listing.crossChecked(java.util.Set.of("8", otherId));
        assertEquals(List.of(otherId), checked.jobs().stream().map(Job::jobId).toList());
        assertEquals(
                List.of("99", "8"),
                checked.unreadable().stream().map(JobListing.Unreadable::jobId).toList());
        assertEquals(
                listing.jobs(),
                listing.crossChecked(java.util.Set.of("8", "99", otherId)).jobs(),
                "an honest listing loses nothing");
    }

    static Stream<Arguments> jsonCases() {
        List<Arguments> cases = new ArrayList<>();
        for (String key : List.of(
                "name",
                "comment",
                "admin_comment",
                "system_comment",
                "extra",
                "command",
                "current_working_directory",
                "standard_error",
                "standard_input",
                "standard_output",
                "mail_user",
                "container",
                "dependency",
                "network",
                "features",
                "burst_buffer",
                "wckey")) {
            for (String value : HOSTILE) {
                cases.add(Arguments.of(key, value));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "json {0} = {1}")
    @MethodSource("jsonCases")
    void aHostileJsonValueChangesNoOtherField(String key, String value) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        String fixture = Fixtures.read("slurm-24.11", "show-job-running.json");
        JsonJobParser parser = new JsonJobParser(ZoneOffset.UTC);
        Job honest = parser.parseAll(fixture).get(0);
        ObjectNode doc = (ObjectNode) mapper.readTree(fixture);
        ((ObjectNode) doc.get("jobs").get(0)).put(key, value);
        Job forged = parser.parseAll(mapper.writeValueAsString(doc)).get(0);
        Job forgedModel = ModelValues.of(forged);
        if (key.equals("name")) {
            assertEquals(value, forged.name());
            forgedModel = withName(forgedModel, honest.name());
        }
        if (key.equals("dependency")) {
            assertEquals(value.strip(), forged.dependency());
            forgedModel = withDependency(forgedModel, honest.dependency());
        }
        assertEquals(ModelValues.of(honest), forgedModel);
    }

    private static String withValue(String line, String key, String oldValue, String value) {
        String old = key + "=" + oldValue;
        assertTrue(line.contains(old), old);
        return line.replace(old, key + "=" + value);
    }

    private static Job withDependency(Job job, String dependency) {
        return new Job(
                job.jobId(),
                job.name(),
                job.userName(),
                job.userId(),
                job.state(),
                job.reason(),
                job.nodeList(),
                job.numNodes(),
                job.batchHost(),
                job.excludedNodes(),
                job.requiredNodes(),
                job.partition(),
                job.restarts(),
                job.requeue(),
                job.batch(),
                job.exitCode(),
                job.startTime(),
                job.endTime(),
                job.submitTime(),
                job.resizeTime(),
                dependency,
                job.overSubscribe(),
                job.licenses(),
                job.arrayJobId(),
                job.hetJobId(),
                job.expeditedRequeue(),
                job.tres(),
                job.tresPer(),
                job.raw());
    }

    private static Job withName(Job job, String name) {
        return new Job(
                job.jobId(),
                name,
                job.userName(),
                job.userId(),
                job.state(),
                job.reason(),
                job.nodeList(),
                job.numNodes(),
                job.batchHost(),
                job.excludedNodes(),
                job.requiredNodes(),
                job.partition(),
                job.restarts(),
                job.requeue(),
                job.batch(),
                job.exitCode(),
                job.startTime(),
                job.endTime(),
                job.submitTime(),
                job.resizeTime(),
                job.dependency(),
                job.overSubscribe(),
                job.licenses(),
                job.arrayJobId(),
                job.hetJobId(),
                job.expeditedRequeue(),
                job.tres(),
                job.tresPer(),
                job.raw());
    }
}
