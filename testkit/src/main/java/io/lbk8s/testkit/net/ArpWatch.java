package io.lbk8s.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the client sees of ARP: a capture (tcpdump) on the client's interface of every ARP reply and gratuitous ARP,
 * with the kernel's receive times. It tells which MACs answered for an address and when, so a test or benchmark can
 * check that two MACs never answer for one address within a window. It does not ask anything itself; whoever
 * uses it sends the requests (the answers to them, unicast to the client, are captured).
 */
public final class ArpWatch implements AutoCloseable {

    /** One MAC saying it holds {@code ip}: a reply, or a gratuitous request (sender IP = target IP). */
    public record Answer(long epochMicros, String mac, String ip) {}

    /** Two MACs answering for one address less than the window apart. */
    public record Overlap(Answer first, Answer second) {
        @Override
        public String toString() {
            return first.mac() + " at " + first.epochMicros() + " µs and " + second.mac() + " at "
                    + second.epochMicros() + " µs (" + (second.epochMicros() - first.epochMicros()) / 1000
                    + " ms apart) for " + first.ip();
        }
    }

    // "1764757200.123456 02:1b:8a:00:00:01 > 02:1b:8a:00:00:64, ethertype ARP (0x0806), length 42: Reply 198.18.7.200
    // is-at 02:..."
    private static final Pattern REPLY = Pattern.compile(
            "^(\\d+)\\.(\\d{6}) ([0-9a-f:]{17}) > [0-9a-f:]{17}, ethertype ARP .*: Reply (\\S+) is-at ([0-9a-f:]{17})");
    private static final Pattern GRATUITOUS = Pattern.compile(
            "^(\\d+)\\.(\\d{6}) ([0-9a-f:]{17}) > [0-9a-f:]{17}, ethertype ARP .*: Request who-has (\\S+) (?:\\([0-9a-f:]{17}\\) )?tell (\\S+),");
    private static final Pattern LISTENING = Pattern.compile("listening on");

    private final NamespacedProcess tcpdump;

    private ArpWatch(NamespacedProcess tcpdump) {
        this.tcpdump = tcpdump;
    }

    /** Starts capturing on the client's interface; returns once tcpdump listens. */
    public static ArpWatch start(TestNetwork network, Path log) {
        TestClient client = network.client();
        NamespacedProcess tcpdump = network.start(
                client.namespace(),
                List.of(Tool.TCPDUMP.path(), "-l", "-n", "-e", "-tt", "-U", "-i", client.interfaceName(), "arp"),
                log);
        tcpdump.awaitLogLine(LISTENING, Duration.ofSeconds(10));
        return new ArpWatch(tcpdump);
    }

    /** Every answer for {@code ip} captured so far, oldest first. */
    public List<Answer> answers(InetAddress ip) {
        return parse(log(), ip.getHostAddress());
    }

    private String log() {
        try {
            byte[] all = Files.readAllBytes(tcpdump.logFile());
            return new String(
                    all,
                    (int) Math.min(all.length, tcpdump.logOffset()),
                    (int) Math.max(0, all.length - tcpdump.logOffset()),
                    java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Answer> parse(String capture, String ip) {
        List<Answer> answers = new ArrayList<>();
        for (String line : capture.split("\n")) {
            Matcher reply = REPLY.matcher(line);
            if (reply.find() && reply.group(4).equals(ip)) {
                answers.add(new Answer(micros(reply), reply.group(5).toLowerCase(Locale.ROOT), ip));
                continue;
            }
            Matcher gratuitous = GRATUITOUS.matcher(line);
            if (gratuitous.find()
                    && gratuitous.group(4).equals(ip)
                    && gratuitous.group(5).equals(ip)) {
                answers.add(new Answer(micros(gratuitous), gratuitous.group(3).toLowerCase(Locale.ROOT), ip));
            }
        }
        return List.copyOf(answers);
    }

    private static long micros(Matcher m) {
        return Long.parseLong(m.group(1)) * 1_000_000L + Long.parseLong(m.group(2));
    }

    /** The distinct MACs among {@code answers}, in the order they first answered. */
    public static List<String> macs(List<Answer> answers) {
        return answers.stream().map(Answer::mac).distinct().toList();
    }

    /** Every pair of consecutive answers from different MACs less than {@code window} apart. */
    public static List<Overlap> overlaps(List<Answer> answers, Duration window) {
        List<Overlap> overlaps = new ArrayList<>();
        long windowMicros = window.toNanos() / 1000;
        for (int i = 1; i < answers.size(); i++) {
            Answer before = answers.get(i - 1);
            Answer after = answers.get(i);
            if (!before.mac().equals(after.mac()) && after.epochMicros() - before.epochMicros() < windowMicros) {
                overlaps.add(new Overlap(before, after));
            }
        }
        return List.copyOf(overlaps);
    }

    @Override
    public void close() {
        tcpdump.stop(Duration.ofSeconds(2));
    }
}
