package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.Config;
import io.lbk8s.config.L2Advertisement;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkAddress;
import io.lbk8s.net.link.LinkInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class InterfaceChoiceTest {

    static int nextIndex = 1;

    /** "eth0 10.0.0.5/24 fd00::5/64", with flags: "eth1 down", "lo loopback", "veth0 master=br0". */
    static LinkInfo link(String spec) {
        String[] parts = spec.split(" ");
        boolean up = true;
        boolean loopback = false;
        Optional<String> master = Optional.empty();
        List<LinkAddress> addresses = new ArrayList<>();
        for (String part : Arrays.asList(parts).subList(1, parts.length)) {
            if (part.equals("down")) {
                up = false;
            } else if (part.equals("loopback")) {
                loopback = true;
            } else if (part.startsWith("master=")) {
                master = Optional.of(part.substring(7));
            } else {
                String[] cidr = part.split("/");
                addresses.add(new LinkAddress(IpAddress.parse(cidr[0]).orElseThrow(), Integer.parseInt(cidr[1])));
            }
        }
        int index = nextIndex++;
        return new LinkInfo(
                parts[0], index, new MacAddress(0x02_00_00_00_00_00L + index), up, loopback, master, addresses);
    }

    static List<L2Advertisement> ads(String... specs) {
        StringBuilder yaml = new StringBuilder(LeaderChoiceTest.POOL);
        for (int i = 0; i < specs.length; i++) {
            yaml.append(LeaderChoiceTest.l2("ad" + i, specs[i]));
        }
        Config config = LeaderChoiceTest.config(yaml.toString());
        return config.l2Advertisements();
    }

    static final List<LinkInfo> NODE = List.of(
            link("lo loopback 127.0.0.1/8 ::1/128"),
            link("eth0 10.0.0.5/24 fd00::5/64"),
            link("eth1 192.168.7.5/24"),
            link("eth2 down 10.0.0.6/24"),
            link("docker0 10.0.0.7/24"),
            link("veth1a2b 10.0.0.8/24"),
            link("cni0 10.0.0.9/24"),
            link("enp3s0 master=br0"),
            link("br0 172.16.0.5/16"),
            link("bond0 10.1.0.5/24"),
            link("eno1 master=bond0 10.1.0.6/24"));

    static Stream<Arguments> cases() {
        return Stream.of(
                arguments("by subnet: the interface holding the address", "10.0.0.200", ads("{}"), List.of("eth0")),
                arguments("by subnet, IPv6", "fd00::200", ads("{}"), List.of("eth0")),
                arguments("by subnet: a bridge answers, not its member", "172.16.9.9", ads("{}"), List.of("br0")),
                arguments("by subnet: a bond answers, not its member", "10.1.0.200", ads("{}"), List.of("bond0")),
                arguments("no interface holds the subnet", "10.9.9.9", ads("{}"), List.of()),
                arguments(
                        "named interface, whatever its subnet",
                        "10.0.0.200",
                        ads("{interfaces: [eth1]}"),
                        List.of("eth1")),
                arguments(
                        "named excluded-looking interface is honoured",
                        "10.0.0.200",
                        ads("{interfaces: [docker0]}"),
                        List.of("docker0")),
                arguments("named down interface is skipped", "10.0.0.200", ads("{interfaces: [eth2]}"), List.of()),
                arguments("named missing interface", "10.0.0.200", ads("{interfaces: [eth9]}"), List.of()),
                arguments("named loopback is never used", "10.0.0.200", ads("{interfaces: [lo]}"), List.of()),
                arguments(
                        "named plus by-subnet advertisement: the union",
                        "10.0.0.200",
                        ads("{interfaces: [eth1]}", "{}"),
                        List.of("eth0", "eth1")),
                arguments(
                        "two named lists: the union",
                        "10.0.0.200",
                        ads("{interfaces: [eth1]}", "{interfaces: [br0]}"),
                        List.of("eth1", "br0")),
                arguments("no advertisement given: by subnet", "10.0.0.200", List.of(), List.of("eth0")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void chooses(String name, String ip, List<L2Advertisement> advertisements, List<String> expected) {
        List<LinkInfo> chosen = InterfaceChoice.choose(
                IpAddress.parse(ip).orElseThrow(), advertisements, NODE, InterfaceChoice.DEFAULT_EXCLUDED);
        assertThat(chosen).extracting(LinkInfo::name).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void withoutExclusionsContainerInterfacesCountBySubnet() {
        List<LinkInfo> chosen =
                InterfaceChoice.choose(IpAddress.parse("10.0.0.200").orElseThrow(), ads("{}"), NODE, List.of());
        assertThat(chosen).extracting(LinkInfo::name).containsExactlyInAnyOrder("eth0", "docker0", "veth1a2b", "cni0");
    }

    @Test
    void customExclusions() {
        List<LinkInfo> chosen = InterfaceChoice.choose(
                IpAddress.parse("10.0.0.200").orElseThrow(), ads("{}"), NODE, List.of(Pattern.compile("^eth")));
        assertThat(chosen).extracting(LinkInfo::name).containsExactlyInAnyOrder("docker0", "veth1a2b", "cni0");
    }

    @Test
    void explainsWhyNoInterface() {
        IpAddress ip = IpAddress.parse("10.9.9.9").orElseThrow();
        assertThat(InterfaceChoice.noInterface(
                        ip, "node-1", ads("{}"), List.of(link("eth0 10.0.0.5/24"), link("eth1 down"))))
                .isEqualTo("node node-1 leads 10.9.9.9 but no usable interface has a subnet containing it"
                        + " (it has: eth0 10.0.0.5/24, eth1 (down))");
        assertThat(InterfaceChoice.noInterface(
                        ip, "node-1", ads("{interfaces: [eth7]}"), List.of(link("eth0 10.0.0.5/24"))))
                .isEqualTo(
                        "node node-1 leads 10.9.9.9 but has none of the interfaces eth7 up (it has: eth0 10.0.0.5/24)");
    }
}
