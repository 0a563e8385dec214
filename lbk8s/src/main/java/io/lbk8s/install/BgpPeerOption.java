package io.lbk8s.install;

import io.lbk8s.address.IpAddress;
import io.lbk8s.text.Quoted;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One {@code --bgp-peer}: a router the nodes peer with, written {@code ADDRESS,asn=PEER_ASN[,my-asn=MY_ASN][,name=NAME]}.
 * Commas rather than colons separate the parts, so that an IPv6 address needs no brackets. Becomes a BGPPeer named
 * {@code name} (by default {@code peer-} and the address). Pure.
 *
 * @param myAsn the cluster's AS number; {@link #DEFAULT_MY_ASN} unless given
 */
public record BgpPeerOption(String name, IpAddress address, long peerAsn, long myAsn) {

    /** The first private 2-byte AS number (RFC 6996): what a lab router usually expects of its clients. */
    public static final long DEFAULT_MY_ASN = 64512;

    private static final String FORM = "ADDRESS,asn=PEER_ASN[,my-asn=MY_ASN][,name=NAME], e.g. 192.168.1.1,asn=64501";
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final long MAX_ASN = 0xFFFF_FFFFL;

    /** Every {@code --bgp-peer} given, in order; the first problem stops install with a sentence naming the flag. */
    public static List<BgpPeerOption> parseAll(List<String> texts) {
        List<BgpPeerOption> peers = texts.stream().map(BgpPeerOption::parse).toList();
        Set<String> names = new HashSet<>();
        Set<IpAddress> addresses = new HashSet<>();
        for (BgpPeerOption peer : peers) {
            if (!addresses.add(peer.address())) {
                throw new InstallProblem("--bgp-peer: " + peer.address() + " is given twice; give each router once");
            }
            if (!names.add(peer.name())) {
                throw new InstallProblem("--bgp-peer: the name " + Quoted.of(peer.name())
                        + " is given twice; name each router differently (name=...)");
            }
        }
        return peers;
    }

    public static BgpPeerOption parse(String text) {
        String[] parts = text.split(",", -1);
        String where = "--bgp-peer " + Quoted.of(text) + ": ";
        Optional<IpAddress> address = IpAddress.parse(parts[0].strip());
        if (address.isEmpty()) {
            throw new InstallProblem(where + Quoted.of(parts[0]) + " is not an IP address; write " + FORM);
        }
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int equals = parts[i].indexOf('=');
            String key = equals < 0
                    ? parts[i].strip()
                    : parts[i].substring(0, equals).strip();
            if (!List.of("asn", "my-asn", "name").contains(key) || equals < 0) {
                throw new InstallProblem(
                        where + Quoted.of(parts[i]) + " is not one of asn=, my-asn= or name=; write " + FORM);
            }
            if (settings.put(key, parts[i].substring(equals + 1).strip()) != null) {
                throw new InstallProblem(where + key + "= is given twice");
            }
        }
        if (!settings.containsKey("asn")) {
            throw new InstallProblem(where + "asn= is required (the router's AS number); write " + FORM);
        }
        long peerAsn = asn(where, "asn", settings.get("asn"));
        long myAsn = settings.containsKey("my-asn") ? asn(where, "my-asn", settings.get("my-asn")) : DEFAULT_MY_ASN;
        String name = settings.getOrDefault("name", defaultName(address.get()));
        if (!NAME.matcher(name).matches()) {
            throw new InstallProblem(where + "name=" + name
                    + " is not a valid object name (lowercase letters, digits and '-', at most 63)");
        }
        return new BgpPeerOption(name, address.get(), peerAsn, myAsn);
    }

    /** {@code peer-192-168-1-1}, {@code peer-fd00--1}: the address in the characters an object name allows. */
    static String defaultName(IpAddress address) {
        return "peer-" + address.toString().replace('.', '-').replace(':', '-');
    }

    private static long asn(String where, String key, String value) {
        long asn;
        try {
            asn = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new InstallProblem(where + key + "=" + value + " is not an AS number (1-4294967295)");
        }
        if (asn < 1 || asn > MAX_ASN) {
            throw new InstallProblem(where + key + "=" + value + " is not an AS number (1-4294967295)");
        }
        return asn;
    }
}
