package org.slurmautoresume.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An ordinary user's listener on a port someone else's daemon left (a node agent's unprivileged
 * liveness port while the agent is down), run as the test user with python3. It does what any
 * user's program could: {@link Mode#GREET} answers every connection with a line of its choosing
 * and closes it (a forged greeting); {@link Mode#SILENT} accepts and holds every connection
 * without a word, as a stopped node's kernel would; {@link Mode#JAM} stops accepting and fills its
 * queue of unaccepted connections itself, so that further handshakes go unanswered, as for a node
 * cut off the network. Like any user's server it sets SO_REUSEADDR, so the connections the
 * agent closed last minute (TIME_WAIT) do not keep it off the port; a port someone still listens
 * on stays theirs. It exits when its standard input ends, or after ten minutes.
 */
final class PortSquatter implements AutoCloseable {

    /** What the listener does with the connections it gets from now on. */
    enum Mode {
        GREET,
        SILENT,
        JAM
    }

    private static final String SCRIPT = String.join(
            "\n",
            "import signal, socket, sys, threading, time",
            "signal.alarm(600)",
            "host, port, greeting = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode() + b'\\n'",
            "server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)",
            "server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)",
            "server.bind((host, port))",
            "server.listen(1)",
            "server.settimeout(0.05)",
            "state = {'mode': sys.argv[4], 'served': 0}",
            "parked = threading.Event()",
            "held = []",
            "def serve():",
            "    while True:",
            "        if state['mode'] == 'jam':",
            "            parked.set()",
            "            time.sleep(0.05)",
            "            continue",
            "        try:",
            "            peer = server.accept()[0]",
            "        except socket.timeout:",
            "            continue",
            "        if state['mode'] == 'greet':",
            "            peer.sendall(greeting)",
            "            peer.close()",
            "        else:",
            "            held.append(peer)",
            "        state['served'] += 1",
            "threading.Thread(target=serve, daemon=True).start()",
            "print('listening', flush=True)",
            "for line in sys.stdin:",
            "    word = line.strip()",
            "    if word in ('greet', 'silent'):",
            "        state['mode'] = word",
            "    elif word == 'jam':",
            "        parked.clear()",
            "        state['mode'] = 'jam'",
            "        parked.wait()  # the accepting thread has stopped accepting",
            "        for _ in range(4):",
            "            filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)",
            "            filler.setblocking(False)",
            "            filler.connect_ex((host, port))",
            "            held.append(filler)",
            "    print(state['served'], flush=True)");

    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;

    private PortSquatter(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    /**
     * The test user's listener on {@code address:port} in {@code mode}, greeting with {@code greeting}
     * where it greets. Returns once it listens; fails where the port is taken (its daemon still runs).
     */
    static PortSquatter start(LocalCluster cluster, String address, int port, Mode mode, String greeting) {
        List<String> argv = new ArrayList<>(cluster.asTestUser(List.of(
                "python3",
                "-c",
                SCRIPT,
                address,
                String.valueOf(port),
                greeting,
                mode.name().toLowerCase())));
        try {
            PortSquatter squatter = new PortSquatter(
                    new ProcessBuilder(argv).redirectErrorStream(true).start());
            String first = squatter.out.readLine();
            if (!"listening".equals(first)) {
                String rest = squatter.out.lines().reduce(first == null ? "" : first, (a, b) -> a + "\n" + b);
                squatter.close();
                throw new AssertionError("the test user could not listen on " + address + ":" + port + ":\n" + rest);
            }
            return squatter;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Switches to {@code mode}; for {@link Mode#JAM}, returns once the queue is full. */
    void to(Mode mode) {
        ask(mode.name().toLowerCase());
    }

    /** How many connections it accepted (greeted or held) so far. */
    int served() {
        return ask("count");
    }

    private int ask(String word) {
        in.println(word);
        try {
            String line = out.readLine();
            if (line == null) {
                throw new AssertionError("the squatter exited");
            }
            return Integer.parseInt(line.strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ends it (its input ends), forcibly if it does not go within ten seconds. */
    @Override
    public void close() {
        in.close();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
