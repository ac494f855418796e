package org.slurmautoresume.lifecycle.model;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/** IPv4 and IPv6 literals, parsed without ever asking DNS. */
public final class IpAddress {

    private static final Pattern V4 =
            Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    /** Hex digits, colons, an embedded IPv4 tail and a zone: only then is InetAddress sure to parse, not look up. */
    private static final Pattern V6_CHARACTERS = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[A-Za-z0-9_.-]+)?");

    private IpAddress() {}

    /** The address, or empty when {@code text} is not an IPv4 dotted quad or an IPv6 literal. */
    public static Optional<InetAddress> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        boolean v4 = V4.matcher(text).matches();
        if (!v4 && !V6_CHARACTERS.matcher(text).matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(text));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /** The canonical text of an address (so {@code ::1} and {@code 0:0:0:0:0:0:0:1} compare equal). */
    public static Optional<String> canonical(String text) {
        return parse(text).map(InetAddress::getHostAddress);
    }
}
